import Foundation
import Synchronization

/// One line of live progress on stderr, rewritten every second while a scenario runs. It draws
/// from a thread of its own: on the cooperative pool, behind 10,000 sends in flight, a one-second
/// timer fired seconds late and a `--workers` parent saw a worker's count stand still.
final class ProgressReporter: Sendable {
    let scenario: Scenario
    let history: History
    let start: Double
    /// Where the progress goes instead of the line on stderr (a shard of a `--workers` run hands
    /// it to its parent); called every second and once at the end.
    let sink: Sink?
    private let lastLength = Mutex(0)
    private let stop = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    typealias Sink = @Sendable (History.Snapshot) -> Void

    init(scenario: Scenario, history: History, start: Double, sink: Sink? = nil) {
        self.scenario = scenario
        self.history = history
        self.start = start
        self.sink = sink
    }

    /// Draws every second until `finish`.
    func begin() {
        Thread.detachNewThread { [self] in
            while stop.wait(timeout: .now() + 1) == .timedOut { draw() }
            stopped.signal()
        }
    }

    /// Stops the drawing (waits for its thread), then clears the line (or hands the sink the last).
    func finish() {
        stop.signal()
        stopped.wait()
        if sink != nil {
            draw()
            return
        }
        let length = lastLength.withLock { $0 }
        if length > 0 {
            StandardStream.error("\r" + String(repeating: " ", count: length) + "\r")
        }
    }

    private func draw() {
        let elapsed = history.now() - start
        let snapshot = history.snapshot
        if let sink {
            sink(snapshot)
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
        StandardStream.error("\r" + padded)
    }
}

/// One line on stderr: diagnostics, progress and errors (stdout carries verdicts and paths only).
package func printError(_ message: String) {
    StandardStream.error(message + "\n")
}
