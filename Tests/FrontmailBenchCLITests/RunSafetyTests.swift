import Foundation
import Synchronization
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

/// What `run` and `serve` check before they start, and how a run stops.
@Suite("commands: checks before a run, signals, claimed run ids")
struct RunSafetyTests {
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("safety-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("an option whose value is missing does not swallow the next flag")
    func missingValue() {
        let spec = Arguments.Spec(options: ["out"], flags: ["quick"])
        #expect(throws: Arguments.UsageError.self) { try Arguments(["run", "--out", "--quick"], spec: spec) }
        #expect((try? Arguments(["--out=--quick"], spec: spec))?.value("out") == "--quick")
        #expect((try? Arguments(["--out", "-"], spec: spec))?.value("out") == "-")
    }

    @Test("two runs started in the same second get different run ids; an unwritable --out is found first")
    func claims() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try ResultsWriter.claim(root: folder, runID: "20261201T000000Z")
        let second = try ResultsWriter.claim(root: folder, runID: "20261201T000000Z")
        #expect(first.runID == "20261201T000000Z")
        #expect(second.runID == "20261201T000000Z-2")
        let file = folder.appendingPathComponent("a-file")
        try "x".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try ResultsWriter.claim(root: file, runID: "r") }
        let scenario = folder.appendingPathComponent("one.json")
        try #"{"name": "one", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.write(
            to: scenario, atomically: true, encoding: .utf8)
        // An --out that names a file: results that cannot be written (70), in every command.
        #expect(await RunCommand.run([scenario.path, "--out", file.path, "--no-progress"]) == .software)
        #expect(
            await TuneCommand.run([
                URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent().appendingPathComponent("tune/retry-defaults.json").path, "--quick",
                "--out", file.path, "--no-progress",
            ]) == .software)
        #expect(await ExploreCommand.run(["--runs", "1", "--out", file.path, "--no-progress"]) == .software)
        #expect(
            await CertifyCommand.run(["--client", "true", "--cases", "1.1", "--out", file.path, "--no-progress"])
                == .software)
    }

    @Test("a folder without scenario files is an error, not a passing run of nothing")
    func emptyFolder() async throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(await RunCommand.run([folder.path]) == .usage)
        #expect(ListCommand.run([folder.path]) == .usage)
    }

    @Test("a signal to the run reaches every child it waits for, and one that starts after it")
    func forwarding() async {
        let running = RunningChildren()
        let first = Task { await ChildProcess.run("/bin/sleep", arguments: ["30"], children: running) }
        let second = Task { await ChildProcess.run("/bin/sleep", arguments: ["30"], children: running) }
        try? await Task.sleep(nanoseconds: 200_000_000)
        running.forward(SIGTERM)
        let late = await ChildProcess.run("/bin/sleep", arguments: ["30"], children: running)
        let (status, _) = await first.value
        let (other, _) = await second.value
        // The statuses say the signal ended them: a sleep that ran its 30 s exits 0. (How long
        // that took is no evidence: on two cores busy with the other tests, the tasks that start
        // the children can wait that long for a thread.)
        #expect(status == 128 + SIGTERM && other == 128 + SIGTERM && late.0 == 128 + SIGTERM)
    }

    @Test(
        "a stopped child is continued to act on the signal; one that ignores it is killed after the grace or a second signal"
    )
    func stuckChildren() async {
        // Stopped: the signal alone would wait until someone continued it.
        let stopped = RunningChildren(grace: 30)
        let sleeper = Task { await ChildProcess.run("/bin/sleep", arguments: ["30"], children: stopped) }
        try? await Task.sleep(nanoseconds: 200_000_000)
        stopped.forwardToAll(SIGSTOP)
        stopped.forward(SIGTERM)
        #expect(await sleeper.value.status == 128 + SIGTERM)
        // Ignoring SIGTERM: killed when the grace is over. The child says when its trap is set
        // (a signal before that would end it, which is not what is tested here).
        let ready = FileManager.default.temporaryDirectory.appendingPathComponent("deaf-\(getpid())-\(UUID())")
        defer { try? FileManager.default.removeItem(at: ready) }
        let ignoring = #"trap "" TERM INT; : > "$1"; exec sleep 30"#
        let graced = RunningChildren(grace: 0.5)
        let deaf = Task {
            await ChildProcess.run("/bin/sh", arguments: ["-c", ignoring, "sh", ready.path], children: graced)
        }
        await Self.waitFor(ready)
        graced.forward(SIGTERM)
        #expect(await deaf.value.status == 128 + SIGKILL)
        // Or at once, on a second signal.
        try? FileManager.default.removeItem(at: ready)
        let patient = RunningChildren(grace: 60)
        let other = Task {
            await ChildProcess.run("/bin/sh", arguments: ["-c", ignoring, "sh", ready.path], children: patient)
        }
        await Self.waitFor(ready)
        patient.forward(SIGINT)
        try? await Task.sleep(nanoseconds: 100_000_000)
        patient.forward(SIGINT)
        #expect(await other.value.status == 128 + SIGKILL)
    }

    /// Waits until `file` exists, 20 s at most (a child's sign that it is ready).
    static func waitFor(_ file: URL) async {
        for _ in 0..<2000 where !FileManager.default.fileExists(atPath: file.path) {
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
    }

    @Test("serve checks --ledger and its timeouts before it starts")
    func serveChecks() {
        #expect(ServeCommand.run(["--ledger", "/nonexistent-folder/ledger.csv"]) == .software)
        #expect(ServeCommand.run(["--ledger", FileManager.default.temporaryDirectory.path]) == .usage)
        // A device node is refused, not replaced (as root, a rename over /dev/null deletes the device).
        #expect(ServeCommand.run(["--ledger", "/dev/null"]) == .usage)
        #expect(ServeCommand.run(["--header-timeout", "0"]) == .usage)
        #expect(ServeCommand.run(["--idle-timeout", "nan"]) == .usage)
        #expect(ServeCommand.run(["--input-budget", "-1"]) == .usage)
    }
}

@Suite("signals: a signalled run ends within its deadline")
struct EndDeadlineTests {
    final class Calls: Sendable {
        let reasons = Mutex<[String]>([])
    }

    @Test("a run still going at the deadline, or at a second signal, is ended once; one that ended by itself is not")
    func deadline() async throws {
        // Still running when the deadline passes.
        let late = Calls()
        let slow = EndDeadline(seconds: 0.2) { reason in late.reasons.withLock { $0.append(reason) } }
        #expect(slow.start())
        let start = Date()
        while late.reasons.withLock({ $0.isEmpty }), Date().timeIntervalSince(start) < 30 {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        #expect(late.reasons.withLock { $0 } == ["still running 0.2 s after the signal"])
        // A second signal ends it at once, and the timer later does nothing more.
        let twice = Calls()
        let patient = EndDeadline(seconds: 0.2) { reason in twice.reasons.withLock { $0.append(reason) } }
        #expect(patient.start())
        #expect(!patient.start())
        try await Task.sleep(nanoseconds: 400_000_000)
        #expect(twice.reasons.withLock { $0 } == ["a second signal came"])
        // Ended by itself before the deadline: nothing happens.
        let none = Calls()
        let finished = EndDeadline(seconds: 0.1) { reason in none.reasons.withLock { $0.append(reason) } }
        finished.start()
        finished.cancel()
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(none.reasons.withLock { $0 }.isEmpty)
        #expect(RunSession.signalDeadline < 2 && RunningChildren().grace < RunSession.signalDeadline)
    }
}
