import FakeFrontmail
import Foundation
import FrontmailMutants
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// `run --broken NAME` replays what `explore --broken NAME` found: the found file fails with the
/// broken client and passes with the SDK as it ships.
@Suite("run --broken: an explore find replayed")
struct BrokenReplayTests {
    @Test("a key-changing client's find fails its replay with --broken and passes without it")
    func replaysAFind() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-replay-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let explored = await ExploreCommand.run([
            "--broken", "key-changing", "--runs", "20", "--seed", "3", "--jobs", "2", "--out", folder.path,
            "--no-progress",
        ])
        #expect(explored == .failure)
        let runs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("-explore") }
        let found = folder.appendingPathComponent(try #require(runs.first)).appendingPathComponent("found")
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: found.path).sorted().first { $0.hasPrefix("same-key") })
        let file = found.appendingPathComponent(name)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("--broken key-changing"))

        let out = folder.appendingPathComponent("replays").path
        let broken = await RunCommand.run([file.path, "--broken", "key-changing", "--out", out, "--no-progress"])
        #expect(broken == .failure)
        let shipped = await RunCommand.run([file.path, "--out", out, "--no-progress"])
        #expect(shipped == .success)
    }

    @Test("--broken takes a name from the catalog, in one process only")
    func refused() async throws {
        #expect(try RunCommand.brokenClient(nil) == nil)
        for client in BrokenClient.all {
            #expect(try RunCommand.brokenClient(client.name)?.name == client.name)
        }
        for bad in ["", "perfect", "Key-Changing", String(repeating: "x", count: 5_000)] {
            #expect(throws: Arguments.UsageError.self) { try RunCommand.brokenClient(bad) }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("broken-refused-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("s.json")
        try Data(#"{"name": "s", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#.utf8).write(to: file)
        #expect(await RunCommand.run([file.path, "--broken", "perfect"]) == .usage)
        #expect(await RunCommand.run([file.path, "--broken", "duplicating", "--workers", "2"]) == .usage)
        #expect(await RunCommand.run([file.path, "--broken", "duplicating", "--shard", "0/2"]) == .usage)
    }
}
