import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's one receiver of SIGINT, SIGTERM and SIGHUP, installed by `frontmail-bench`'s first
/// line (`install()`), before anything is printed.
///
/// A handler (`sigaction`) writes the signal's number to a pipe, which a thread of its own reads
/// and hands to the newest listener (`InterruptHandler`). A signal source of Dispatch is not used:
/// on Linux it receives a signal only while every thread blocks it, and a thread of the server's
/// or the main thread that does not block it takes the signal and, ignored, drops it (`serve`
/// missed 1-8 % of its stops that way).
///
/// A signal that comes while nobody listens (before a mode starts listening, between two, or in a
/// command that does not) is kept: a listener that starts later receives it at once. Until then,
/// the command finishes what it is writing, and a process still running `RunSession.signalDeadline`
/// seconds after the first such signal, or at a second one, ends with 128 + the signal.
package enum ProcessSignals {
    /// The signals a run ends on.
    package static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    package static func name(_ signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        case SIGHUP: "SIGHUP"
        default: "signal \(signal)"
        }
    }

    /// The router of this process's signals: one nobody takes arms the end (`RunSession.signalDeadline`);
    /// a listener that takes it later disarms that end (its own deadline governs from then on:
    /// a run signalled while it loaded its files was ended mid-write with 129 and no run CSV).
    package static let router: SignalRouter = SignalRouter(
        unheard: { signal, _ in
            let deadline = unheardEnd.withLock { current -> EndDeadline in
                if let current { return current }
                let made = EndDeadline(seconds: RunSession.signalDeadline) { reason in
                    printError("interrupted: \(reason); ending now")
                    _exit(128 + signal)
                }
                current = made
                return made
            }
            // A second one fires the end at once.
            if deadline.start() { printError("\(name(signal)): finishing what is being written, then stopping") }
        },
        taken: {
            unheardEnd.withLock { current in
                current?.cancel()
                current = nil
            }
        })

    private static let installed = Mutex(false)
    private static let unheardEnd = Mutex<EndDeadline?>(nil)

    /// Installs the handlers (once; later calls do nothing). SIGPIPE is ignored from here on: a
    /// closed stdout or stderr is an error of that write (`StandardStream`), not the process's end.
    package static func install() {
        let first = installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            printError(
                "frontmail-bench: cannot install the signal handlers (pipe: \(String(cString: strerror(errno))))")
            return
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        // A full pipe (hundreds of signals unread) drops the signal rather than block the handler.
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        signalPipe = ends[1]
        let reader = ends[0]
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(reader, &byte, 1)
                if count == 1 {
                    deliver(Int32(byte))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
        for number in handled { setSignalHandler(number, signalHandler, flags: SA_RESTART) }
    }

    /// Sets `handler` for signal `number` (`sigaction`, nothing blocked while it runs), keeping the
    /// action it replaces in `previous`.
    static func setSignalHandler(
        _ number: Int32, _ handler: @escaping @convention(c) (Int32) -> Void, flags: Int32,
        previous: UnsafeMutablePointer<sigaction>? = nil
    ) {
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = handler
        #else
            action.__sigaction_u.__sa_handler = handler
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = flags
        sigaction(number, &action, previous)
    }

    /// Hands `signal` to this process's router (as the handler does; a child whose parent ended
    /// delivers SIGHUP itself).
    package static func deliver(_ signal: Int32) { router.deliver(signal) }
}

/// Hands each signal to the newest listener. A signal that comes while nobody listens is kept for
/// the next listener, and reaches `unheard` (with whether it is the first kept one).
package final class SignalRouter: Sendable {
    private struct Listener {
        var id: Int
        var action: @Sendable (Int32) -> Void
    }

    private struct State {
        var listeners: [Listener] = []
        var nextID = 0
        /// Signals that came while nobody listened, oldest first.
        var pending: [Int32] = []
        /// The first signal ever kept (a listener that takes it does not make it unsent).
        var firstKept: Int32?
    }

    private let state = Mutex(State())
    private let unheardAction: @Sendable (Int32, Bool) -> Void
    private let takenAction: @Sendable () -> Void

    /// `taken` runs when a listener takes signals that were kept.
    package init(
        unheard: @escaping @Sendable (Int32, Bool) -> Void, taken: @escaping @Sendable () -> Void = {}
    ) {
        unheardAction = unheard
        takenAction = taken
    }

    package func deliver(_ signal: Int32) {
        let (listener, first) = state.withLock { state -> (Listener?, Bool) in
            if let newest = state.listeners.last { return (newest, false) }
            state.pending.append(signal)
            defer { state.firstKept = state.firstKept ?? signal }
            return (nil, state.firstKept == nil)
        }
        if let listener {
            listener.action(signal)
        } else {
            unheardAction(signal, first)
        }
    }

    /// Starts listening; signals kept while nobody listened come at once. Returns the listener's id.
    package func listen(_ action: @escaping @Sendable (Int32) -> Void) -> Int {
        let (id, kept) = state.withLock { state -> (Int, [Int32]) in
            state.nextID += 1
            state.listeners.append(Listener(id: state.nextID, action: action))
            defer { state.pending = [] }
            return (state.nextID, state.pending)
        }
        if !kept.isEmpty {
            takenAction()
            DispatchQueue.global().async { for signal in kept { action(signal) } }
        }
        return id
    }

    package func stopListening(_ id: Int) {
        state.withLock { state in state.listeners.removeAll { $0.id == id } }
    }

    /// The first signal that came while nobody listened, taken by a listener since or not.
    package var firstKept: Int32? { state.withLock { $0.firstKept } }

    /// The first signal that came while nobody listened and no listener has taken since.
    package var unheard: Int32? { state.withLock { $0.pending.first } }
}

/// The write end of the signal pipe: set once before the handlers are installed, read by them.
nonisolated(unsafe) private var signalPipe: Int32 = -1

/// Async-signal-safe: one `write` of the signal's number, errno kept.
private func signalHandler(_ signal: Int32) {
    let saved = errno
    var byte = UInt8(truncatingIfNeeded: signal)
    _ = write(signalPipe, &byte, 1)
    errno = saved
}

/// Listens for SIGINT, SIGTERM or SIGHUP from its creation, so a signal between then and `wait()`
/// is not lost (`serve` listens before it prints the line a supervisor waits for).
package final class TerminationSignal: Sendable {
    private final class Arrival: Sendable {
        let semaphore = DispatchSemaphore(value: 0)
        let name = Mutex("signal")
    }

    private let arrival = Arrival()
    private let handler: InterruptHandler

    package init() {
        let arrival = self.arrival
        handler = InterruptHandler { name in
            arrival.name.withLock { $0 = name }
            arrival.semaphore.signal()
        }
    }

    /// Blocks until the first signal since `init` (or one kept from before it); its name.
    package func wait() -> String {
        arrival.semaphore.wait()
        handler.stop()
        return arrival.name.withLock { $0 }
    }
}

/// Calls `action` with the signal's name on SIGINT, SIGTERM or SIGHUP until `stop()` (installing
/// `ProcessSignals` if nothing did).
package final class InterruptHandler: Sendable {
    private let id: Int

    package convenience init(_ action: @escaping @Sendable (String) -> Void) {
        self.init(numbered: { action(ProcessSignals.name($0)) })
    }

    /// `action` receives the signal's number.
    package init(numbered action: @escaping @Sendable (Int32) -> Void) {
        ProcessSignals.install()
        id = ProcessSignals.router.listen(action)
    }

    /// Stops listening: a signal from here on is kept for the next listener.
    package func stop() { ProcessSignals.router.stopListening(id) }
}
