import Foundation
import Testing

@testable import FakeFrontmail
@testable import FrontmailBenchCLI
@testable import LoadKit

/// What the scale-out modes write on command lines and read back from them: a child's arguments
/// parse as `run` parses them, and `merge` takes the parts `run --shard` wrote.
@Suite("scale-out: the command lines")
struct ScaleOutCommandTests {
    @Test("a request's arguments are what `run` parses back: the same scenario, shard, seed, server, rate and run id")
    func requests() throws {
        let shard = ChildRequest.shard(
            file: "s.json", name: "s", shard: Shard(uncheckedIndex: 1, count: 4), out: "/o", seed: 9, quick: true,
            server: URL(string: "http://127.0.0.1:8080/fm-1"), rate: 250, runID: "20261203T000000Z")
        let parsed = try Arguments(shard.arguments, spec: RunCommand.spec)
        #expect(parsed.value("run-id") == "20261203T000000Z")
        #expect(parsed.positionals == ["run", "s.json"])
        #expect(parsed.all("only") == ["s"] && parsed.value("shard") == "1/4" && parsed.value("out") == "/o")
        #expect(try parsed.unsigned("seed") == 9 && parsed.flag("quick") && parsed.flag("progress-lines"))
        #expect(parsed.value("server") == "http://127.0.0.1:8080/fm-1" && parsed.value("rate") == "250.0")
        let options = try ShardOptions(parsed, environment: [:])
        #expect(options.shard == Shard(uncheckedIndex: 1, count: 4) && options.rate == 250)

        let scenario = ChildRequest.scenario(
            file: "a.json", name: "a", out: "/o", runID: "r1", quick: false, seed: "5", schedule: nil, progress: false)
        let child = try Arguments(scenario.arguments, spec: RunCommand.spec)
        #expect(child.positionals == ["run", "a.json"] && child.value("run-id") == "r1" && child.value("seed") == "5")
        #expect(!child.flag("quick") && child.flag("no-progress") && child.value("shard") == nil)
        #expect(child.value("schedule") == nil)
        let scheduled = ChildRequest.scenario(
            file: "a.json", name: "a", out: "/o", runID: "r1", quick: false, seed: nil, schedule: "pct:4",
            progress: true)
        #expect(try Arguments(scheduled.arguments, spec: RunCommand.spec).value("schedule") == "pct:4")
        #expect(child.value("broken") == nil)
        let broken = ChildRequest.scenario(
            file: "a.json", name: "a", out: "/o", runID: "r1", quick: false, seed: nil, schedule: nil,
            broken: "key-changing", progress: true)
        #expect(try Arguments(broken.arguments, spec: RunCommand.spec).value("broken") == "key-changing")
    }

    /// Fails every send: 503 at the first attempt, 400 at the second (merged, 300 failed sends).
    static let failing = """
        {"name": "merge-failing", "seed": 6, "timeScale": 0.001, "client": {"timeout": "1000s"},
         "load": {"type": "closed", "concurrency": 12, "sends": 300},
         "plan": {"rules": [
           {"match": {"endpoint": "send", "attempt": 1}, "action": {"type": "respond", "status": 503}},
           {"match": {"endpoint": "send", "attempt": 2}, "action": {"type": "respond", "status": 400, "code": "bad_request"}}]},
         "assertions": ["send.failed == 300", "idempotency.fail_with_effect == 0"]}
        """

    @Test("run --shard then merge: files or folders in, one judged run out; a missing shard exits 65")
    func shardsThenMerge() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("merge-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("parts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = root.appendingPathComponent("merge-failing.json")
        try Data(Self.failing.utf8).write(to: file)
        for index in 0..<2 {
            let code = await RunCommand.run([file.path, "--shard", "\(index)/2", "--out", folder.path, "--no-progress"])
            #expect(code == .success, "shard \(index)")
        }
        let out = root.appendingPathComponent("out")
        #expect(MergeCommand.run([folder.path, "--out", out.path, "--run-id", "M"]) == .success)
        let summary = try String(
            contentsOf: out.appendingPathComponent("M-merge-failing/summary.csv"), encoding: .utf8)
        #expect(summary.contains("merge-failing,send,failed,value,300"))
        #expect(summary.contains("merge-failing,run,shards,value,2"))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("M-report.html").path))
        try FileManager.default.removeItem(
            at: folder.appendingPathComponent(
                ShardPart.fileName(scenario: "merge-failing", role: .shard, shard: try Shard(index: 1, count: 2))))
        #expect(MergeCommand.run([folder.path, "--out", out.path]) == .dataError)
        #expect(MergeCommand.run([root.appendingPathComponent("none").path, "--out", out.path]) == .dataError)
        #expect(MergeCommand.run([]) == .usage)
    }
}

