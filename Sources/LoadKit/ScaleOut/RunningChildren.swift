import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The worker processes running now, so that a signal to the run reaches every one of them (each
/// runs in its own process group), also one that starts after the signal.
package final class RunningChildren: Sendable {
    private struct State {
        var pids: Set<Int32> = []
        var signal: Int32?
    }

    private let state = Mutex(State())

    package init(grace: Double = 1) {
        self.grace = grace
    }

    func started(_ pid: Int32) {
        if let signal = state.withLock({ state -> Int32? in
            state.pids.insert(pid)
            return state.signal
        }) {
            kill(pid, signal)
            kill(pid, SIGCONT)
        }
    }

    func ended(_ pid: Int32) { _ = state.withLock { $0.pids.remove(pid) } }

    /// Whether a child's death by `signal` is this run's doing: the signal it forwarded, or the
    /// SIGKILL that ends a child still running after its grace.
    func forwarded(_ signal: Int32) -> Bool {
        guard let sent = state.withLock({ $0.signal }) else { return false }
        return signal == sent || signal == SIGKILL
    }

    /// How long a child has, after the signal, to write its partial results and end: 1 s, so that
    /// the parent can merge and write what the children wrote within `RunSession.signalDeadline`
    /// (a shard of a million sends, whose part takes longer to write, is killed and that is said).
    let grace: Double

    /// Sends `signal` to every child (and continues a stopped one, so that it can act on it). A
    /// child still running `grace` seconds later (stuck, or stopped again), or when a second
    /// signal comes, is killed, and that is said: a signal always ends the run.
    package func forward(_ signal: Int32) {
        let (pids, first) = state.withLock { state -> (Set<Int32>, Bool) in
            defer { state.signal = signal }
            return (state.pids, state.signal == nil)
        }
        guard first else {
            killRemaining(reason: "a second signal came")
            return
        }
        for pid in pids {
            kill(pid, signal)
            kill(pid, SIGCONT)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
            killRemaining(reason: "it did not end within \(grace) s of the signal")
        }
    }

    /// Sends `signal` to every child as it is, with none of `forward`'s care (tests stop a child).
    func forwardToAll(_ signal: Int32) {
        for pid in state.withLock({ $0.pids }) { kill(pid, signal) }
    }

    private func killRemaining(reason: String) {
        for pid in state.withLock({ $0.pids }).sorted() {
            printError("child process \(pid) killed (SIGKILL): \(reason)")
            kill(pid, SIGKILL)
        }
    }
}
