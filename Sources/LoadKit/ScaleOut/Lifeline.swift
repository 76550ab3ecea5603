import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Children end with their parent: every child gets the read end of a pipe whose write end only
/// the parent holds, so the kernel closes it however the parent ends (SIGKILL included). A child
/// that reads the end of it acts as on SIGHUP: it writes its partial results and stops. Without
/// it, a `run DIR` killed by SIGKILL left its scenario child running its whole load.
package enum Lifeline {
    /// The variable that names the child's descriptor.
    static let variable = "FRONTMAIL_BENCH_LIFELINE"
    /// The descriptor a child reads (the first after stdin, stdout and stderr).
    static let childDescriptor: Int32 = 3

    /// This process's read end (close-on-exec; a spawn maps it onto `childDescriptor`), or nil
    /// when no pipe could be made (children then run without one).
    static let parentReadEnd: Int32? = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
        // Above the low numbers, so mapping it onto `childDescriptor` never maps a descriptor onto itself.
        let moved = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
        close(ends[0])
        return moved >= 0 ? moved : nil
    }()

    /// In a child: watches the lifeline named in the environment, if any, and delivers SIGHUP when
    /// the parent is gone. A value that is not this process's open descriptor is ignored.
    package static func watchParent() {
        guard let text = ProcessInfo.processInfo.environment[variable] else { return }
        unsetenv(variable)
        guard let descriptor = Int32(text), descriptor == childDescriptor, fcntl(descriptor, F_GETFD) >= 0 else {
            return
        }
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(descriptor, &byte, 1)
                if count < 0, errno == EINTR { continue }
                if count > 0 { continue }
                printError("the parent process ended: stopping as on SIGHUP")
                ProcessSignals.deliver(SIGHUP)
                return
            }
        }
    }
}