/// The scale-out options on the command line: contradictions and bad values exit 64 before
/// anything runs, naming the option.
@Suite("shards: command-line options")
struct ShardOptionTests {
    static func options(_ arguments: [String], environment: [String: String] = [:]) -> String? {
        do {
            _ = try ShardOptions(try Arguments(arguments, spec: RunCommand.spec), environment: environment)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("--shard, --workers, --server and --rate: what goes together and what does not")
    func combinations() {
        #expect(Self.options(["--shard", "1/2"]) == nil)
        #expect(Self.options(["--shard", "env/2"], environment: ["JOB_COMPLETION_INDEX": "1"]) == nil)
        #expect(Self.options(["--workers", "4"]) == nil)
        #expect(Self.options(["--shard", "0/2", "--server", "http://127.0.0.1:8080/fm-1", "--rate", "500"]) == nil)
        let bad: [([String], String)] = [
            (["--shard", "2/2"], "index must be 0 to 1"),
            (["--shard", "env/2"], "JOB_COMPLETION_INDEX"),
            (["--workers", "0"], "--workers needs 1 to 64"),
            (["--workers", "65"], "--workers needs 1 to 64"),
            (["--workers", "two"], "whole number"),
            (["--shard", "0/2", "--workers", "2"], "exclude each other"),
            (["--server", "http://127.0.0.1:1"], "--server goes with --shard"),
            (["--shard", "0/2", "--server", "ftp://x"], "http:// URL"),
            (["--rate", "100"], "--rate goes with --shard"),
            (["--shard", "0/2", "--rate", "0"], "--rate needs a number"),
        ]
        for (arguments, reason) in bad {
            let problem = Self.options(arguments)
            #expect(problem?.contains(reason) == true, "\(arguments): \(problem ?? "accepted")")
        }
    }

    @Test("serve --scenario: --shards and --part-out are required, --plan and --config are not allowed")
    func sharedServer() throws {
        func parse(_ arguments: [String]) throws -> String {
            switch SharedServer.parse(try Arguments(arguments, spec: ServeCommand.spec)) {
            case .absent: return "absent"
            case .server(let server): return "server \(server.scenario.name) \(server.shards)"
            case .exit(let code): return "exit \(code.rawValue)"
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenario = ManifestTests.root.appendingPathComponent("scenarios/resets-and-truncation.json").path
        #expect(try parse([]) == "absent")
        #expect(try parse(["--shards", "2"]) == "exit 64")
        #expect(try parse(["--scenario", scenario, "--part-out", folder.path]) == "exit 64")
        #expect(try parse(["--scenario", scenario, "--shards", "2"]) == "exit 64")
        #expect(try parse(["--scenario", scenario, "--shards", "0", "--part-out", folder.path]) == "exit 64")
        #expect(try parse(["--scenario", scenario, "--shards", "1025", "--part-out", folder.path]) == "exit 64")
        #expect(
            try parse(["--scenario", scenario, "--shards", "2", "--part-out", folder.path, "--plan", "p.json"])
                == "exit 64")
        #expect(try parse(["--scenario", "none.json", "--shards", "2", "--part-out", folder.path]) == "exit 65")
        #expect(
            try parse(["--scenario", scenario, "--shards", "2", "--part-out", folder.path])
                == "server resets-and-truncation 2")
        // More shards than the scenario has senders: they would never all report.
        #expect(try parse(["--scenario", scenario, "--shards", "1024", "--part-out", folder.path]) == "exit 64")
        // A --part-out that cannot be made is an output that cannot be written.
        let file = folder.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: file)
        #expect(try parse(["--scenario", scenario, "--shards", "2", "--part-out", file.path]) == "exit 70")
    }
}

/// Shards and shared servers a hostile user set up wrong: each refused before anything runs.
@Suite("scale-out: shards without sends, a --rate past the run's limit, a port that is not shared")
struct ScaleOutRefusalTests {
    static func file(_ json: String) throws -> (URL, String) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shards-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("s.json")
        try json.write(to: file, atomically: true, encoding: .utf8)
        return (folder, file.path)
    }

    @Test("more shards than sends, and a --rate that plans more sends than a run holds, are usage errors")
    func refusedShards() async throws {
        let (folder, few) = try Self.file(#"{"name": "few", "load": {"type": "closed", "concurrency": 8, "sends": 2}}"#)
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("parts").path
        #expect(await RunCommand.run([few, "--shard", "3/4", "--out", out, "--no-progress"]) == .usage)
        #expect(await RunCommand.run([few, "--shard", "1/2", "--out", out, "--no-progress"]) == .success)
        let open = folder.appendingPathComponent("open.json")
        try #"{"name": "op", "load": {"type": "open", "rate": 10, "duration": "20s"}}"#.write(
            to: open, atomically: true, encoding: .utf8)
        // 1,000,000/s for 20 s is 20 million sends: the file's own check, run again with the rate.
        #expect(
            await RunCommand.run([open.path, "--shard", "0/2", "--rate", "1000000", "--out", out, "--no-progress"])
                == .usage)
        #expect(
            !FileManager.default.fileExists(atPath: folder.appendingPathComponent("parts/op.shard-0-of-2.fmshard").path)
        )
    }

    @Test("a serve started without --share-port cannot be joined; one started with it can; an empty port is free")
    func sharePort() throws {
        let lone = try FakeFrontmailServer(core: FakeFrontmailCore(), options: .init())
        defer { lone.shutdown() }
        // One loop, unshared: the port itself refuses a second listener.
        var joining = FakeFrontmailServer.Options()
        joining.port = lone.port
        joining.sharePort = true
        #expect(throws: SocketError.self) { try FakeFrontmailServer(core: FakeFrontmailCore(), options: joining) }
        #expect(ServeCommand.unsharedServer(host: "127.0.0.1", port: lone.port) != nil)
        // Several loops set SO_REUSEPORT for themselves: the identity says it is not shared.
        var looped = FakeFrontmailServer.Options()
        looped.loops = 2
        let several = try FakeFrontmailServer(core: FakeFrontmailCore(), options: looped)
        defer { several.shutdown() }
        #expect(ServeCommand.unsharedServer(host: "127.0.0.1", port: several.port) != nil)
        var sharing = FakeFrontmailServer.Options()
        sharing.sharePort = true
        let shared = try FakeFrontmailServer(core: FakeFrontmailCore(), options: sharing)
        defer { shared.shutdown() }
        #expect(ServeCommand.unsharedServer(host: "127.0.0.1", port: shared.port) == nil)
        joining.port = shared.port
        let second = try FakeFrontmailServer(core: FakeFrontmailCore(), options: joining)
        second.shutdown()
    }
}
