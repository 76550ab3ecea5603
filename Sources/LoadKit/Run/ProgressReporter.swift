import Foundation
import Synchronization

/// One line of live progress on stderr, rewritten every second while a scenario runs.
final class ProgressReporter: Sendable {
    let scenario: Scenario
    let history: History
    let start: Double
    /// A shard of a `--workers` run: a `progress` line on stdout every second for the parent to
    /// add up (`ShardProgress`), instead of the line on stderr.
    let lines: Bool
    private let lastLength = Mutex(0)

    init(scenario: Scenario, history: History, start: Double, lines: Bool = false) {
        self.scenario = scenario
        self.history = history
        self.start = start
        self.lines = lines
    }

    func run() async {
        while !Task.isCancelled {
            do {
                try await Task.sleep(nanoseconds: 1_000_000_000)
            } catch {
                return
            }
            draw()
        }
    }

    func finish() {
        if lines {
            draw()
            return
        }
        let length = lastLength.withLock { $0 }
        if length > 0 {
            FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: length) + "\r").utf8))
        }
    }

    private func draw() {
        let elapsed = history.now() - start
        let snapshot = history.snapshot
        if lines {
            let line = ShardProgress(
                scheduled: snapshot.scheduled, inFlight: snapshot.inFlight, ok: snapshot.ok, errors: snapshot.errors)
            FileHandle.standardOutput.write(Data((line.line + "\n").utf8))
            return
        }
        let done = snapshot.scheduled - snapshot.inFlight
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        var eta = ""
        if let total = scenario.load.sends, rate > 0 {
            eta = String(format: ", ETA %.0fs", Double(max(0, total - done)) / rate)
        } else if let duration = scenario.load.duration {
            eta = String(format: ", ETA %.0fs", max(0, duration.seconds - elapsed))
        }
        let errors = snapshot.errors.sorted { $0.value > $1.value }.prefix(3).map { "\($0.key)=\($0.value)" }
        let line = String(
            format: "%@: %.0fs, %d sends (%.0f/s), %d in flight, %d ok%@%@", scenario.name, elapsed, done, rate,
            snapshot.inFlight, snapshot.ok, errors.isEmpty ? "" : ", errors " + errors.joined(separator: " "), eta)
        let padded = lastLength.withLock { last -> String in
            defer { last = line.count }
            return line + String(repeating: " ", count: max(0, last - line.count))
        }
        FileHandle.standardError.write(Data(("\r" + padded).utf8))
    }
}

/// One line on stderr: diagnostics, progress and errors (stdout carries verdicts and paths only).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
