import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Seeded mutations of the committed claim files and of certify/clients.json: each ends as a
/// claim or manifest within its ranges, or as an error naming its field, never a trap; the
/// protocol's environment is read with the same care.
@Suite("input fuzzing: certify's claim files, clients file and protocol environment", .onItsOwnThread)
struct CertifyInputFuzzTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..")

    static func files() throws -> [URL] {
        let folder = root.appendingPathComponent("certify/clients")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
            .sorted().map { folder.appendingPathComponent($0) }
    }

    /// `rounds` seeded mutations of a JSON file: one in ten cut short, the rest up to four changes
    /// of its tree.
    static func mutations(of original: Data, rounds: Int, _ random: inout InputFuzzTests.Generator) -> [Data] {
        guard let tree = try? JSONReader.parse(original) else { return [] }
        return (0..<rounds).map { round in
            if round % 10 == 9 { return original.prefix(random.below(original.count)) }
            var mutated = tree
            for _ in 0...random.below(3) { mutated = InputFuzzTests.mutate(mutated, &random) }
            return InputFuzzTests.bytes(mutated)
        }
    }

    @Test("every committed claim loads; every mutation is a claim within its ranges or an error with a field")
    func claims() throws {
        var random = InputFuzzTests.Generator(state: 20_261_205)
        var valid = 0
        var rejected = 0
        let files = try Self.files()
        #expect(files.count >= 6)
        for file in files {
            let claim = try ClientClaim.load(file: file.path)
            #expect(claim.maxAttempts >= 1)
            let original = try Data(contentsOf: file)
            for data in Self.mutations(of: original, rounds: 300, &random) {
                do {
                    let claim = try InputError.decode(ClientClaim.self, from: data)
                    try claim.validate()
                    valid += 1
                    #expect((1...20).contains(claim.maxAttempts))
                    for retry in 0..<25 {
                        let cap = claim.cap(retry: retry)
                        #expect(cap.isFinite && cap >= 0 && cap <= 3600)
                        if let draw = claim.draw(retry: retry) {
                            #expect(draw.low >= 0 && draw.width >= 0 && (draw.low + draw.width).isFinite)
                        }
                    }
                } catch {
                    rejected += 1
                    #expect(!error.reason.isEmpty)
                }
            }
        }
        #expect(valid > 20 && rejected > 100, "valid \(valid), rejected \(rejected)")
    }

    @Test("a bad claim names its file and field")
    func claimErrors() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("claims-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let cases: [(String, String)] = [
            (#"{"name":"x","maxAttempts":0,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#, "maxAttempts"),
            (#"{"name":"x","maxAttempts":3,"baseDelay":"3s","maxDelay":"2s","jitter":"full"}"#, "maxDelay"),
            (#"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"half"}"#, "jitter"),
            (#"{"name":"","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full"}"#, "name"),
            (
                #"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full","timeout":"0s"}"#,
                "timeout"
            ),
            (#"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full","delays":[]}"#, "delays"),
            (
                #"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full","multiplier":1e9}"#,
                "multiplier"
            ),
            (#"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full","retries":4}"#, "retries"),
            (#"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"additive"}"#, "jitterMax"),
            (
                #"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"additive","jitterMax":"0s"}"#,
                "jitterMax"
            ),
            (
                #"{"name":"x","maxAttempts":3,"baseDelay":"1s","maxDelay":"2s","jitter":"full","jitterMax":"1s"}"#,
                "jitterMax"
            ),
        ]
        for (index, (text, field)) in cases.enumerated() {
            let file = folder.appendingPathComponent("claim-\(index).json")
            try Data(text.utf8).write(to: file)
            #expect(throws: InputFileError.self) { try ClientClaim.load(file: file.path) }
            do {
                _ = try ClientClaim.load(file: file.path)
            } catch {
                #expect(error.description.hasPrefix(file.path + ": "), "\(error)")
                #expect(error.description.contains(field), "\(error)")
            }
        }
    }

    @Test("certify/clients.json loads; mutations are a manifest within its ranges or an error with a field")
    func manifest() throws {
        let file = Self.root.appendingPathComponent("certify/clients.json")
        let loaded = try CertifyManifest.load(file: file.path)
        #expect(loaded.clients.count >= 6)
        var random = InputFuzzTests.Generator(state: 7_041)
        var valid = 0
        var rejected = 0
        for data in Self.mutations(of: try Data(contentsOf: file), rounds: 400, &random) {
            do {
                let manifest = try InputError.decode(CertifyManifest.self, from: data)
                try manifest.validate()
                valid += 1
                #expect(manifest.clients.allSatisfy { $0.expectedFailures.allSatisfy { CertifyCase.named($0) != nil } })
            } catch {
                rejected += 1
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(valid > 5 && rejected > 100, "valid \(valid), rejected \(rejected)")
    }

    @Test("the protocol's environment: a missing or wrong variable is named, never a trap")
    func environment() throws {
        let sends = FileManager.default.temporaryDirectory.appendingPathComponent("sends-\(UUID().uuidString).jsonl")
        try Data((CertifyCase.body(send: 0, publicKey: "pk_x") + "\n").utf8).write(to: sends)
        defer { try? FileManager.default.removeItem(at: sends) }
        let good = [
            "FRONTMAIL_URL": "http://127.0.0.1:1", "FRONTMAIL_PUBLIC_KEY": "pk_x", "FRONTMAIL_SENDS": sends.path,
            "FRONTMAIL_CONCURRENCY": "2", "FRONTMAIL_CASE": "1.1",
        ]
        let (request, problem) = SDKCertifyClient.request(from: good)
        #expect(problem == nil && request?.bodies.count == 1 && request?.concurrency == 2)
        #expect(SDKCertifyClient.Send(request?.bodies.first ?? "")?.templateID == "tpl_bench")
        var random = InputFuzzTests.Generator(state: 99)
        let values = [
            "", "0", "-1", "1001", "x", "http://", "not a url", "/nonexistent", String(repeating: "9", count: 40),
        ]
        for _ in 0..<300 {
            var environment = good
            let name = good.keys.sorted()[random.below(good.count)]
            if random.below(4) == 0 {
                environment[name] = nil
            } else {
                environment[name] = values[random.below(values.count)]
            }
            let (request, problem) = SDKCertifyClient.request(from: environment)
            if name == "FRONTMAIL_CASE" { continue }
            #expect((request == nil) == (problem != nil))
            if let request { #expect((1...1000).contains(request.concurrency)) }
        }
        #expect(
            SDKCertifyClient.Send("{}") == nil && SDKCertifyClient.Send("[1]") == nil
                && SDKCertifyClient.Send("") == nil)
    }
}
