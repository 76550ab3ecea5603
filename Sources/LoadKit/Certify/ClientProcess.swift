import Foundation
import Synchronization

#if os(Linux)
    import CProcessGuard
#endif

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A certified client's command for one case: `/bin/sh -c COMMAND` in a process group of its own,
/// its stdout and stderr into a log file of at most `logLimit` bytes, the protocol's variables in
/// its environment. Stopped at the case's deadline, or when the calling task is cancelled (SIGTERM
/// to all of it, SIGKILL a second later).
///
/// On Linux the command runs under a guard process (`CProcessGuard`): a child subreaper, so what
/// the client starts stays in its tree even after `setsid` or a double fork, and everything of it
/// is killed when it exits, when it is stopped, and when this process is gone however it ended
/// (SIGKILL included: the guard watches a pipe whose write end only this process holds).
enum ClientProcess {
    /// How long a group has after SIGTERM before SIGKILL.
    static let grace = 1.0
    /// The most of a client's output `client.log` keeps; the rest is read and counted, not kept.
    static let logLimit = 16 << 20

    static func run(
        _ command: String, environment: [String: String], log: URL, deadline: Double
    ) async -> ClientEnd {
        let logFD = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard logFD >= 0 else { return .notStarted("cannot write \(log.path)") }
        defer { close(logFD) }
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { return .notStarted("cannot make a pipe for \(log.path)") }
        // Not inherited by the clients other cases start meanwhile (a moment's window: a client
        // spawned in it holds this pipe open, which `finish()` bounds).
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let copier = LogCopier(from: pipeFDs[0], to: logFD, limit: logLimit)
        defer { copier.finish() }
        let argv: [UnsafeMutablePointer<CChar>?] =
            ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let envp = ChildProcess.environment(overriding: environment)
        defer { for pointer in envp { free(pointer) } }
        let spawnedPID = spawn(argv: argv, envp: envp, output: pipeFDs[1])
        // The child holds the write end now: this process keeps only the read end.
        close(pipeFDs[1])
        guard spawnedPID > 0 else { return .notStarted(String(cString: strerror(-spawnedPID))) }
        copier.start()
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
                    #if !os(Linux)
                        // Whatever the command left running in its group stops with it (on
                        // Linux its guard has seen to that, and to what left the group).
                        kill(-pid, SIGKILL)
                    #endif
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

    /// The read end of a pipe whose write end only this process holds (both close-on-exec): it
    /// reaches its end when this process is gone, which is how a guard knows to stop its client.
    private static let lifeline: Int32 = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return -1 }
        for fd in ends { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return ends[0]
    }()

    /// Starts `/bin/sh` (stdin from /dev/null, stdout and stderr to `output`): under a guard on
    /// Linux, in a process group of its own elsewhere. The pid to wait for and signal, or -errno.
    private static func spawn(
        argv: [UnsafeMutablePointer<CChar>?], envp: [UnsafeMutablePointer<CChar>?], output: Int32
    ) -> pid_t {
        #if os(Linux)
            let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { return -errno }
            defer { close(input) }
            let pid = cpg_spawn_guarded(
                "/bin/sh", argv, envp, input, output, lifeline, Int32(grace * 1000))
            return pid
        #else
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_adddup2(&actions, output, 1)
            posix_spawn_file_actions_adddup2(&actions, output, 2)
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            posix_spawnattr_setpgroup(&attributes, 0)
            ChildProcess.setSignals(&attributes, flags: Int32(POSIX_SPAWN_SETPGROUP))
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, "/bin/sh", &actions, &attributes, argv, envp)
            return spawned == 0 ? pid : -spawned
        #endif
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
            #if os(Linux)
                // The guard stops all of the client (SIGKILL after the grace) and exits; its loop is
                // bounded, and should it still be there long after, it is killed.
                kill(pid, SIGTERM)
                DispatchQueue.global().asyncAfter(deadline: .now() + 2 * ClientProcess.grace + 1) { [self] in
                    kill(pid, SIGKILL)
                }
            #else
                kill(-pid, SIGTERM)
                DispatchQueue.global().asyncAfter(deadline: .now() + ClientProcess.grace) { [self] in
                    // The group outlives its leader when a child of the shell holds on: kill the rest.
                    kill(-pid, SIGKILL)
                }
            #endif
        }
    }
}

/// Copies a client's output from a pipe into its log, keeping the first `limit` bytes and counting
/// the rest (a client that writes without end cannot fill the disk). It stops at the end of the
/// output, or soon after `finish()` when something the client started still holds the pipe.
private final class LogCopier: Sendable {
    private let source: Int32
    private let log: Int32
    private let limit: Int
    private let stopping = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    init(from source: Int32, to log: Int32, limit: Int) {
        self.source = source
        self.log = log
        self.limit = limit
    }

    func start() {
        started.store(true, ordering: .releasing)
        Thread.detachNewThread { [self] in
            copy()
            done.signal()
        }
    }

    private func copy() {
        var kept = 0
        var dropped = 0
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 65_536, alignment: 1)
        defer { buffer.deallocate() }
        var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
        // After `finish()`, what is already in the pipe (up to 1 MiB) is still read, then no more.
        var afterFinish = 0
        while afterFinish < 1 << 20 {
            let finishing = stopping.load(ordering: .acquiring)
            let ready = poll(&poller, 1, finishing ? 0 : 100)
            if ready == 0 {
                if finishing { break }
                continue
            }
            if ready < 0 {
                if errno == EINTR { continue }
                break
            }
            let count = read(source, buffer, 65_536)
            if count < 0 {
                if errno == EINTR { continue }
                break
            }
            if count == 0 { break }
            let keep = min(count, limit - kept)
            if keep > 0 { _ = write(log, buffer, keep) }
            kept += keep
            dropped += count - keep
            if finishing { afterFinish += count }
        }
        if dropped > 0 {
            let note = "\n[client.log: the client wrote \(dropped) more bytes after the first \(limit), not kept]\n"
            _ = note.withCString { write(log, $0, strlen($0)) }
        }
    }

    /// Waits for the copy to end: at once when the output ended, else within 0.1 s of this call
    /// (after one more read of whatever is there).
    func finish() {
        stopping.store(true, ordering: .releasing)
        if started.load(ordering: .acquiring) { done.wait() }
        close(source)
    }
}
