import FakeFrontmail
import Foundation
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

/// The subcommands' argument handling and exit codes (documented in the README).
@Suite("commands: help, bad arguments, bad files")
struct CommandTests {
    @Test("--help exits 0 and an unknown option 64, for every subcommand")
    func helpAndUsage() async {
        #expect(await FrontmailBench.main(["run", "--help"]) == .success)
        #expect(await FrontmailBench.main(["list", "--help"]) == .success)
        #expect(await FrontmailBench.main(["compare", "--help"]) == .success)
        #expect(await FrontmailBench.main(["serve", "--help"]) == .success)
        for command in ["run", "list", "compare", "serve"] {
            #expect(await FrontmailBench.main([command, "--no-such-option"]) == .usage, "\(command)")
        }
        #expect(await FrontmailBench.main(["nonsense"]) == .usage)
        #expect(await FrontmailBench.main([]) == .usage)
    }

    @Test("every option a command's unknown-option message lists is one its --help documents")
    func listedOptionsDocumented() {
        let commands: [(String, Arguments.Spec, String)] = [
            ("run", RunCommand.spec, RunCommand.usage), ("explore", ExploreCommand.spec, ExploreCommand.usage),
            ("certify", CertifyCommand.spec, CertifyCommand.usage), ("tune", TuneCommand.spec, TuneCommand.usage),
            ("merge", MergeCommand.spec, MergeCommand.usage), ("report", ReportCommand.spec, ReportCommand.usage),
            ("serve", ServeCommand.spec, ServeCommand.usage),
        ]
        for (name, spec, usage) in commands {
            let listed = spec.options.union(spec.flags).subtracting(spec.unlisted)
            for option in listed where option != "help" {
                #expect(usage.contains("--\(option)"), "\(name) lists --\(option) but its --help does not say it")
            }
        }
    }

