import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A certified client's command for one case: `/bin/sh -c COMMAND` in a process group of its own
/// (so the deadline and a signal reach whatever it starts), its stdout and stderr into a log file,
/// the protocol's variables in its environment. Stopped at the case's deadline, or when the
/// calling task is cancelled (SIGTERM to the group, SIGKILL a second later).
enum ClientProcess {
    /// How long a group has after SIGTERM before SIGKILL.
    static let grace = 1.0

    static func run(
        _ command: String, environment: [String: String], log: URL, deadline: Double
    ) async -> ClientEnd {
        let logFD = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { return .notStarted("cannot write \(log.path)") }
        defer { close(logFD) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, logFD, 1)
        posix_spawn_file_actions_adddup2(&actions, logFD, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setpgroup(&attributes, 0)
        ChildProcess.setSignals(&attributes, flags: Int32(POSIX_SPAWN_SETPGROUP))
        let argv: [UnsafeMutablePointer<CChar>?] =
            ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = ChildProcess.environment(overriding: environment)
        defer { for pointer in envp { free(pointer) } }
        var spawnedPID: pid_t = 0
        let spawned = posix_spawn(&spawnedPID, "/bin/sh", &actions, &attributes, argv, envp)
        guard spawned == 0 else { return .notStarted(String(cString: strerror(spawned))) }
        let pid = spawnedPID
        let group = Group(pid: pid)
        let timer = DispatchSource.makeTimerSource(queue: .global())
        timer.schedule(deadline: .now() + deadline)
        timer.setEventHandler { group.stop(reason: .deadline) }
        timer.resume()
        defer { timer.cancel() }
        let status = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread {
                    let (status, _, signal) = ChildProcess.waitWithSignal(pid)
                    group.ended()
                    // Whatever the command left running in its group stops with it.
                    kill(-pid, SIGKILL)
                    continuation.resume(returning: (status, signal))
                }
            }
        } onCancel: {
            group.stop(reason: .cancelled)
        }
        switch group.reason {
        case .deadline: return .deadline(deadline)
        case .cancelled: return .exited(status.0)
        case nil:
            if let signal = status.1 { return .crashed(signal: signal) }
            // The shell reports a command a signal ended as 128 + the signal: the client crashed
            // (a Swift trap, a segfault), though the shell itself exited.
            if (129...(128 + 64)).contains(status.0) { return .crashed(signal: status.0 - 128) }
            return .exited(status.0)
        }
    }

    /// The running group: stopped once, for one reason, and never signalled after it ended.
    private final class Group: Sendable {
        enum Reason { case deadline, cancelled }
        private struct State {
            var running = true
            var reason: Reason?
        }

        let pid: pid_t
        private let state = Mutex(State())

        init(pid: pid_t) { self.pid = pid }

        var reason: Reason? { state.withLock { $0.reason } }

        func ended() { state.withLock { $0.running = false } }

        func stop(reason: Reason) {
            let first = state.withLock { state -> Bool in
                guard state.running, state.reason == nil else { return false }
                state.reason = reason
                return true
            }
            guard first else { return }
            kill(-pid, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + ClientProcess.grace) { [self] in
                // The group outlives its leader when a child of the shell holds on: kill the rest.
                kill(-pid, SIGKILL)
            }
        }
    }
}
