import FakeFrontmail
import Foundation

/// A run as its results folder holds it (the CSV is the source of truth): per scenario its
/// assertions, summary rows and description, read back for the report, JUnit and Markdown.
package struct RunResults: Sendable {
    struct Check: Sendable, Hashable {
        var assertion: String
        var passed: Bool
        var actual: String
        var expected: String
    }

    struct Window: Sendable, Hashable {
        /// Policy seconds since the run's start.
        var from: Double
        var to: Double
        var label: String
    }

    struct ScenarioEntry: Sendable {
        var name: String
        var description = ""
        var folder: URL?
        var checks: [Check] = []
        var rows: [SummaryRow] = []
        /// Why it has no verdict (it could not run, or ended without one).
        var error: String?
        /// The plan's fault and capacity windows, for the timeline.
        var windows: [Window] = []

        var passed: Bool { error == nil && checks.allSatisfy(\.passed) }
        var failures: [Check] { checks.filter { !$0.passed } }

        func value(_ probe: String, _ metric: String, _ statistic: String = "value") -> Double? {
            rows.first { $0.probe == probe && $0.metric == metric && $0.statistic == statistic }?.value
        }

        /// The value of the row the assertion name `name` reads, as the catalog maps it; nil when the
        /// catalog has no such name or the run wrote no such row.
        func value(named name: String) -> Double? {
            guard let row = MetricCatalog.entry(for: name)?.row(of: name) else { return nil }
            return value(row.probe, row.metric, row.statistic)
        }

        /// The value of the row `key` names; nil when the run wrote no such row.
        func value(_ key: MetricKey) -> Double? { value(named: key.text) }

        /// `95.2 s`, `95.2 s of 60 s: over budget` or `41.0 s of 60 s`, from the run rows; nil when
        /// the scenario recorded no wall time (it did not run, or its shards were merged).
        var wallText: String? {
            guard let wall = value("run", "wall_elapsed") else { return nil }
            guard let budget = value("run", "wall_budget") else { return String(format: "%.1f s", wall) }
            let over = value("run", "over_budget") == 1
            return String(format: "%.1f s of %g s", wall, budget) + (over ? ": over budget" : "")
        }

        var overBudget: Bool { value("run", "over_budget") == 1 }

        /// A file of the scenario's folder, nil when it is not there.
        func file(_ file: ResultFile) -> String? {
            guard let folder else { return nil }
            return try? String(contentsOf: folder.appendingPathComponent(file.name), encoding: .utf8)
        }
    }

    var runID: String
    var scenarios: [ScenarioEntry]
    /// A run CSV with a header and no rows: nothing ran, nothing to report.
    package var isEmpty: Bool { scenarios.isEmpty }

    /// The scenarios' wall seconds added up, and their budgets (nil when a scenario has none).
    var wallTotal: (seconds: Double, budget: Double?) {
        let seconds = scenarios.compactMap { $0.value("run", "wall_elapsed") }.reduce(0, +)
        let budgets = scenarios.map { $0.value("run", "wall_budget") }
        return (seconds, budgets.contains(nil) ? nil : budgets.compactMap { $0 }.reduce(0, +))
    }

    /// `wall time 146.2 s of a 170 s budget; over budget: cancellation-socket` (nil: no wall times).
    var wallSummary: String? {
        let total = wallTotal
        guard scenarios.contains(where: { $0.value("run", "wall_elapsed") != nil }) else { return nil }
        var text = String(format: "wall time %.1f s", total.seconds)
        if let budget = total.budget { text += String(format: " of a %g s budget", budget) }
        let over = scenarios.filter(\.overBudget).map(\.name)
        if !over.isEmpty { text += "; over budget: " + over.joined(separator: ", ") }
        return text
    }

    /// Reads `ROOT/<run>-<scenario>/` for each scenario of the run CSV (in its order), with
    /// `errors` for scenarios that have no verdict (by name).
    package static func read(runCSV: URL, errors: [String: String] = [:], order: [String] = []) throws -> RunResults {
        let text = String(decoding: try InputFileError.read(runCSV.path), as: UTF8.self)
        let (runID, rows) = try SummaryCSV.parse(text, unique: true)
        let root = runCSV.deletingLastPathComponent()
        var names: [String] = []
        for name in order + rows.map(\.scenario) + errors.keys.sorted() where !names.contains(name) {
            names.append(name)
        }
        let scenarios = names.map { name -> ScenarioEntry in
            var entry = ScenarioEntry(name: name)
            let folder = root.appendingPathComponent("\(runID)-\(name)")
            entry.folder = FileManager.default.fileExists(atPath: folder.path) ? folder : nil
            entry.rows = rows.filter { $0.scenario == name }
            entry.error = errors[name]
            // A crashed scenario: its report says so, whatever else its folder holds (read back
            // by `report` as the run wrote it; a `run.crash` row without the file still says it).
            if let crash = entry.file(.crash), ChildCrash.summaryLine(of: crash) != nil {
                entry.error = crash
            } else if entry.error == nil,
                let row = entry.rows.first(where: { $0.isRow(of: .runCrashSignal) })
            {
                let signal = row.value.isFinite && (1...128).contains(row.value) ? Int32(row.value) : 0
                entry.error = ChildCrash(signal: signal, backtrace: nil).text
            }
            if let text = entry.file(.assertions) {
                for (offset, fields) in CSV.rows(text).enumerated().dropFirst()
                where !(fields.count == 1 && fields[0].isEmpty) {
                    guard fields.count >= 4, fields[1] == "0" || fields[1] == "1" else {
                        entry.error =
                            entry.error ?? "\(ResultFile.assertions.name) line \(offset + 1) is not an assertion row"
                        continue
                    }
                    entry.checks.append(
                        Check(assertion: fields[0], passed: fields[1] == "1", actual: fields[2], expected: fields[3]))
                }
            } else if entry.error == nil {
                // Absence is not success: without the assertions the verdict cannot be read.
                entry.error =
                    entry.folder == nil
                    ? "its results folder \(folder.lastPathComponent) is missing: the verdict cannot be read"
                    : "its results folder has no \(ResultFile.assertions.name): the verdict cannot be read"
            }
            if let text = entry.file(.scenarioInfo),
                let info = try? JSONDecoder().decode(
                    ScenarioInfo.self, from: Data(text.utf8))
            {
                entry.description = info.description
                entry.windows = info.windows.map { Window(from: $0.from, to: $0.to, label: $0.label) }
            }
            if entry.error == nil, entry.rows.isEmpty, entry.checks.isEmpty {
                entry.error = "no results were written"
            }
            return entry
        }
        return RunResults(runID: runID, scenarios: scenarios)
    }
}