    @Test("run and list: a bad scenario file exits 65, a missing one or an unknown --only 64")
    func badInputs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appendingPathComponent("bad.json")
        try #"{"name": "bad", "load": {"type": "closed", "concurrency": 0, "sends": 1}}"#.write(
            to: bad, atomically: true, encoding: .utf8)
        #expect(await RunCommand.run([bad.path]) == .dataError)
        #expect(ListCommand.run([bad.path]) == .dataError)
        #expect(await RunCommand.run([folder.appendingPathComponent("none.json").path]) == .usage)
        #expect(await RunCommand.run([]) == .usage)
        #expect(await RunCommand.run([bad.path, "--seed", "-1"]) == .usage)
        let good = folder.appendingPathComponent("good.json")
        try #"{"name": "good", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.write(
            to: good, atomically: true, encoding: .utf8)
        #expect(await RunCommand.run([good.path, "--only", "other"]) == .usage)
        #expect(await RunCommand.run([good.path, "--schedule", "lifo"]) == .usage)
        #expect(await RunCommand.run([good.path, "--schedule", "pct:0"]) == .usage)
        #expect(await RunCommand.run([good.path, "--schedule", "random", "--workers", "2"]) == .usage)
        #expect(await RunCommand.run([good.path, "--schedule", "random", "--shard", "0/2"]) == .usage)
        #expect(ListCommand.run([good.path]) == .success)
    }

    @Test("run: one scenario in process writes its results and exits 0")
    func runOne() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("one.json")
        try
            #"{"name": "one", "load": {"type": "closed", "concurrency": 2, "sends": 10}, "assertions": ["send.ok == 10"]}"#
            .write(to: file, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("out")
        #expect(await RunCommand.run([file.path, "--out", out.path, "--run-id", "X", "--no-progress"]) == .success)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("X-run.csv").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("X-one/ledger.csv").path))
        // The same run id again: refused before any work, the first run's results untouched.
        let runCSV = out.appendingPathComponent("X-run.csv")
        let first = try Data(contentsOf: runCSV)
        #expect(await RunCommand.run([file.path, "--out", out.path, "--run-id", "X", "--no-progress"]) == .usage)
        #expect(try Data(contentsOf: runCSV) == first)
        // An output that names the scenario file is refused; the file is unchanged.
        let scenario = try Data(contentsOf: file)
        for option in ["--junit", "--summary-md"] {
            #expect(await RunCommand.run([file.path, "--out", out.path, option, file.path, "--no-progress"]) == .usage)
        }
        #expect(try Data(contentsOf: file) == scenario)
        // Every command that writes a file refuses one of its inputs as that file.
        #expect(ReportCommand.run([runCSV.path, "--out", runCSV.path]) == .usage)
        #expect(ReportCommand.run([runCSV.path, "--junit", runCSV.path]) == .usage)
        #expect(CompareCommand.run([runCSV.path, runCSV.path, "--html", runCSV.path]) == .usage)
        #expect(BaselineCommand.run([runCSV.path, runCSV.path, runCSV.path, "--out", runCSV.path]) == .usage)
        #expect(ServeCommand.run(["--plan", file.path, "--ledger", file.path]) == .usage)
        #expect(try Data(contentsOf: runCSV) == first)
        #expect(try Data(contentsOf: file) == scenario)
    }

    @Test("--trace-send: any value is a send number in range or a usage error naming the option")
    func traceSendValues() throws {
        var random = SystemRandomNumberGenerator()
        var values = ["0", "9999999", "10000000", "-1", "", "1e3", "0x10", " 3", "99999999999999999999", "٣"]
        for _ in 0..<300 {
            let length = Int.random(in: 1...6, using: &random)
            values.append(String((0..<length).map { _ in "0123456789-+ .xe".randomElement(using: &random)! }))
        }
        for value in values {
            do {
                let parsed = try Arguments(["s.json", "--trace-send=\(value)"], spec: RunCommand.spec)
                let number = try RunCommand.traceSendNumber(parsed)
                #expect(number.map { (0..<LoadSettings.maxSends).contains($0) } == true, "\(value)")
            } catch {
                #expect(error.description.contains("--trace-send"), "\(value): \(error)")
            }
        }
    }

    @Test("run: a failed virtual-time scenario prints its replay, narrowed to the first failed send")
    func replayLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("half fails.json")
        try #"""
        {"name": "half", "seed": 4, "client": {"maxRetries": 0},
         "load": {"type": "closed", "concurrency": 1, "sends": 10},
         "plan": {"rules": [{"match": {"endpoint": "send", "everyNth": 2}, "action": {"type": "respond", "status": 503}}]},
         "assertions": ["send.ok == 10"]}
        """#.write(to: file, atomically: true, encoding: .utf8)
        let scenario = try Scenario.load(file: file.path)
        let result = try await ScenarioRunner(outputFolder: nil, runID: "R", progress: false).run(scenario)
        #expect(!result.passed && result.firstFailedSend == 1)
        #expect(
            result.replayCommand(quick: true)
                == "frontmail-bench run '\(file.path)' --quick --seed 4 --trace-send 1")
        var traced = ScenarioRunner(outputFolder: nil, runID: "R", progress: false)
        traced.traceSend = 1
        let trace = try #require(try await traced.run(scenario).trace)
        #expect(trace.contains("trace of send 1:") && trace.contains("status 503"), "\(trace)")
        var real = scenario
        real.clock = .real
        #expect(
            try await ScenarioRunner(outputFolder: nil, runID: "R", progress: false).run(real)
                .replayCommand(quick: false) == nil)
        let other = folder.appendingPathComponent("other.json")
        try #"{"name": "other", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.write(
            to: other, atomically: true, encoding: .utf8)
        #expect(await RunCommand.run([file.path, other.path, "--trace-send", "1"]) == .usage)
    }

    @Test(
        "a shared server answers its identity outside the API and the ledger; a server that is not a serve is named, and a bad --run-id is refused"
    )
    func serverIdentity() async throws {
        let core = FakeFrontmailCore(seed: 1)
        var options = FakeFrontmailServer.Options()
        options.pathPrefix = "/fm-1"
        let live = try FakeFrontmailServer(core: core, options: options)
        defer { live.shutdown() }
        #expect(try await ShardRun.serverIdentity(live.url).get() == core.runID)
        #expect(core.ledger.count == 0)
        // Without the route prefix the request is misdirected: not the server a shard was given.
        let bare = URL(string: "http://127.0.0.1:\(live.url.port ?? 0)")!
        guard case .failure(let problem) = await ShardRun.serverIdentity(bare) else {
            Issue.record("a misdirected answer was taken for an identity")
            return
        }
        #expect(problem.description.contains("not a frontmail-bench serve"))
        #expect(core.ledger.count == 0)
        #expect(await RunCommand.run(["scenarios/brownout-503.json", "--run-id", "../x", "--no-progress"]) == .usage)
        #expect(MergeCommand.run(["/nonexistent", "--run-id", "a b"]) == .usage)
    }

    @Test("a shard whose shared server does not answer exits 70 and writes no part; a running one answers")
    func shardServerDown() async throws {
        let core = FakeFrontmailCore(seed: 1)
        let live = try FakeFrontmailServer(core: core)
        #expect(try await ShardRun.serverIdentity(live.url).get() == core.runID)
        live.shutdown()
        // A port held by a socket that never listens: every connection to it is refused (a port
        // merely freed could be given to another test's server meanwhile).
        let holder = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(holder) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(holder, $0, length) == 0 && getsockname(holder, $0, &length) == 0
            }
        }
        try #require(bound)
        let gone = URL(string: "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))")!
        guard case .failure(let problem) = await ShardRun.serverIdentity(gone, timeout: 2) else {
            Issue.record("a refused connection gave an identity")
            return
        }
        #expect(problem.description.contains("does not answer"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.json")
        try #"{"name": "s", "transport": "socket", "load": {"type": "closed", "concurrency": 2, "sends": 4}}"#.write(
            to: file, atomically: true, encoding: .utf8)
        let out = folder.appendingPathComponent("parts")
        let code = await RunCommand.run([
            file.path, "--shard", "0/2", "--server", gone.absoluteString, "--out", out.path, "--no-progress",
        ])
        #expect(code == .software)
        let parts = (try? FileManager.default.contentsOfDirectory(atPath: out.path)) ?? []
        #expect(parts.allSatisfy { !$0.hasSuffix(".fmshard") })
    }
}
