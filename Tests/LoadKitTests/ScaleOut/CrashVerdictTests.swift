import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

/// A scenario whose process dies by a signal is a finding: `CRASH <scenario> (signal 11, SIGSEGV)`
/// with the backtrace, in the results, the report and JUnit, and the run fails; never a retry, never
/// "ended without a verdict".
@Suite("crashes: a child that a signal ends is a CRASH verdict with its backtrace")
struct CrashVerdictTests {
    /// What the Swift runtime's backtracer prints on stderr (abridged from a real crash on Linux).
    static let backtracerOutput = """
        some progress line
        Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range

        *** Signal 4: Backtracing from 0x7fc9b3f6df7f... done ***

        *** Program crashed: Illegal instruction at 0x00007fc9b3f6df7f ***

        Thread 0 "frontmail-bench" crashed:

          0      0x00007fc9b3f6df7f closure #1 in _assertionFailure(_:_:file:line:flags:) + 623 in libswiftCore.so
          1 [ra] 0x000055f3ff4fcff1 URLSessionTransport.send(_:) + 144 in frontmail-bench at Sources/Frontmail/URLSessionTransport.swift:2:8


        Registers:

        rax 0x0000000000000000  0
        """

    @Test("the backtrace is cut from the runtime's report: the fatal error to the registers")
    func parsing() {
        let text = ChildCrash.backtrace(in: Self.backtracerOutput)
        #expect(text?.hasPrefix("Swift/ContiguousArrayBuffer.swift:692: Fatal error: Index out of range") == true)
        #expect(text?.contains("URLSessionTransport.send") == true)
        #expect(text?.contains("Registers") == false && text?.contains("rax") == false)
        #expect(ChildCrash.backtrace(in: "no crash here\n") == nil)
        let crash = ChildCrash(signal: SIGSEGV, backtrace: nil)
        #expect(crash.summary == "signal 11, SIGSEGV")
        #expect(crash.text.hasPrefix(ChildCrash.marker) && crash.text.contains("No backtrace"))
    }

    @Test("a crash in libdispatch's socket source teardown is named as the documented issue; others are not")
    func knownIssue() throws {
        let dispatch = ChildCrash(
            signal: SIGSEGV,
            backtrace: """
                *** Program crashed: Bad pointer dereference at 0x0000000000000010 ***
                Thread 3 crashed:
                0 0x00007f3a1c2b3c41 _dispatch_unote_unregister_muxed + 33 in libdispatch.so
                1 0x00007f3a1c2b11e0 _dispatch_source_invoke + 1104 in libdispatch.so
                """)
        let named = try #require(dispatch.knownIssue)
        #expect(named.contains("docs/urlsession-linux.md"))
        #expect(dispatch.summary == "signal 11, SIGSEGV; " + named)
        #expect(ChildCrash.summaryLine(of: dispatch.text) == "crashed (signal 11, SIGSEGV; \(named))")
        // The trap inside invalidateAndCancel that the same race causes is named the same.
        let registry = ChildCrash(
            signal: SIGILL,
            backtrace: """
                *** Program crashed: Illegal instruction at 0x00007f4e5f9a1609 ***
                Thread 8 "-qos.overcommit" crashed:
                0 0x00007f4e5f9a1609 specialized Collection.map<A, B>(_:) + 473 in libFoundationNetworking.so
                1 [ra] 0x00007f4e5f9a9136 URLSession.invalidateAndCancel() + 133 in libFoundationNetworking.so
                """)
        #expect(registry.knownIssue == named)
        // The SDK's own crash (the fixture's index out of range) is not that issue.
        let own = ChildCrash(signal: SIGILL, backtrace: ChildCrash.backtrace(in: Self.backtracerOutput))
        #expect(own.knownIssue == nil && own.summary == "signal 4, SIGILL")
    }

