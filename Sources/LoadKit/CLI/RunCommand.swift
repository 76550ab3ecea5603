import FakeFrontmail
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `frontmail-bench run`: the standard job. Runs scenario files, judges them, writes CSV.
public enum RunCommand {
    public static let usage = """
        usage: frontmail-bench run FILE|DIR... [--out DIR] [--quick] [--seed N] [--only NAME]... [--no-progress]

        Runs every scenario (a DIR means its *.json files), prints one verdict line per scenario and
        the path of the results as the last lines on stdout, and writes DIR/<run>-<scenario>/ with
        summary.csv, history.csv, ledger.csv, jitter and latency histograms (see docs/csv.md).

          --out DIR       where results go (default results)
          --quick         shorten every scenario (its "quick" settings, or a tenth of the load)
          --seed N        override every scenario's seed
          --only NAME     run only this scenario (repeatable)
          --no-progress   no live progress line on stderr (it is off anyway when stderr is not a terminal)

        exit: 0 every assertion holds, 1 some failed, 64 bad arguments, 65 a bad scenario file, 130 interrupted
        """

    static let spec = Arguments.Spec(
        options: ["out", "seed", "only", "run-id"], flags: ["quick", "help", "no-progress", "same-process"])

    public static func run(_ arguments: [String]) async -> ExitCode {
        let parsed: Arguments
        let seed: UInt64?
        do {
            parsed = try Arguments(arguments, spec: spec)
            seed = try parsed.unsigned("seed")
        } catch {
            printError("run: \(error)\n\n\(usage)")
            return .usage
        }
        if parsed.flag("help") {
            print(usage)
            return .success
        }
        guard !parsed.positionals.isEmpty else {
            printError("run: name at least one scenario file or folder\n\n\(usage)")
            return .usage
        }
        var scenarios: [Scenario]
        do {
            scenarios = try ScenarioLoader.load(parsed.positionals)
        } catch let error as InputFileError {
            printError(error.description)
            return .dataError
        } catch {
            printError("run: \(error)")
            return .usage
        }
        let only = parsed.all("only")
        if !only.isEmpty {
            let unknown = only.filter { name in !scenarios.contains { $0.name == name } }
            guard unknown.isEmpty else {
                printError("run: no scenario named \(unknown.joined(separator: ", ")) (see frontmail-bench list)")
                return .usage
            }
            scenarios = scenarios.filter { only.contains($0.name) }
        }
        if parsed.flag("quick") { scenarios = scenarios.map { $0.quickened() } }
        if let seed {
            scenarios = scenarios.map {
                var copy = $0
                copy.seed = seed
                return copy
            }
        }

        let out = URL(fileURLWithPath: parsed.value("out") ?? "results")
        let runID = parsed.value("run-id") ?? Self.runID()
        let showProgress = !parsed.flag("no-progress") && isatty(2) == 1
        // Several scenarios: each in its own process, so one scenario's URLSession state (or a
        // crash) cannot affect the next.
        if scenarios.count > 1 && !parsed.flag("same-process"), let executable = Bundle.main.executablePath {
            return await runIsolated(scenarios, parsed: parsed, executable: executable, out: out, runID: runID)
        }
        let runner = ScenarioRunner(outputFolder: out, runID: runID, progress: showProgress)
        let work = Task { () -> [ScenarioResult] in
            var results: [ScenarioResult] = []
            for (index, scenario) in scenarios.enumerated() {
                if Task.isCancelled { break }
                if parsed.value("run-id") == nil {
                    printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
                }
                do {
                    let result = try await runner.run(scenario)
                    printError("  \(result.verdictLine) in \(String(format: "%.1f", result.elapsed)) s")
                    results.append(result)
                } catch {
                    printError("  \(scenario.name) could not run: \(error)")
                    throw error
                }
            }
            return results
        }
        let interruption = InterruptHandler { _ in
            printError("\ninterrupted: cancelling in-flight sends and writing partial results…")
            work.cancel()
        }
        defer { interruption.stop() }
        let results: [ScenarioResult]
        do {
            results = try await work.value
        } catch {
            return .software
        }
        var allRows: [SummaryRow] = []
        for result in results { allRows += result.rows }
        let combined = out.appendingPathComponent("\(runID)-run.csv")
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try SummaryCSV.render(allRows, runID: runID).write(to: combined, atomically: true, encoding: .utf8)
        } catch {
            printError("run: could not write \(combined.path): \(error)")
            return .software
        }
        for result in results { print(result.verdictLine) }
        print("results: \(combined.path)")
        if work.isCancelled || results.contains(where: \.interrupted) { return .interrupted }
        return results.allSatisfy(\.passed) ? .success : .failure
    }

    /// Runs each scenario in a child `frontmail-bench run FILE --only NAME`, then combines the results.
    static func runIsolated(
        _ scenarios: [Scenario], parsed: Arguments, executable: String, out: URL, runID: String
    ) async -> ExitCode {
        let child = Task { () -> [(Scenario, Int32, String?)] in
            var outcomes: [(Scenario, Int32, String?)] = []
            for (index, scenario) in scenarios.enumerated() {
                if Task.isCancelled { break }
                printError("[\(index + 1)/\(scenarios.count)] \(scenario.name): \(scenario.description)")
                var arguments = ["run", scenario.file, "--only", scenario.name, "--out", out.path, "--run-id", runID]
                if parsed.flag("quick") { arguments.append("--quick") }
                if let seed = parsed.value("seed") { arguments += ["--seed", seed] }
                if parsed.flag("no-progress") { arguments.append("--no-progress") }
                let (status, output) = await runChild(executable, arguments)
                let verdict = output.split(separator: "\n").map(String.init).last {
                    $0.hasPrefix("PASS ") || $0.hasPrefix("FAIL ") || $0.hasPrefix("INTERRUPTED ")
                }
                if verdict == nil { printError("  ERROR \(scenario.name): exited \(status) without a verdict") }
                outcomes.append((scenario, status, verdict))
            }
            return outcomes
        }
        let interruption = InterruptHandler { _ in
            printError("\ninterrupted: stopping after the current scenario's partial results are written…")
            child.cancel()
        }
        defer { interruption.stop() }
        let outcomes = await child.value
        var rows: [SummaryRow] = []
        for (scenario, _, _) in outcomes {
            let summary = out.appendingPathComponent("\(runID)-\(scenario.name)/summary.csv")
            if let text = try? String(contentsOf: summary, encoding: .utf8),
                let parsedRows = try? SummaryCSV.parse(text)
            {
                rows += parsedRows.rows
            }
        }
        let combined = out.appendingPathComponent("\(runID)-run.csv")
        do {
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            try SummaryCSV.render(rows, runID: runID).write(to: combined, atomically: true, encoding: .utf8)
        } catch {
            printError("run: could not write \(combined.path): \(error)")
            return .software
        }
        for (scenario, status, verdict) in outcomes {
            print(verdict ?? "FAIL \(scenario.name): the run ended without a verdict (exit \(status))")
        }
        print("results: \(combined.path)")
        if child.isCancelled || outcomes.contains(where: { $0.1 == ExitCode.interrupted.rawValue }) {
            return .interrupted
        }
        if outcomes.count < scenarios.count { return .interrupted }
        return outcomes.allSatisfy({ $0.1 == 0 }) ? .success : .failure
    }

    /// Runs a child process; its stderr goes to ours, its stdout is returned.
    static func runChild(_ executable: String, _ arguments: [String]) async -> (Int32, String) {
        await withCheckedContinuation { continuation in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.standardError
            do {
                try process.run()
            } catch {
                continuation.resume(returning: (-1, ""))
                return
            }
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }

    static func runID() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: Date())
    }
}

