import FakeFrontmail
import Foundation
import Frontmail

/// The Jepsen-style history check: each send's client outcome joined with the server's effects.
///
/// Per send: ok → exactly one effect somewhere for its message id; fail → no effect; info → 0 or 1;
/// never 2. Every attempt of one send carries one key and one body.
struct IdempotencyProbe {
    var rows: [SummaryRow] = []
    var metrics: [String: Double] = [:]
    /// Effects per send id, for the history CSV.
    var effects: [Int: Int] = [:]

    init(scenario: Scenario, history: History, ledger: LedgerIndex) {
        let records = history.records
        var committedMessages: Set<UInt32> = []
        for record in ledger.records where record.endpoint == .send && record.effect {
            committedMessages.insert(record.message)
        }
        // Sends that share a bench id (explicit key pools) are checked as one group.
        var groups: [Int: [History.Record]] = [:]
        for send in records { groups[scenario.benchID(send.sendID), default: []].append(send) }
        var duplicates = 0
        var lost = 0
        var failWithEffect = 0
        var infoWithEffect = 0
        var mismatches = 0
        var keyChanges = 0
        var bodyChanges = 0
        var keyOwners: [UInt32: Int] = [:]
        var collisions: Set<UInt32> = []
        var totalEffects = 0
        let grouped = scenario.client.explicitKeys != nil
        for (benchID, sends) in groups {
            let attempts = ledger.attempts(sendID: benchID)
            let committed = attempts.filter(\.effect)
            for send in sends { effects[send.sendID] = grouped ? nil : committed.count }
            totalEffects += committed.count
            if committed.count > 1 { duplicates += 1 }
            keyChanges += sends.filter(\.keyChanged).count
            if !grouped {
                if Set(attempts.map(\.keyID)).count > 1 && !sends.contains(where: \.keyChanged) { keyChanges += 1 }
                if Set(attempts.map(\.fingerprint)).count > 1 { bodyChanges += 1 }
            }
            for keyID in Set(attempts.map(\.keyID)) where keyID != 0 {
                if let owner = keyOwners[keyID], owner != benchID {
                    collisions.insert(keyID)
                } else {
                    keyOwners[keyID] = benchID
                }
            }
            let verdicts = sends.map(\.verdict)
            for send in sends {
                guard case .ok(let messageID) = send.outcome else { continue }
                let number = MessageID.number(messageID)
                if number.map({ !committedMessages.contains($0) }) ?? true { lost += 1 }
                if let own = committed.first, let number, own.message != number { mismatches += 1 }
            }
            if !committed.isEmpty {
                if verdicts.allSatisfy({ $0 == .fail || $0 == .dropped }) {
                    failWithEffect += 1
                } else if !verdicts.contains(.ok) {
                    infoWithEffect += 1
                }
            }
        }
        let known = Set(groups.keys)
        let unexpected =
            ledger.orphans.filter { ledger.records[$0].effect }.count
            + ledger.bySend.filter { !known.contains($0.key) }.values.joined().filter { ledger.records[$0].effect }
            .count
        let defects = ledger.records.filter { !$0.defects.isEmpty }.count

        var recorder = MetricRecorder(scenario: scenario.name)
        let figures: [(String, Int)] = [
            ("sends", records.count), ("effects", totalEffects), ("duplicates", duplicates), ("lost", lost),
            ("unexpected", unexpected), ("fail_with_effect", failWithEffect), ("info_with_effect", infoWithEffect),
            ("message_id_mismatches", mismatches), ("key_changes", keyChanges), ("body_changes", bodyChanges),
            ("key_collisions", collisions.count), ("defects", defects),
        ]
        for (name, value) in figures { recorder.record("idempotency.\(name)", Double(value)) }
        for verdict in [History.Record.Verdict.ok, .fail, .info, .dropped] {
            recorder.record(
                "idempotency.outcome.\(verdict.rawValue)", Double(records.filter { $0.verdict == verdict }.count))
        }
        rows = recorder.rows
        metrics = recorder.metrics
    }
}
