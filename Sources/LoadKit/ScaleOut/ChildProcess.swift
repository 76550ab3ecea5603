import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts child processes with SIGINT, SIGTERM and SIGHUP deliverable, and ending with this process
/// (`Lifeline`). A Swift task runs on a thread that
/// blocks signals, and a child inherits the blocked set across exec (Foundation's `Process` keeps
/// it): such a child would never see the signal a run forwards to it.
enum ChildProcess {
    /// The child's pid, the read end of its stdout and (with `captureStderr`) of its stderr;
    /// otherwise its stderr is ours. Nil when it cannot start. `environment` sets variables on top
    /// of this process's (a scenario's `TZ`).
    static func spawn(
        _ executable: String, _ arguments: [String], captureStderr: Bool = false, environment: [String: String] = [:]
    ) -> (
        pid: pid_t, stdout: Int32, stderr: Int32?
    )? {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { return nil }
        // Close-on-exec: a child started beside this one must not hold this one's pipe (its
        // reader would never see the end); posix_spawn's dup2 below clears it on the child's copy.
        for end in pipeFDs { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var errorFDs: [Int32] = [-1, -1]
        if captureStderr {
            guard pipe(&errorFDs) == 0 else {
                close(pipeFDs[0])
                close(pipeFDs[1])
                return nil
            }
            for end in errorFDs { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])
        if captureStderr {
            posix_spawn_file_actions_adddup2(&actions, errorFDs[1], 2)
            posix_spawn_file_actions_addclose(&actions, errorFDs[0])
            posix_spawn_file_actions_addclose(&actions, errorFDs[1])
        }
        if let lifeline = Lifeline.parentReadEnd {
            posix_spawn_file_actions_adddup2(&actions, lifeline, Lifeline.childDescriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        setSignals(&attributes)
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment = environment
        if Lifeline.parentReadEnd != nil { environment[Lifeline.variable] = String(Lifeline.childDescriptor) }
        let envp = Self.environment(overriding: environment)
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        var spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        // "Text file busy": another thread's child, forked while the executable was being written,
        // still holds it open for writing. That passes; a few tries, then the error stands.
        var tries = 0
        while spawned == ETXTBSY, tries < 20 {
            tries += 1
            usleep(20_000)
            spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        close(pipeFDs[1])
        if captureStderr { close(errorFDs[1]) }
        guard spawned == 0 else {
            close(pipeFDs[0])
            if captureStderr { close(errorFDs[0]) }
            return nil
        }
        return (pid, pipeFDs[0], captureStderr ? errorFDs[0] : nil)
    }

    /// A child's signals as any program expects them: none blocked, and SIGINT, SIGTERM, SIGHUP
    /// and SIGPIPE (ignored here, `ProcessSignals`) at their defaults; `flags` are set beside.
    static func setSignals(_ attributes: inout posix_spawnattr_t, flags: Int32 = 0) {
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF) | flags))
    }

    /// Waits for the child: its exit status (or 128 + the signal that ended it), its peak
    /// resident memory in bytes, and that signal (nil when it exited).
    static func waitWithSignal(_ pid: pid_t) -> (status: Int32, peakBytes: Int, signal: Int32?) {
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { return (-1, 0, nil) }
        }
        let signal = status & 0x7F
        #if os(Linux)
            let peak = Int(usage.ru_maxrss) * 1024  // kilobytes on Linux
        #else
            let peak = Int(usage.ru_maxrss)
        #endif
        return (signal == 0 ? (status >> 8) & 0xFF : 128 + signal, peak, signal == 0 ? nil : signal)
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
    /// dropped; its stderr is passed on); returns the exit status (as `waitWithSignal`; -1 when it cannot start)
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
        let outcome = await runCapturing(executable, arguments: arguments, children: children, reply: reply)
        return (outcome.status, outcome.peakBytes)
    }

    /// How a child ended: its status (as `waitWithSignal`), its peak memory, and, when a signal this run did
    /// not send ended it, the crash with its backtrace.
    struct Outcome: Sendable {
        var status: Int32
        var peakBytes: Int
        var crash: ChildCrash?
    }

    /// The last bytes of a child's stderr kept for its crash report (it is passed on whole).
    static let stderrKept = 1 << 20

    /// This process's environment with `overrides` set (C strings for `posix_spawn`, nil-ended).
    static func environment(overriding overrides: [String: String]) -> [UnsafeMutablePointer<CChar>?] {
        var entries: [String] = []
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if overrides[name] == nil { entries.append(text) }
            pointer += 1
        }
        entries += overrides.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return entries.map { strdup($0) } + [nil]
    }

    /// `run`, with the child's stderr passed on and its end kept: a child that a signal ended on
    /// its own (not one this run forwarded to it) is a crash, reported with the backtrace the
    /// Swift runtime printed there.
    static func runCapturing(
        _ executable: String, arguments: [String], children: RunningChildren, environment: [String: String] = [:],
        reply: @escaping @Sendable (ChildReply) -> Void = { _ in }
    ) async -> Outcome {
        await withCheckedContinuation { continuation in
            guard
                let (pid, output, errors) = spawn(executable, arguments, captureStderr: true, environment: environment)
            else {
                continuation.resume(returning: Outcome(status: -1, peakBytes: 0))
                return
            }
            children.started(pid)
            let kept = StderrTail()
            let drained = DispatchSemaphore(value: 0)
            if let errors {
                Thread.detachNewThread {
                    let handle = FileHandle(fileDescriptor: errors, closeOnDealloc: true)
                    while true {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        StandardStream.error(chunk)
                        kept.append(chunk)
                    }
                    drained.signal()
                }
            } else {
                drained.signal()
            }
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
                let (status, peak, signal) = waitWithSignal(pid)
                children.ended(pid)
                drained.wait()
                var crash: ChildCrash?
                if let signal, !children.forwarded(signal) {
                    crash = ChildCrash(signal: signal, backtrace: ChildCrash.backtrace(in: kept.text))
                }
                continuation.resume(returning: Outcome(status: status, peakBytes: peak, crash: crash))
            }
        }
    }
}

/// The end of a child's stderr, kept for its crash report.
final class StderrTail: Sendable {
    private let data = Mutex(Data())

    func append(_ chunk: Data) {
        data.withLock { data in
            data.append(chunk)
            if data.count > 2 * ChildProcess.stderrKept { data.removeFirst(data.count - ChildProcess.stderrKept) }
        }
    }

    var text: String { data.withLock { String(decoding: $0.suffix(ChildProcess.stderrKept), as: UTF8.self) } }
}
