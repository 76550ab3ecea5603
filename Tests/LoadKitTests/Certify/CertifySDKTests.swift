import FakeFrontmail
import Foundation
import FrontmailMutants
import Synchronization
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
        var runner = CertifyRunner(cases: cases, jobs: 6)
        // The SDK's cases, on the real clock beside a full `swift test` on two cores, once ran past
        // the 30 s deadline of a hung attempt (its client's timeout is 2 s). A broken client keeps
        // the deadlines: some fail by them (one that sleeps through a Retry-After of an hour).
        if broken == nil { runner.deadlineScale = 10 }
        let client = CertifyClient(
            claim: SDKCertifyClient.claim(), kind: .inProcess { await SDKCertifyClient.run($0, broken: broken) })
        return try await runner.run(client, folder: folder)
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
        "key-changing": [
            "idempotency.same-key-after-503", "idempotency.same-key-after-reset", "idempotency.same-key-after-hang",
            "idempotency.one-email-after-drop", "idempotency.one-email-after-late-answer",
            "idempotency.one-email-duplicate-in-progress", "idempotency.one-email-concurrent-resets",
        ],
        "key-dropping": [
            "idempotency.key-on-every-request", "idempotency.key-on-retry-after-reset",
            "idempotency.same-key-after-503", "idempotency.same-key-after-reset", "idempotency.same-key-after-hang",
            "idempotency.one-email-after-drop", "idempotency.one-email-after-late-answer",
            "idempotency.one-email-duplicate-in-progress", "idempotency.one-email-concurrent-resets",
        ],
        "body-changing": ["idempotency.same-body-after-503", "idempotency.same-body-after-truncation"],
        "retry-after-blind": [
            "retry-after.seconds-503", "retry-after.seconds-429", "retry-after.fraction", "retry-after.date-ahead",
            "retry-after.over-limit-503", "retry-after.over-limit-429", "retry-after.second-answer",
            "hostile.400-digit-retry-after",
        ],
        "no-jitter": ["backoff.jitter-distribution", "backoff.independent-draws"],
        "retries-final-answers": [
            "idempotency.conflict-ends-send", "non-retryable.400", "non-retryable.401", "non-retryable.402",
            "non-retryable.403", "non-retryable.404", "non-retryable.408", "non-retryable.409-idempotency-conflict",
            "non-retryable.413", "non-retryable.422", "non-retryable.451", "non-retryable.400-with-retry-after",
            "non-retryable.200-empty-body", "non-retryable.202-not-json",
            "status.404-ends", "hostile.deep-nesting-202", "hostile.huge-number-200", "hostile.invalid-utf8-202",
            "hostile.megabytes-200",
        ],
        "one-retry-short": ["backoff.retried-to-bound"],
        "one-retry-extra": ["backoff.attempt-bound", "outage.attempt-bound"],
        "equal-jitter": ["backoff.jitter-distribution"],
        "doubled-backoff": ["backoff.jitter-distribution"],
        "duplicating": [
            "idempotency.one-email-after-drop", "idempotency.one-email-after-late-answer",
            "idempotency.one-email-duplicate-in-progress", "idempotency.one-email-concurrent-resets",
            "non-retryable.400", "outage.attempt-bound",
        ],
        "status-token-in-url": ["status.token-in-header", "status.503-retried", "status.404-ends"],
    ]

    /// The broken clients with a planned case that holds on any host.
    static var untimedBroken: [String] {
        planned.keys.sorted().filter { name in untimed.contains { planned[name]?.contains($0.name) == true } }
    }

    @Test("each broken client fails every untimed case planned for it", arguments: untimedBroken)
    func brokenFails(_ name: String) async throws {
        let broken = try #require(BrokenClient.named(name))
        #expect(SDKCertifyClient.brokenOnRealClock.contains(name))
        let planned = Set(Self.planned[name] ?? []).intersection(Self.untimed.map(\.name))
        let report = try await Self.certify(broken, cases: CertifyCase.all.filter { planned.contains($0.name) })
        let failed = Set(report.failed.map(\.certifyCase.name))
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

@Suite("certify: several clients in one pool")
struct CertifyPoolTests {
    /// Which case of which client ended, in order.
    final class Order: Sendable {
        let ended = Mutex<[(client: Int, name: String)]>([])
    }

    @Test("two clients' cases share the slots, timed ones last and alone; each report is its own client's")
    func pooled() async throws {
        let names = ["idempotency.key-on-every-request", "idempotency.same-key-after-503", "retry-after.seconds-503"]
        let cases = names.compactMap(CertifyCase.named)
        #expect(cases.count == 3 && cases.map(\.dependsOnHostSpeed) == [false, false, true])
        let broken = try #require(BrokenClient.named("key-changing"))
        let folder = CertifySDKTests.folder("pool")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clients = [nil, broken].enumerated().map { index, broken in
            CertifyRunner.Entry(
                client: CertifyClient(
                    claim: SDKCertifyClient.claim(), kind: .inProcess { await SDKCertifyClient.run($0, broken: broken) }
                ),
                folder: folder.appendingPathComponent("\(index)"))
        }
        // Deadlines ten times the case's, as for the SDK's cases above: beside the other tests the
        // SDK's retry once waited past a 20 s deadline for a thread (the key-changing client fails
        // its case by its keys, whatever the deadline).
        var runner = CertifyRunner(cases: cases, jobs: 4)
        runner.deadlineScale = 10
        let order = Order()
        runner.progress = { done, total, client, result in
            #expect(total == 6)
            order.ended.withLock { $0.append((client, result.certifyCase.name)) }
        }
        let reports = try await runner.run(clients)
        let ended = order.ended.withLock { $0 }
        #expect(ended.count == 6)
        // The four untimed cases (two per client) end before either client's timed case, which
        // run one after the other in the clients' order.
        #expect(ended.prefix(4).allSatisfy { $0.name != "retry-after.seconds-503" })
        #expect(ended.suffix(2).map(\.client) == [0, 1] && ended.suffix(2).allSatisfy { $0.name == names[2] })
        #expect(reports.count == 2 && reports.allSatisfy { $0.results.map(\.certifyCase.name) == names })
        let untimedFailures = reports.map { Set($0.failed.map(\.certifyCase.name)).subtracting([names[2]]) }
        #expect(untimedFailures == [[], ["idempotency.same-key-after-503"]])
        for (index, report) in reports.enumerated() {
            let written = folder.appendingPathComponent("\(index)/\(names[1])/ledger.csv").path
            #expect(FileManager.default.fileExists(atPath: written), "\(index): \(report.claim.name)")
        }
    }
}
