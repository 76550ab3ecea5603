import FakeFrontmail
import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// The cases over loopback sockets against the Swift SDK (in this process, through URLSession):
/// it passes every required case; each of explore's broken clients that behaves the same on the
/// real clock fails every case planned for it. Only the cases whose verdict holds on any host run
/// here (`dependsOnHostSpeed`): beside the rest of `swift test` on two cores a retry can come a
/// second late. The timed cases are judged on hand-built records (`CertifyJudgeTests`) and end to
/// end by `certify --clients certify/clients.json`, which CI runs on its own.
@Suite("certify: the SDK and the broken clients over sockets")
struct CertifySDKTests {
    static func folder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("certify-\(name)-\(UUID().uuidString)")
    }

    static func certify(_ broken: BrokenClient?, cases: [CertifyCase] = CertifyCase.all) async throws -> ClientReport {
        let folder = folder(broken?.name ?? "sdk")
        defer { try? FileManager.default.removeItem(at: folder) }
        let runner = CertifyRunner(cases: cases, jobs: 6, folder: folder)
        let client = CertifyClient(
            claim: SDKCertifyClient.claim(), kind: .inProcess { await SDKCertifyClient.run($0, broken: broken) })
        return try await runner.run(client)
    }

    static let untimed = CertifyCase.all.filter { !$0.dependsOnHostSpeed }

    @Test("the Swift SDK passes every required case, and none is NOT APPLICABLE")
    func sdkPasses() async throws {
        #expect(Self.untimed.count >= 40)
        let report = try await Self.certify(nil, cases: Self.untimed)
        #expect(report.results.count == Self.untimed.count)
        let failed = report.failed.map { "\($0.certifyCase.id): \($0.verdict.detail)" }
        #expect(failed == [])
        #expect(report.count(.notApplicable) == 0)
        let required = report.results.filter { $0.certifyCase.weight == .required }
        #expect(required.allSatisfy { $0.verdict.outcome == .pass })
    }

    /// The cases each broken client is built to fail (certify/clients.json plans the same).
    static let planned: [String: [String]] = [
        "key-changing": ["1.3", "1.4", "1.5", "1.10", "1.11", "1.12", "1.14"],
        "body-changing": ["1.8", "1.9"],
        "retry-after-blind": ["2.1", "2.2", "2.3", "2.5", "2.7", "2.8", "2.10", "10.4"],
        "no-jitter": ["3.3", "3.4"],
        "retries-final-answers": [
            "1.13", "4.1", "4.2", "4.3", "4.4", "4.5", "4.6", "4.7", "4.8", "4.9", "4.10", "4.11", "4.12", "4.13",
            "9.3", "10.5", "10.6", "10.7", "10.8",
        ],
        "one-retry-short": ["3.6"],
        "one-retry-extra": ["3.5", "8.1"],
        "equal-jitter": ["3.3"],
        "doubled-backoff": ["3.3"],
        "duplicating": ["1.10", "1.11", "1.12", "1.14", "4.1", "8.1"],
        "status-token-in-url": ["9.1", "9.2", "9.3"],
    ]

    /// The broken clients with a planned case that holds on any host.
    static var untimedBroken: [String] {
        planned.keys.sorted().filter { name in untimed.contains { planned[name]?.contains($0.id) == true } }
    }

    @Test("each broken client fails every untimed case planned for it", arguments: untimedBroken)
    func brokenFails(_ name: String) async throws {
        let broken = try #require(BrokenClient.named(name))
        #expect(SDKCertifyClient.brokenOnRealClock.contains(name))
        let planned = Set(Self.planned[name] ?? []).intersection(Self.untimed.map(\.id))
        let report = try await Self.certify(broken, cases: CertifyCase.all.filter { planned.contains($0.id) })
        let failed = Set(report.failed.map(\.certifyCase.id))
        #expect(failed == planned, "\(name) missed \(planned.subtracting(failed).sorted())")
    }

    @Test("certify/clients.json plans for its broken clients what these tests check")
    func manifestAgrees() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("certify/clients.json")
        let manifest = try CertifyManifest.load(file: file.path)
        var seen = 0
        for entry in manifest.clients {
            guard let range = entry.command.range(of: "--broken ") else { continue }
            let name = String(entry.command[range.upperBound...])
            #expect(Set(entry.expectedFailures) == Set(Self.planned[name] ?? ["unplanned"]), "\(name)")
            seen += 1
        }
        #expect(seen >= 5)
        #expect(
            manifest.clients.contains {
                $0.command.hasSuffix("frontmail-certify-client\"") && $0.expectedFailures.isEmpty
            })
    }
}
