import Foundation
import LoadKit
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A signal while a command works outside `RunSession.interruptible` (tune deciding after its runs,
/// merge reading and judging its parts): noted, said (`notice`), and the process ended
/// `RunSession.signalDeadline` seconds later with 130 if the command has not ended by then (or at
/// once at a second signal). The command checks `came` between its steps and ends early.
final class LateSignal: Sendable {
    private let seen = Mutex(false)
    private let deadline = EndDeadline(seconds: RunSession.signalDeadline) { reason in
        printError("interrupted: \(reason); ending now (results not yet written are lost)")
        _exit(130)
    }
    private let handler: Mutex<InterruptHandler?> = Mutex(nil)

    private let notice: String

    init(notice: String) {
        self.notice = notice
        let listener = InterruptHandler(numbered: { [weak self] (_: Int32) in self?.noted() })
        handler.withLock { $0 = listener }
    }

    private func noted() {
        seen.withLock { $0 = true }
        if deadline.start() {
            printError(notice)
        }
    }

    var came: Bool { seen.withLock { $0 } }

    func stop() {
        handler.withLock { $0?.stop() }
        deadline.cancel()
    }
}
