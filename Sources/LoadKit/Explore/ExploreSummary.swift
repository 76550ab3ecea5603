import Foundation

/// What an exploration found: per property, how often it was checked and broken; the distinct
/// failures, shrunk; the pooled jitter test; and the run's size.
package struct ExploreSummary: Sendable {
    struct Tally: Sendable {
        var checked = 0
        var violations = 0
        /// Cases that broke the property.
        var failingRuns = 0
    }

    let options: Explorer.Options
    var tallies: [String: Tally] = [:]
    /// Distinct failures, in the order they were found.
    var found: [Found] = []
    /// Failures found again with a shape already reported (by signature).
    var repeats: [String: Int] = [:]
    /// Jittered waits over their caps, from every case.
    var realized = UniformPool()
    /// How often the cases reached each of the SDK's decision points, and in how many cases.
    var reached: [DecisionPoint: (times: Int, cases: Int)] = [:]
    /// The pooled test's verdict once it rejected (it is not shrunk: it needs many waits).
    var pooled: KolmogorovSmirnov?
    var pooledFoundAt: Double?
    /// The number of cases run when it rejected.
    var pooledFoundRun: Int?
    package var runs = 0
    package var sends = 0
    package var interrupted = false
    package var wallSeconds = 0.0

    /// The pooled test's significance each time it is run (about 30 times at most in a run).
    static let pooledAlpha = 1e-6
    /// Distinct failures shrunk per property; more of the same property are counted, not shrunk.
    static let shrunkPerProperty = 3

    init(options: Explorer.Options) { self.options = options }

    package var failed: Bool { !found.isEmpty || pooled != nil }

    mutating func add(_ outcome: Explorer.Outcome) {
        runs += 1
        sends += outcome.sends
        realized.add(outcome.realized)
        for (point, times) in outcome.reached where times > 0 {
            reached[point, default: (0, 0)].times += times
            reached[point, default: (0, 0)].cases += 1
        }
        for (name, judged) in outcome.judged {
            tallies[name, default: Tally()].checked += judged.checked
            tallies[name, default: Tally()].violations += judged.violations
            if judged.violations > 0 { tallies[name, default: Tally()].failingRuns += 1 }
        }
        if outcome.error != nil {
            tallies[Explorer.runCompletes, default: Tally()].violations += 1
            tallies[Explorer.runCompletes, default: Tally()].failingRuns += 1
        }
        tallies[Explorer.runCompletes, default: Tally()].checked += 1
    }

    func wantsShrink(_ property: String) -> Bool {
        found.filter { $0.property == property }.count < Self.shrunkPerProperty
    }

    mutating func add(_ failure: Found) {
        if found.contains(where: { $0.signature == failure.signature }) {
            repeats[failure.signature, default: 0] += 1
        } else {
            found.append(failure)
        }
    }

    mutating func testPooled(elapsed: Double) {
        guard pooled == nil, realized.count >= 32 else { return }
        let test = realized.test()
        if test.p < Self.pooledAlpha {
            pooled = test
            pooledFoundAt = elapsed
            pooledFoundRun = runs
        }
    }

    // MARK: What is printed and written

    /// Every property in the catalog's order, then the pooled one and run-completes.
    static var propertyNames: [String] { ExploreProperty.all.map(\.name) + [Explorer.runCompletes] }

    func verdict(_ name: String) -> String {
        if name == ExploreProperty.jitterUniform {
            if pooled != nil || (tallies[name]?.violations ?? 0) > 0 { return "FAIL" }
            return realized.count < 32 ? "VACUOUS" : "PASS"
        }
        let tally = tallies[name] ?? Tally()
        if tally.violations > 0 { return "FAIL" }
        return tally.checked == 0 ? "VACUOUS" : "PASS"
    }

    /// One line per property: its verdict, what it checked, and where its failures were written.
    package var verdictLines: [String] {
        var lines: [String] = []
        for name in Self.propertyNames {
            let tally = tallies[name] ?? Tally()
            var line = "\(verdict(name)) \(name): \(tally.checked) checked"
            if tally.violations > 0 {
                line += ", \(tally.violations) violations in \(tally.failingRuns) of \(runs) cases"
                for failure in found where failure.property == name {
                    line +=
                        "; \(failure.file ?? "not written") (\(failure.shrunk.size.sends) sends, \(failure.shrunk.size.rules) rules)"
                }
            }
            lines.append(line)
            for failure in found where failure.property == name {
                guard let file = failure.file else { continue }
                lines.append("  replay: " + failure.replayCommand(file: file, broken: options.broken))
                if failure.original.evidence != nil {
                    lines.append("  the run that found it: " + Found.tracePath(file))
                }
            }
        }
        let test = pooled ?? realized.test()
        let figures = realized.count == 0 ? "no jittered waits" : String(format: "D %.4f, p %.3g", test.d, test.p)
        let alone = tallies[ExploreProperty.jitterUniform] ?? Tally()
        var jitter =
            "\(verdict(ExploreProperty.jitterUniform)) \(ExploreProperty.jitterUniform): \(realized.count) jittered waits pooled over every case (\(figures)); \(alone.checked) cases tested alone"
        if alone.violations > 0 { jitter += ", \(alone.violations) rejected" }
        lines.append(jitter)
        for failure in found where failure.property == ExploreProperty.jitterUniform {
            guard let file = failure.file else { continue }
            lines.append("  \(file) (\(failure.shrunk.size.sends) sends, \(failure.shrunk.size.rules) rules)")
            lines.append("  replay: " + failure.replayCommand(file: file, broken: options.broken))
        }
        let vacuous = DecisionPoint.allCases.filter { reached[$0] == nil }
        lines.append(
            "decision points: \(DecisionPoint.allCases.count - vacuous.count) of \(DecisionPoint.allCases.count) reached"
                + (vacuous.isEmpty ? "" : "; VACUOUS: " + vacuous.map(\.name).joined(separator: ", ")))
        return lines
    }

    /// One line per decision point: how often and in how many cases it was reached, or VACUOUS.
    package var coverageLines: [String] {
        DecisionPoint.allCases.map { point in
            guard let seen = reached[point] else { return "VACUOUS \(point.name): never reached" }
            return "COVERED \(point.name): \(seen.times) times in \(seen.cases) of \(runs) cases"
        }
    }

    package func progressLine(elapsed: Double) -> String {
        let broken = Self.propertyNames.filter { verdict($0) == "FAIL" }
        return String(format: "explore: %d cases, %d sends, %.0f s", runs, sends, elapsed)
            + (broken.isEmpty ? ", nothing found" : ", found: " + broken.joined(separator: ", "))
    }

    /// Wall seconds from the start to the first failure of `name` found (and shrunk).
    func firstFound(_ name: String) -> Double? {
        name == ExploreProperty.jitterUniform ? pooledFoundAt : found.first { $0.property == name }?.secondsToFind
    }

    /// explore.csv: one row per property (`kind` property), then one per decision point (`kind`
    /// decision: `checked` is how often it was reached, `reached_cases` in how many cases).
    package var csv: String {
        var text =
            "kind,property,verdict,checked,violations,failing_cases,cases,distinct_failures,smallest_sends,smallest_rules,first_found_s,reached_cases\n"
        for name in Self.propertyNames + [ExploreProperty.jitterUniform] {
            let tally = tallies[name] ?? Tally()
            let mine = found.filter { $0.property == name }
            let smallest = mine.min {
                $0.shrunk.size.sends + $0.shrunk.size.rules < $1.shrunk.size.sends + $1.shrunk.size.rules
            }
            let checked = name == ExploreProperty.jitterUniform ? realized.count : tally.checked
            let violations =
                name == ExploreProperty.jitterUniform ? tally.violations + (pooled == nil ? 0 : 1) : tally.violations
            text +=
                CSV.line([
                    "property", name, verdict(name), String(checked), String(violations), String(tally.failingRuns),
                    String(runs),
                    String(mine.count), smallest.map { String($0.shrunk.size.sends) } ?? "",
                    smallest.map { String($0.shrunk.size.rules) } ?? "",
                    firstFound(name).map { String(format: "%.3f", $0) } ?? "", "",
                ]) + "\n"
        }
        for point in DecisionPoint.allCases {
            let seen = reached[point]
            text +=
                CSV.line([
                    "decision", point.name, seen == nil ? "VACUOUS" : "COVERED", String(seen?.times ?? 0), "0", "",
                    String(runs), "", "", "", "", String(seen?.cases ?? 0),
                ]) + "\n"
        }
        return text
    }
}
