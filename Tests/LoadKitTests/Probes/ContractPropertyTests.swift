import FakeFrontmail
import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// One catalog of the contract's properties: every name explore, certify, a broken client or the
/// documentation uses is one of it, with one meaning.
@Suite("the contract's properties: one catalog")
struct ContractPropertyTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// What explore judges: its properties, the pooled jitter test and the run's completion.
    static let explored = Set(ExploreProperty.all.map(\.property) + [.jitterUniform, .runCompletes])

    @Test("names are distinct, lowercase words and digits joined by hyphens, each with a meaning")
    func names() {
        let names = ContractProperty.allCases.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for property in ContractProperty.allCases {
            #expect(property.rawValue.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(property.rawValue)")
            #expect(!property.summary.isEmpty)
        }
        #expect(Set(ExploreProperty.all.map(\.property)).count == ExploreProperty.all.count)
        #expect(ExploreProperty.names.allSatisfy { ContractProperty(rawValue: $0) != nil })
    }

    @Test("every property is judged somewhere; certify's every one is some case's, and no case names another")
    func judged() {
        let certified = Set(ContractProperty.certified)
        for property in ContractProperty.allCases {
            #expect(Self.explored.contains(property) || certified.contains(property), "\(property.rawValue)")
        }
        let named = Set(CertifyCase.all.map(\.property))
        #expect(named == certified, "\(certified.symmetricDifference(named).map(\.rawValue))")
    }

    @Test("every broken client names a property explore judges, and every such property has a broken client")
    func brokenClients() {
        for client in BrokenClient.all {
            let property = ContractProperty(rawValue: client.property)
            #expect(property.map { Self.explored.contains($0) } == true, "\(client.name): \(client.property)")
        }
        let caught = Set(BrokenClient.all.compactMap { ContractProperty(rawValue: $0.property) })
        #expect(Self.explored.subtracting(caught).isEmpty, "\(Self.explored.subtracting(caught).map(\.rawValue))")
    }

    @Test("docs/properties.md has one row per property: its meaning from the catalog and the rooms that judge it")
    func documented() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("docs/properties.md"), encoding: .utf8)
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count == ContractProperty.allCases.count)
        for property in ContractProperty.allCases {
            let explore = Self.explored.contains(property) ? "yes" : ""
            let certify = ContractProperty.certified.contains(property) ? "yes" : ""
            let row = "| `\(property.rawValue)` | \(property.summary) | \(explore) | \(certify) |"
                .replacingOccurrences(of: "|  |", with: "| |")
            #expect(rows.contains { $0 == row }, "\(row)")
        }
    }

    @Test("a key is the contract's only when lowercase version 4 with its variant; a capital, v1 or variant c is not")
    func version4() {
        #expect(ContractProperty.isVersion4("0f8fad5b-d9cb-469f-a165-70867728950e"))
        #expect(ContractProperty.isVersion4("0f8fad5b-d9cb-469f-b165-70867728950e"))
        for key in [
            "0F8FAD5B-D9CB-469F-A165-70867728950E", "0f8fad5b-d9cb-169f-a165-70867728950e",
            "0f8fad5b-d9cb-469f-c165-70867728950e", "0f8fad5bd9cb469fa16570867728950e",
            "0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5b_d9cb-469f-a165-70867728950e", "",
        ] {
            #expect(!ContractProperty.isVersion4(key), "\(key)")
        }
        #expect(!ContractProperty.isVersion4(nil))
        // The key-shape metric and certify agree: a capital key is not the contract's in either room.
        #expect(KeyShape(["0F8FAD5B-D9CB-469F-A165-70867728950E"]).notV4 == 1)
        #expect(KeyShape(["0f8fad5b-d9cb-469f-a165-70867728950e"]).notV4 == 0)
    }

    @Test("a send's body changed, or it was committed twice, by the one function both rooms call")
    func sendFunctions() {
        func record(_ fingerprint: UInt64, effect: Bool) -> LedgerRecord {
            var record = LedgerRecord(arrival: 0, connection: 1, endpoint: .send, keyID: 1, attempt: 1)
            record.fingerprint = fingerprint
            record.effect = effect
            return record
        }
        #expect(!ContractProperty.changesBody([record(7, effect: false), record(7, effect: true)]))
        #expect(ContractProperty.changesBody([record(7, effect: false), record(8, effect: true)]))
        #expect(!ContractProperty.committedTwice([record(7, effect: false), record(7, effect: true)]))
        #expect(ContractProperty.committedTwice([record(7, effect: true), record(7, effect: true)]))
        #expect(!ContractProperty.changesBody([]) && !ContractProperty.committedTwice([]))
    }

    @Test("same-key, key-present and distinct-keys: one function each, on which a keyless or changed request breaks")
    func keyFunctions() {
        #expect(!ContractProperty.breaksSameKey(["a", "a"]))
        #expect(ContractProperty.breaksSameKey(["a", "b"]))
        #expect(ContractProperty.breaksSameKey(["a", nil]) && ContractProperty.breaksSameKey([nil, "a"]))
        // A send with no key at all carries no same key on its attempts either.
        #expect(ContractProperty.breaksSameKey([nil, nil] as [String?]))
        #expect(ContractProperty.missesKey(["a", nil]) && !ContractProperty.missesKey(["a", "a"]))
        let (owners, shared) = ContractProperty.keyOwners([
            (send: 0, keys: ["a", "a"]), (send: 1, keys: ["b", nil]), (send: 2, keys: ["a"]), (send: 3, keys: [nil]),
        ])
        #expect(owners == ["a": 0, "b": 1])
        #expect(shared == ["a"])
    }

    @Test("explore's key metrics and certify's key verdicts read one server record the same way")
    func keysInBothRooms() throws {
        let scenario = try makeScenario(ProbeTests.plain)
        func judged(_ requests: [(send: Int64, key: String)]) -> (metrics: [String: Double], index: LedgerIndex) {
            let built = HistoryBuilder()
            for send in Set(requests.map(\.send)).sorted() {
                built.send(Int(send), outcome: .ok(messageID: "msg_\(send + 1)"))
            }
            let ledger = LedgerBuilder()
            for (index, request) in requests.enumerated() {
                let last = !requests[(index + 1)...].contains { $0.send == request.send }
                ledger.request(
                    sendID: request.send, key: request.key, arrival: Double(index), finished: Double(index) + 0.5,
                    status: last ? 202 : 503, effect: last, message: UInt32(request.send + 1))
            }
            let index = ledger.index
            let metrics = IdempotencyProbe(scenario: scenario, history: built.history, ledger: index).metrics
            return (metrics, index)
        }
        func certify(_ property: ContractProperty, _ index: LedgerIndex) -> CertifyVerdict {
            CertifyJudgeTests.verdict(property, index.records, keys: index.keys, sends: 3)
        }
        let a = CertifyJudgeTests.keyA
        let b = CertifyJudgeTests.keyB
        let c = "5e0f6a0c-2b8e-4d4b-8f7e-3c1a9b2d4e6f"
        let d = "7a1c2e3f-4b5d-4e6f-9a8b-1c2d3e4f5a6b"
        let clean = judged([(0, a), (0, a), (1, b), (2, c)])
        #expect(clean.metrics["idempotency.key_changes"] == 0 && clean.metrics["idempotency.key_collisions"] == 0)
        #expect(certify(.sameKey, clean.index).outcome == .pass && certify(.distinctKeys, clean.index).outcome == .pass)
        // Send 0 retries under a new key; sends 1 and 2 share one.
        let broken = judged([(0, a), (0, d), (1, b), (2, b)])
        #expect(broken.metrics["idempotency.key_changes"] == 1 && broken.metrics["idempotency.key_collisions"] == 1)
        let sameKey = certify(.sameKey, broken.index)
        #expect(sameKey.outcome == .fail && sameKey.sends == [0])
        let distinct = certify(.distinctKeys, broken.index)
        #expect(distinct.outcome == .fail && distinct.sends == [1, 2])
    }

    @Test(
        "no-retry-after-final-answer, no-early-give-up and retry-after-limit: one function each over a send's answers")
    func answerFunctions() {
        // A 422 then another request: retried after a final answer; a 503 then a 202 is not.
        #expect(ContractProperty.retriedAfterFinal(requests: 2) { [true, true][$0] })
        #expect(!ContractProperty.retriedAfterFinal(requests: 2) { [false, true][$0] })
        // An answer the room cannot read (nil) is not held against the client; the last answer
        // never counts (nothing came after it).
        #expect(!ContractProperty.retriedAfterFinal(requests: 2) { [nil, true][$0] })
        #expect(!ContractProperty.retriedAfterFinal(requests: 1) { _ in true })
        #expect(!ContractProperty.retriedAfterFinal(requests: 0) { _ in true })
        // Three attempts allowed: stopping after a 503 on the second gives up early; after a 202,
        // after the third, or with an unreadable last answer it does not.
        #expect(ContractProperty.gaveUpEarly(requests: 2, maxAttempts: 3, lastEnds: false))
        #expect(!ContractProperty.gaveUpEarly(requests: 2, maxAttempts: 3, lastEnds: true))
        #expect(!ContractProperty.gaveUpEarly(requests: 3, maxAttempts: 3, lastEnds: false))
        #expect(!ContractProperty.gaveUpEarly(requests: 2, maxAttempts: 3, lastEnds: nil))
        #expect(!ContractProperty.gaveUpEarly(requests: 0, maxAttempts: 3, lastEnds: false))
        #expect(ContractProperty.overAttempts(requests: 4, maxAttempts: 3))
        #expect(!ContractProperty.overAttempts(requests: 3, maxAttempts: 3))
        #expect(ContractProperty.retriedPastLimit(requests: 2) { [true, false][$0] })
        #expect(!ContractProperty.retriedPastLimit(requests: 2) { [false, true][$0] })
    }

    @Test("retry-after-obeyed, waits-in-policy and attempt-timeout: one window function, with each clock's allowance")
    func windowFunction() {
        // On the simulated clock a Retry-After of 2 s is waited exactly: a microsecond either way.
        #expect(!ContractProperty.outsideWindow(2.000_000_5, low: 2, high: 2, early: 1e-6, late: 1e-6))
        #expect(ContractProperty.outsideWindow(2.01, low: 2, high: 2, early: 1e-6, late: 1e-6))
        #expect(ContractProperty.outsideWindow(1.99, low: 2, high: 2, early: 1e-6, late: 1e-6))
        // In certify only an early retry breaks it: late is unbounded.
        #expect(!ContractProperty.outsideWindow(9, low: 2, high: .infinity, early: 0.005, late: 0))
        #expect(ContractProperty.outsideWindow(1.9, low: 2, high: .infinity, early: 0.005, late: 0))
        // A jittered wait within [0, cap] plus the late allowance.
        #expect(!ContractProperty.outsideWindow(0.4, low: 0, high: 0.4, early: .infinity, late: 1e-6))
        #expect(ContractProperty.outsideWindow(0.41, low: 0, high: 0.4, early: .infinity, late: 1e-6))
        // An attempt whose end was never measured is outside its timeout.
        #expect(ContractProperty.outsideWindow(.nan, low: -.infinity, high: 15, early: 0, late: 1))
        #expect(ContractProperty.outsideWindow(.infinity, low: -.infinity, high: 15, early: 0, late: 1))
        #expect(!ContractProperty.outsideWindow(15.5, low: -.infinity, high: 15, early: 0, late: 1))
    }
}