/// `scenario.json` in a scenario's results folder: what the reports need that the CSV does not say.
struct ScenarioInfo: Codable, Sendable, Hashable {
    struct Window: Codable, Sendable, Hashable {
        var from: Double
        var to: Double
        var label: String
    }

    var name: String
    var description: String
    var file: String
    var timeScale: Double
    /// Fault rules' and capacity windows in policy seconds (`to` may be the run's end: 1e9).
    var windows: [Window]

    init(_ scenario: Scenario) {
        name = scenario.name
        description = scenario.description
        file = scenario.file
        timeScale = scenario.timeScale
        var windows: [Window] = []
        for (index, rule) in scenario.plan.rules.enumerated() where rule.match.from != nil || rule.match.to != nil {
            let label = rule.name ?? "rules[\(index)] \(rule.action.kind.rawValue)"
            windows.append(
                Window(from: rule.match.from?.seconds ?? 0, to: rule.match.to?.seconds ?? 1e9, label: label))
        }
        for change in scenario.plan.capacity?.schedule ?? [] {
            let workers = change.workers(base: scenario.plan.capacity?.workers ?? 0)
            windows.append(
                Window(from: change.from.seconds, to: change.to.seconds, label: "capacity \(workers) workers"))
        }
        self.windows = windows
    }

    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) + "\n" } ?? "{}\n"
    }
}
