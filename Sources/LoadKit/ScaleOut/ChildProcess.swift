import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts child processes with SIGINT and SIGTERM deliverable. A Swift task runs on a thread that
/// blocks signals, and a child inherits the blocked set across exec (Foundation's `Process` keeps
/// it): such a child would never see the signal a run forwards to it.
enum ChildProcess {
    /// The child's pid and the read end of its stdout; its stderr is ours. Nil when it cannot start.
    static func spawn(_ executable: String, _ arguments: [String]) -> (pid: pid_t, stdout: Int32)? {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        close(pipeFDs[1])
        guard spawned == 0 else {
            close(pipeFDs[0])
            return nil
        }
        return (pid, pipeFDs[0])
    }

    /// Waits for the child; its exit status, or 128 + the signal that ended it.
    static func wait(_ pid: pid_t) -> Int32 { waitWithPeak(pid).status }

    /// Waits for the child; its exit status (as `wait`) and its peak resident memory in bytes.
    static func waitWithPeak(_ pid: pid_t) -> (status: Int32, peakBytes: Int) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return (-1, 0) }
        }
        let signal = status & 0x7F
        #if os(Linux)
            let peak = Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #else
            let peak = Int(usage.ru_maxrss)
        #endif
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, peak)
    }

    /// This process's peak resident memory in bytes so far.
    static func ownPeakBytes() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
            return Int(usage.ru_maxrss) * 1024
        #else
            getrusage(RUSAGE_SELF, &usage)
            return Int(usage.ru_maxrss)  // bytes on Darwin
        #endif
    }

    /// Runs a child; hands each reply it writes on stdout to `reply` as it comes (other lines are
    /// dropped; its stderr is ours); returns the exit status (as `wait`; -1 when it cannot start)
    /// and the child's peak resident memory in bytes.
    static func run(
        _ executable: String, _ request: ChildRequest, children: RunningChildren,
        reply: @escaping @Sendable (ChildReply) -> Void
    ) async -> (status: Int32, peakBytes: Int) {
        await run(executable, arguments: request.arguments, children: children, reply: reply)
    }

    /// `run` with the arguments as they are (another program, in tests).
    static func run(
        _ executable: String, arguments: [String], children: RunningChildren,
        reply: @escaping @Sendable (ChildReply) -> Void = { _ in }
    ) async -> (status: Int32, peakBytes: Int) {
        await withCheckedContinuation { continuation in
            guard let (pid, output) = spawn(executable, arguments) else {
                continuation.resume(returning: (-1, 0))
                return
            }
            children.started(pid)
            Thread.detachNewThread {
                let handle = FileHandle(fileDescriptor: output, closeOnDealloc: true)
                var pending = Data()
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    pending.append(chunk)
                    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                        let text = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                        if let message = ChildReply(line: Substring(text)) { reply(message) }
                        pending.removeSubrange(pending.startIndex...newline)
                    }
                }
                let (status, peak) = waitWithPeak(pid)
                children.ended(pid)
                continuation.resume(returning: (status, peak))
            }
        }
    }
}

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