/// `frontmail-bench list`: the scenarios with their descriptions.
public enum ListCommand {
    public static let usage = "usage: frontmail-bench list [FILE|DIR...]   (default: scenarios/)"

    public static func run(_ arguments: [String]) -> ExitCode {
        let parsed: Arguments
        do {
            parsed = try Arguments(arguments, spec: Arguments.Spec(flags: ["help"]))
        } catch {
            printError("list: \(error)\n\(usage)")
            return .usage
        }
        if parsed.flag("help") {
            print(usage)
            return .success
        }
        do {
            let scenarios = try ScenarioLoader.load(parsed.positionals.isEmpty ? ["scenarios"] : parsed.positionals)
            let width = scenarios.map(\.name.count).max() ?? 0
            for scenario in scenarios {
                let padding = String(repeating: " ", count: width - scenario.name.count)
                print("\(scenario.name)\(padding)  [\(scenario.transport.rawValue)] \(scenario.description)")
            }
            return .success
        } catch let error as InputFileError {
            printError(error.description)
            return .dataError
        } catch {
            printError("list: \(error)")
            return .usage
        }
    }
}

/// Finds and validates scenario files before anything runs.
public enum ScenarioLoader {
    public struct NotFound: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "\(path): no such file or folder" }
    }

    public static func load(_ paths: [String]) throws -> [Scenario] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw NotFound(path: path)
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }
                    .sorted()
                files += names.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var scenarios: [Scenario] = []
        var seen: [String: String] = [:]
        for file in files {
            let scenario = try Scenario.load(file: file)
            if let other = seen[scenario.name] {
                throw InputFileError(
                    file: file,
                    error: PlanError(path: "name", reason: "'\(scenario.name)' is also the name in \(other)"))
            }
            seen[scenario.name] = file
            scenarios.append(scenario)
        }
        return scenarios
    }
}

/// Calls `action` with the signal's name on SIGINT or SIGTERM (which no longer end the process).
// @unchecked Sendable: `sources` is set once in `init`; DispatchSource is thread-safe but not marked Sendable.
final class InterruptHandler: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]

    init(_ action: @escaping @Sendable (String) -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { action(name) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func stop() {
        for source in sources { source.cancel() }
    }
}
