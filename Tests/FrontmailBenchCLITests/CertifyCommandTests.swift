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

    @Test(
        "the gate's own input: every claim is read, a skipped client's too; an expected failure that can never FAIL, a file whose every client is skipped and a --client that is no program are refused"
    )
    func gateInput() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = "frontmail-no-such-program-\(UUID().uuidString.prefix(8))"
        let good = folder.appendingPathComponent("good.json")
        try Data(#"{"name":"x","maxAttempts":2,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#.utf8).write(to: good)
        let bad = folder.appendingPathComponent("bad.json")
        try Data(#"{"name":"x","maxAttempts":99,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#.utf8).write(to: bad)
        func clients(_ entries: String) throws -> String {
            let file = folder.appendingPathComponent("clients-\(UUID().uuidString.prefix(8)).json")
            try Data("{\"clients\":[\(entries)]}".utf8).write(to: file)
            return file.path
        }
        let out = folder.appendingPathComponent("out").path
        // Every client skipped: nothing certified is not a pass.
        let allSkipped = try clients(#"{"command":"x","requires":"\#(missing)","policy":"\#(good.path)"}"#)
        #expect(await CertifyCommand.run(["--clients", allSkipped, "--out", out, "--cases", "1.1"]) == .software)
        // A skipped client's broken claim is a broken file here too.
        let skippedBad = try clients(
            #"{"command":"true"},{"command":"x","requires":"\#(missing)","policy":"\#(bad.path)"}"#)
        #expect(await CertifyCommand.run(["--clients", skippedBad, "--out", out, "--cases", "1.1"]) == .dataError)
        // An informational case never FAILs; 9.1 does not apply to a client that reads no statuses.
        let informational = try clients(#"{"command":"true","expectedFailures":["resets.refused"]}"#)
        #expect(await CertifyCommand.run(["--clients", informational, "--out", out, "--cases", "1.1"]) == .dataError)
        let silent = folder.appendingPathComponent("silent.json")
        try Data(
            #"{"name":"x","maxAttempts":2,"baseDelay":"1s","maxDelay":"2s","jitter":"full","statusReads":false}"#.utf8
        ).write(to: silent)
        let notApplicable = try clients(#"{"command":"true","policy":"\#(silent.path)","expectedFailures":["9.1"]}"#)
        #expect(await CertifyCommand.run(["--clients", notApplicable, "--out", out, "--cases", "1.1"]) == .dataError)
        let silentClaim = try ClientClaim.load(file: silent.path)
        let judged = try CertifyManifest.load(
            file: try clients(
                #"{"command":"true","expectedFailures":["1.3"]},{"command":"true","expectedFailures":["9.1"]}"#))
        #expect(throws: Never.self) { try judged.checkExpectedFailures(of: 0, claim: silentClaim) }
        #expect(throws: InputError.self) { try judged.checkExpectedFailures(of: 1, claim: silentClaim) }
        // A --client whose program does not exist would fail every case with no send at the server.
        #expect(await CertifyCommand.run(["--client", "\(missing) --retry 3", "--out", out]) == .usage)
        #expect(CertifyManifest.program(of: "curl -s x") == "curl")
        #expect(CertifyManifest.program(of: "FOO=1 curl") == nil && CertifyManifest.program(of: "cd x && y") == nil)
        #expect(CertifyManifest.program(of: "\"quoted\" x") == nil && CertifyManifest.program(of: "$HOME/x") == nil)
    }

    @Test("the committed gate's expected failures can each FAIL for their client")
    func committedGate() throws {
        let manifest = try CertifyManifest.load(file: "certify/clients.json")
        for (index, entry) in manifest.clients.enumerated() {
            let claim = try entry.policy.map { try ClientClaim.load(file: $0) } ?? ClientClaim.contractDefaults
            #expect(throws: Never.self, "\(entry.command)") {
                try manifest.checkExpectedFailures(of: index, claim: claim)
            }
        }
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
        #expect(csv.dropFirst().allSatisfy { $0.count == csv[0].count && $0[6] == "FAIL" })
        let junit = try String(contentsOf: run.appendingPathComponent("certify-junit.xml"), encoding: .utf8)
        #expect(junit.contains("tests=\"2\" failures=\"2\""))
        // With --clients, the same failures expected are a gate that holds.
        let clients = folder.appendingPathComponent("clients.json")
        try Data(
            #"{"clients":[{"command":"true","expectedFailures":["idempotency.key-on-every-request","non-retryable.400"]}]}"#
                .utf8
        ).write(to: clients)
        #expect(
            await CertifyCommand.run([
                "--clients", clients.path, "--cases", "1.1,4.1", "--out", folder.path, "--no-progress",
            ]) == .success)
        try Data(#"{"clients":[{"command":"true","expectedFailures":["idempotency.key-on-every-request"]}]}"#.utf8)
            .write(to: clients)
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

/// Cases are named in files (`retry-after.fraction`); a number such as `2.3` is read for one release
/// and said where it is.
@Suite("certify: stable case names")
struct CertifyCaseNameTests {
    @Test(
        "a clients file naming cases by number is read as their names and listed with them; an unknown name is refused")
    func numbersReadForOneRelease() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("clients.json")
        try Data(
            #"{"clients":[{"command":"true","expectedFailures":["retry-after.fraction","4.1"]}]}"#.utf8
        ).write(to: file)
        let manifest = try CertifyManifest.load(file: file.path)
        #expect(manifest.expectedNames(of: 0) == ["retry-after.fraction", "non-retryable.400"])
        #expect(manifest.numberedFailures.map(\.number) == ["4.1"])
        #expect(manifest.numberedFailures.map(\.name) == ["non-retryable.400"])
        try Data(#"{"clients":[{"command":"true","expectedFailures":["retry-after.fractions"]}]}"#.utf8).write(to: file)
        #expect(throws: InputFileError.self) { try CertifyManifest.load(file: file.path) }
    }

    @Test("the committed gate names every case it expects by name")
    func committedFileUsesNames() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("certify/clients.json")
        let manifest = try CertifyManifest.load(file: file.path)
        #expect(manifest.numberedFailures.isEmpty)
        #expect(manifest.clients.flatMap(\.expectedFailures).count > 50)
    }
}

/// The gate's summary line per client: exactly its expected failures among the cases run.
@Suite("certify: the gate's line")
struct CertifyGateLineTests {
    static func report(failing: [String]) throws -> ClientReport {
        let results = try ["idempotency.key-on-every-request", "retry-after.fraction", "backoff.jitter-distribution"]
            .map { name in
                let certifyCase = try #require(CertifyCase.named(name))
                let verdict: CertifyVerdict = failing.contains(name) ? .fail("broken") : .pass("fine")
                return CertifyResult(certifyCase: certifyCase, verdict: verdict, requests: 1, elapsed: 0, evidence: [])
            }
        return ClientReport(claim: SDKCertifyClient.claim(), command: nil, results: results)
    }

    @Test("as expected, an unexpected FAIL, an expected FAIL that passed, and a --client without expectations")
    func lines() throws {
        let cases = try ["idempotency.key-on-every-request", "retry-after.fraction", "backoff.jitter-distribution"].map
        {
            try #require(CertifyCase.named($0))
        }
        let failing = try Self.report(failing: ["retry-after.fraction"])
        let expected = CertifyCommand.gateLine(failing, expected: ["retry-after.fraction"], cases: cases)
        #expect(expected.holds && expected.line.hasSuffix("2 PASS, 1 FAIL, 0 N/A, 0 INFO; as expected"))
        let surprise = CertifyCommand.gateLine(failing, expected: [], cases: cases)
        #expect(!surprise.holds && surprise.line.hasSuffix("; unexpected FAIL: retry-after.fraction"))
        let passed = CertifyCommand.gateLine(
            try Self.report(failing: []), expected: ["retry-after.fraction"], cases: cases)
        #expect(!passed.holds && passed.line.hasSuffix("; expected FAIL that passed: retry-after.fraction"))
        // An expected failure of a case not run this time is not judged.
        let notRun = CertifyCommand.gateLine(
            try Self.report(failing: []), expected: ["retry-after.fraction"], cases: [cases[0]])
        #expect(notRun.holds)
        // A client a signal stopped after one case: the expected failures of the two it did not run
        // are not called "passed"; the line says they were not run, and the gate does not hold.
        var cut = try Self.report(failing: [])
        cut.results = [cut.results[0]]
        let interrupted = CertifyCommand.gateLine(cut, expected: ["retry-after.fraction"], cases: cases)
        #expect(!interrupted.holds && interrupted.line.hasSuffix("1 PASS, 0 FAIL, 0 N/A, 0 INFO; 2 of 3 cases not run"))
        // A --client (no expectations) holds only without a FAIL.
        #expect(CertifyCommand.gateLine(try Self.report(failing: []), expected: nil, cases: cases).holds)
        #expect(!CertifyCommand.gateLine(failing, expected: nil, cases: cases).holds)
    }
}
