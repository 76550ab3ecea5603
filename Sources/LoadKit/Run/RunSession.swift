import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one ending of every run mode (scenarios in this process, each in a child process, on
/// worker processes, shards merged): the combined `<run>-run.csv`, one verdict line per scenario
/// on stdout in the run's order, the report with its JUnit and Markdown, the results path, and the
/// exit code.
package struct RunSession {
    /// One scenario's part of the ending.
    package struct Entry: Sendable {
        var name: String
        /// `PASS …`, `FAIL …` or `INTERRUPTED …`, as printed.
        var verdictLine: String
        var rows: [SummaryRow]
        var passed: Bool
        var interrupted: Bool
        /// Why the scenario has no verdict of its own (it could not run, or its process ended
        /// without one); the report shows it as an error.
        var error: String?

        package init(_ result: ScenarioResult) {
            name = result.scenario.name
            verdictLine = result.verdictLine
            rows = result.rows
            passed = result.passed
            interrupted = result.interrupted
        }

        /// A scenario whose verdict was printed by a child process (its rows are in its folder).
        init(name: String, childVerdict: String, status: Int32, rows: [SummaryRow]) {
            self.name = name
            verdictLine = childVerdict
            self.rows = rows
            passed = status == 0
            interrupted = status == ExitCode.interrupted.rawValue
        }

        /// A scenario whose process a signal ended: `CRASH name (signal 11, SIGSEGV)`, with the
        /// crash report as its error and a `run.crash` row (the signal) among its rows.
        init(name: String, crash: ChildCrash, rows: [SummaryRow]) {
            self.name = name
            verdictLine = "CRASH \(name) (\(crash.summary))"
            var recorder = MetricRecorder(scenario: name)
            recorder.record(.runCrashSignal, Double(crash.signal))
            self.rows = rows.filter { !$0.isRow(of: .runCrashSignal) } + recorder.rows
            passed = false
            interrupted = false
            error = crash.text
        }

        /// A scenario that ended without a verdict: `FAIL name: error`.
        init(name: String, error: String, status: Int32? = nil, rows: [SummaryRow] = []) {
            self.name = name
            verdictLine = "FAIL \(name): \(error)"
            self.rows = rows
            passed = false
            interrupted = status == ExitCode.interrupted.rawValue
            self.error = error
        }
    }

    /// The command, for messages (`run: could not write …`).
    let command: String
    let writer: ResultsWriter
    /// What to write besides the CSV; nil for a child of an isolated run (its parent writes them).
    let outputs: RunOutputs?

    package init(command: String, writer: ResultsWriter, outputs: RunOutputs?) {
        self.command = command
        self.writer = writer
        self.outputs = outputs
    }

    /// Writes and prints the ending of `entries` (in the run's order) and returns the exit code:
    /// 130 when the run was cancelled, a scenario was interrupted or fewer than `planned` ended;
    /// otherwise 0 when every scenario passed, 1 when one did not; 70 when a file cannot be written.
    package func end(_ entries: [Entry], planned: Int, cancelled: Bool) -> ExitCode {
        let combined: URL
        do {
            combined = try writer.writeRun(entries.flatMap(\.rows))
        } catch {
            printError("\(command): could not write \(writer.runCSV.path): \(error)")
            return .software
        }
        for entry in entries { print(entry.verdictLine) }
        if let outputs {
            var errors: [String: String] = [:]
            for entry in entries { errors[entry.name] = entry.error }
            do {
                let written = try outputs.write(runCSV: combined, order: entries.map(\.name), errors: errors)
                if let wall = written.wall { print(wall) }
                print("report: \(written.report.path)")
            } catch {
                printError("\(command): \(error)")
                return .software
            }
        }
        print("results: \(combined.path)")
        if cancelled || entries.count < planned || entries.contains(where: \.interrupted) { return .interrupted }
        return entries.allSatisfy(\.passed) ? .success : .failure
    }

    /// How long a signalled run may take to end, seconds: SIGINT, SIGTERM or SIGHUP end every mode within
    /// 2 s (this, and the process's own teardown), whatever a child or an output is doing.
    package static let signalDeadline = 1.8

    /// Runs `work` to its end. SIGINT, SIGTERM or SIGHUP print `notice`, cancel it (so it ends early with
    /// what it has) and reach `signalled` with the signal (to forward it to child processes, which
    /// run in process groups of their own). Returns what the work returned or threw, and whether
    /// a signal cancelled it. A run still going `signalDeadline` seconds after the first signal, or
    /// at a second one, is ended there (`EndDeadline`), and that is said.
    package static func interruptible<Value: Sendable>(
        notice: String, signalled: (@Sendable (Int32) -> Void)? = nil,
        _ work: @escaping @Sendable () async throws -> Value
    ) async -> (result: Result<Value, any Error>, cancelled: Bool) {
        let task = Task { try await work() }
        let deadline = EndDeadline(seconds: signalDeadline) { reason in
            printError("interrupted: \(reason); ending now (results not yet written are lost)")
            _exit(130)
        }
        let interruption = InterruptHandler(numbered: { signal in
            // Children first: at a second signal they are killed before this process ends.
            signalled?(signal)
            if deadline.start() {
                printError(notice)
                task.cancel()
            }
        })
        defer {
            interruption.stop()
            deadline.cancel()
        }
        let result = await task.result
        return (result, task.isCancelled)
    }
}

/// The end of a signalled run: `start()` at the first signal arms a timer of `seconds`; a second
/// `start()` (a second signal) or the timer running out calls `action` once, unless `cancel()`
/// came first (the run ended by itself).
package final class EndDeadline: Sendable {
    private struct State {
        var started = false
        var done = false
    }

    private let state = Mutex(State())
    private let seconds: Double
    private let action: @Sendable (String) -> Void

    package init(seconds: Double, action: @escaping @Sendable (String) -> Void) {
        self.seconds = seconds
        self.action = action
    }

    /// Arms the deadline; whether this was the first call (a later one fires it at once).
    @discardableResult
    package func start() -> Bool {
        let first = state.withLock { state -> Bool in
            defer { state.started = true }
            return !state.started
        }
        if first {
            // A thread of its own: a pool busy with the run's work must not delay the deadline.
            let seconds = self.seconds
            Thread.detachNewThread { [self] in
                Thread.sleep(forTimeInterval: seconds)
                fire("still running \(seconds) s after the signal")
            }
        } else {
            fire("a second signal came")
        }
        return first
    }

    /// The run ended by itself: the deadline no longer acts.
    package func cancel() { state.withLock { $0.done = true } }

    private func fire(_ reason: String) {
        let go = state.withLock { state -> Bool in
            defer { state.done = true }
            return !state.done
        }
        if go { action(reason) }
    }
}
