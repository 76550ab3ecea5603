import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process that a signal ended on its own (not one this run forwarded): a finding about
/// the SDK or the suite, reported as `CRASH <scenario> (signal 11, SIGSEGV)` with the crashed
/// thread's backtrace, never retried away.
package struct ChildCrash: Sendable, Equatable {
    package var signal: Int32
    /// What the Swift runtime's backtracer printed on the child's stderr (nil: nothing, as after a
    /// SIGKILL from the kernel's out-of-memory killer).
    package var backtrace: String?

    /// `SIGSEGV`, `SIGILL`, … (`signal 42` for one without a name here).
    package var signalName: String {
        let names: [Int32: String] = [
            SIGSEGV: "SIGSEGV", SIGILL: "SIGILL", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGTRAP: "SIGTRAP", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM", SIGINT: "SIGINT", SIGPIPE: "SIGPIPE",
            SIGSYS: "SIGSYS", SIGQUIT: "SIGQUIT", SIGHUP: "SIGHUP",
        ]
        return names[signal] ?? "signal \(signal)"
    }

    /// `signal 11, SIGSEGV`, and the known issue it matches, if any.
    package var summary: String {
        "signal \(signal), \(signalName)" + (knownIssue.map { "; \($0)" } ?? "")
    }

    /// Frames of the FoundationNetworking socket-teardown crash documented in
    /// docs/urlsession-linux.md: a backtrace with one of them is named as that issue.
    static let socketTeardownFrames = [
        "_dispatch_unote_unregister", "_dispatch_event_loop_drain", "_dispatch_source_cancel", "_MultiHandle",
        "URLSession.invalidateAndCancel",
    ]

    /// The documented crash the backtrace matches, or nil.
    package var knownIssue: String? {
        guard let backtrace, Self.socketTeardownFrames.contains(where: backtrace.contains) else { return nil }
        return "matches a known crash of FoundationNetworking's socket teardown (docs/urlsession-linux.md)"
    }

    /// How a crash report begins (the report and JUnit tell a crash from other errors by it).
    package static let marker = "crashed ("

    /// The report: the summary, then the backtrace or why there is none.
    package var text: String {
        Self.marker + "\(summary))\n\n"
            + (backtrace ?? "No backtrace: the process printed none (a SIGKILL, or the runtime's backtracer is off).")
    }

    /// The summary line of a crash report (`crashed (signal 11, SIGSEGV)`), or nil when `report`
    /// is some other error: how the report, JUnit and Markdown tell a crash from other errors.
    package static func summaryLine(of report: String) -> String? {
        guard report.hasPrefix(marker) else { return nil }
        return report.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? report
    }

    /// Writes the report as the scenario folder's `crash.txt`.
    func write(into folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try text.write(to: folder.appendingPathComponent(ResultFile.crash.name), atomically: true, encoding: .utf8)
    }

    /// The most lines of a backtrace kept.
    static let maxLines = 200

    /// The backtracer's report in `stderr`: from `*** Program crashed` (or the fatal error line
    /// just before it) to the registers, at most `maxLines` lines.
    static func backtrace(in stderr: String) -> String? {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: false)
        guard let crashed = lines.lastIndex(where: { $0.contains("*** Program crashed") }) else { return nil }
        var start = crashed
        // The reason the runtime gave (`Fatal error: Index out of range`) comes a few lines before.
        if let reason = lines[max(0, crashed - 6)..<crashed].lastIndex(where: { $0.contains("Fatal error") }) {
            start = reason
        }
        var end = lines[crashed...].firstIndex(where: { $0.hasPrefix("Registers:") }) ?? lines.endIndex
        end = min(end, start + maxLines)
        let text = lines[start..<end].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}
