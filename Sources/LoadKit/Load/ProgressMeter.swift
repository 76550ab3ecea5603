import Foundation
import Synchronization

/// One progress line for a long job: done of total, elapsed, an ETA from the rate so far.
package final class ProgressMeter: Sendable {
    private struct State {
        var started = Date()
        var lastPrinted = Date.distantPast
        var lastPercent = -1
    }

    private let live: Bool
    private let state = Mutex(State())

    package init(live: Bool) { self.live = live }

    package func update(done: Int, total: Int, label: String) {
        let now = Date()
        let line: String? = state.withLock { state in
            let percent = total == 0 ? 100 : done * 100 / total
            // Live: at most 4 times a second. Not a terminal: a line per 10 %.
            if live {
                guard now.timeIntervalSince(state.lastPrinted) >= 0.25 || done == total else { return nil }
            } else {
                guard percent / 10 != state.lastPercent / 10 || done == total else { return nil }
            }
            state.lastPrinted = now
            state.lastPercent = percent
            let elapsed = now.timeIntervalSince(state.started)
            let eta = done == 0 ? Double.nan : elapsed / Double(done) * Double(total - done)
            return String(
                format: "[%d/%d] %d%% %.0f s elapsed, ETA %@ — %@", done, total, percent, elapsed,
                eta.isFinite ? String(format: "%.0f s", eta) : "?", label)
        }
        guard let line else { return }
        if live {
            StandardStream.error("\r\u{1B}[K" + line)
        } else {
            printError(line)
        }
    }

    /// A step past the counted work (deciding, writing): said at once, so a long ending is never
    /// silent after "100 %".
    package func note(_ text: String) {
        if live {
            StandardStream.error("\r\u{1B}[K" + text + "…")
        } else {
            printError(text + "…")
        }
    }

    package func finish() {
        if live { StandardStream.error("\n") }
    }
}