    /// A program standing in for a child: prints the backtracer's report, then dies by `signal`
    /// (or exits with `status` when `signal` is nil).
    static func script(signal: String?, status: Int = 0) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let report = folder.appendingPathComponent("stderr.txt")
        try backtracerOutput.write(to: report, atomically: true, encoding: .utf8)
        let file = folder.appendingPathComponent("child.sh")
        let ending = signal.map { "kill -\($0) $$" } ?? "exit \(status)"
        try "#!/bin/sh\ncat '\(report.path)' >&2\n\(ending)\n".write(to: file, atomically: true, encoding: .utf8)
        chmod(file.path, 0o755)
        return file.path
    }

    @Test(
        "a child dead by a signal of its own is a crash with its backtrace; an exit of 139, or our forwarded signal, is not"
    )
    func childOutcomes() async throws {
        let segv = await ChildProcess.runCapturing(
            try Self.script(signal: "SEGV"), arguments: [], children: RunningChildren())
        #expect(segv.crash?.signal == SIGSEGV)
        #expect(segv.crash?.backtrace?.contains("URLSessionTransport.send") == true)
        // The same bytes and the code a shell gives a crash, but an exit: not a crash.
        let exited = await ChildProcess.runCapturing(
            try Self.script(signal: nil, status: 139), arguments: [], children: RunningChildren())
        #expect(exited.status == 139 && exited.crash == nil)
        // Ended by the signal this run forwarded (Ctrl-C): interrupted, not a crash.
        let children = RunningChildren()
        let sleeper = Task { await ChildProcess.runCapturing("/bin/sleep", arguments: ["30"], children: children) }
        try await Task.sleep(nanoseconds: 300_000_000)
        children.forward(SIGTERM)
        let ended = await sleeper.value
        #expect(ended.status == 128 + SIGTERM && ended.crash == nil)
    }

    @Test("an isolated run whose scenario process crashes: CRASH verdict, crash.txt, a crash error in JUnit, exit 1")
    func isolatedRunCrash() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crashrun-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.json")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try #"{"name": "s", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.write(
            to: file, atomically: true, encoding: .utf8)
        var scenario = try makeScenario(#"{"name": "s", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#)
        scenario.file = file.path
        let out = folder.appendingPathComponent("results")
        let run = IsolatedRun(
            scenarios: [scenario], executable: try Self.script(signal: "SEGV"), out: out, runID: "R", quick: true,
            seed: nil, progress: false)
        let entries = await run.run()
        #expect(entries.map(\.verdictLine) == ["CRASH s (signal 11, SIGSEGV)"])
        let report = try String(
            contentsOf: out.appendingPathComponent("R-s").appendingPathComponent(ResultFile.crash.name), encoding: .utf8
        )
        #expect(report.contains("signal 11, SIGSEGV") && report.contains("URLSessionTransport.send"))
        let junit = folder.appendingPathComponent("junit.xml").path
        let session = RunSession(
            command: "run", writer: ResultsWriter(root: out, runID: "R"), outputs: RunOutputs(junit: junit))
        #expect(session.end(entries, planned: 1, cancelled: false) == .failure)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"type="crash""#) && xml.contains("URLSessionTransport.send"))
        #expect(xml.contains(#"errors="1""#))
        // Read back from disk (`report`), the crash is still a crash.
        let results = try RunResults.read(
            runCSV: ResultsWriter(root: out, runID: "R").runCSV, errors: [:], order: ["s"])
        #expect(results.scenarios.first?.error?.hasPrefix(ChildCrash.marker) == true)
        let html = HTMLReport.render([results])
        #expect(html.contains("CRASH") && html.contains("URLSessionTransport.send"))
    }

    @Test("a crashed worker of a --workers run: the scenario's verdict is CRASH with the backtrace, not a failed merge")
    func workerCrash() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("crashworkers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = #"{"name": "w", "load": {"type": "open", "rate": 50, "duration": "1s"}}"#
        let file = folder.appendingPathComponent("w.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        var scenario = try makeScenario(json)
        scenario.file = file.path
        let out = folder.appendingPathComponent("results")
        let entries = await WorkersRun.runAll(
            [scenario], workers: 2, quick: false, executable: try Self.script(signal: "SEGV"), out: out, runID: "R",
            progress: false, children: RunningChildren())
        #expect(entries.map(\.verdictLine) == ["CRASH w (signal 11, SIGSEGV)"])
        #expect(entries.first?.error?.contains("URLSessionTransport.send") == true)
        #expect(entries.first?.passed == false)
        let report = try String(
            contentsOf: out.appendingPathComponent("R-w").appendingPathComponent(ResultFile.crash.name), encoding: .utf8
        )
        #expect(report.hasPrefix(ChildCrash.marker))
    }
}
