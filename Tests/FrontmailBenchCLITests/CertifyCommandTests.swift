import FakeFrontmail
import Foundation
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// `certify`'s arguments, exit codes and files.
@Suite("commands: certify")
struct CertifyCommandTests {
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("certify-cmd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("--help and --list exit 0; a missing client, bad numbers, patterns and pairings exit 64")
    func usage() async throws {
        #expect(await FrontmailBench.main(["certify", "--help"]) == .success)
        #expect(await CertifyCommand.run(["--list"]) == .success)
        #expect(await CertifyCommand.run([]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--jobs", "0"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--jobs", "17"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--cases", "9.9"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--cases", "1.1,"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--client", "true", "--policy", "x.json"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "", "--cases", "1.1"]) == .usage)
        #expect(await CertifyCommand.run(["--clients", "certify/clients.json", "--client", "true"]) == .usage)
        #expect(await CertifyCommand.run(["--client", "true", "--no-such-option"]) == .usage)
        #expect(
            try CertifyCommand.selectedCases("2.*,backoff").allSatisfy {
                $0.group == .retryAfter || $0.group == .backoff
            })
        #expect(try CertifyCommand.selectedCases(nil).count == CertifyCase.all.count)
    }

    @Test("a bad claim or clients file exits 65, naming the file; a missing one too")
    func badFiles() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let claim = folder.appendingPathComponent("claim.json")
        try Data(#"{"name":"x","maxAttempts":99,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#.utf8).write(
            to: claim)
        #expect(
            await CertifyCommand.run(["--client", "true", "--policy", claim.path, "--out", folder.path]) == .dataError)
        let clients = folder.appendingPathComponent("clients.json")
        try Data(#"{"clients":[{"command":"true","expectedFailures":["12.1"]}]}"#.utf8).write(to: clients)
        #expect(await CertifyCommand.run(["--clients", clients.path, "--out", folder.path]) == .dataError)
        #expect(await CertifyCommand.run(["--clients", folder.appendingPathComponent("none.json").path]) == .dataError)
        // An --out that is the claim file itself is refused before any work.
        try Data(#"{"name":"x","maxAttempts":2,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#.utf8).write(
            to: claim)
        #expect(await CertifyCommand.run(["--client", "true", "--policy", claim.path, "--out", claim.path]) == .usage)
    }

    @Test("a client that sends nothing fails each case it ran, exits 1, and every file is written")
    func silentClient() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let code = await CertifyCommand.run([
            "--client", "true", "--cases", "1.1,4.1", "--out", folder.path, "--no-progress",
        ])
        #expect(code == .failure)
        let runs = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("-certify") }
        #expect(runs.count == 1)
        let run = folder.appendingPathComponent(runs.first ?? "")
        for name in ["certify.csv", "certify.json", "certify-junit.xml", "certify.html", "matrix.md"] {
            #expect(FileManager.default.fileExists(atPath: run.appendingPathComponent(name).path), "\(name)")
        }
        let csv = CSV.rows(try String(contentsOf: run.appendingPathComponent("certify.csv"), encoding: .utf8))
        #expect(csv.count == 3)
        #expect(csv.dropFirst().allSatisfy { $0.count == csv[0].count && $0[5] == "FAIL" })
        let junit = try String(contentsOf: run.appendingPathComponent("certify-junit.xml"), encoding: .utf8)
        #expect(junit.contains("tests=\"2\" failures=\"2\""))
        // With --clients, the same failures expected are a gate that holds.
        let clients = folder.appendingPathComponent("clients.json")
        try Data(#"{"clients":[{"command":"true","expectedFailures":["1.1","4.1"]}]}"#.utf8).write(to: clients)
        #expect(
            await CertifyCommand.run([
                "--clients", clients.path, "--cases", "1.1,4.1", "--out", folder.path, "--no-progress",
            ]) == .success)
        try Data(#"{"clients":[{"command":"true","expectedFailures":["1.1"]}]}"#.utf8).write(to: clients)
        #expect(
            await CertifyCommand.run([
                "--clients", clients.path, "--cases", "1.1,4.1", "--out", folder.path, "--no-progress",
            ]) == .failure)
        // A client whose program is missing is skipped, and that is said.
        try Data(
            #"{"clients":[{"command":"true","requires":"no-such-program-x"},{"command":"true","expectedFailures":["1.1"]}]}"#
                .utf8
        ).write(to: clients)
        #expect(
            await CertifyCommand.run([
                "--clients", clients.path, "--cases", "1.1", "--out", folder.path, "--no-progress",
            ]) == .success)
    }
}
