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

    /// What the walk over the send groups counts.
    private struct Counts {
        var duplicates = 0
        var lost = 0
        var failWithEffect = 0
        var infoWithEffect = 0
        var mismatches = 0
        var keyChanges = 0
        /// Sends with a request that carried no key.
        var keyless = 0
        var bodyChanges = 0
        /// Each group's requests' keys (nil: none), for `ContractProperty.keyOwners`.
        var keys: [(send: Int, keys: [UInt32?])] = []
        var totalEffects = 0

        /// One group of sends (one send, or those sharing an explicit key pool's bench id) against
        /// the requests the server recorded for it; returns how many of them took effect.
        mutating func add(
            benchID: Int, sends: [History.Record], attempts: [LedgerRecord], committedMessages: Set<UInt32>,
            grouped: Bool
        ) -> Int {
            let committed = attempts.filter(\.effect)
            totalEffects += committed.count
            if ContractProperty.committedTwice(attempts) { duplicates += 1 }
            keyChanges += sends.filter(\.keyChanged).count
            let keyIDs = attempts.map { $0.keyID == 0 ? nil : $0.keyID }
            if ContractProperty.missesKey(keyIDs) { keyless += 1 }
            if !grouped {
                if ContractProperty.breaksSameKey(keyIDs) && !sends.contains(where: \.keyChanged) { keyChanges += 1 }
                if ContractProperty.changesBody(attempts) { bodyChanges += 1 }
            }
            keys.append((benchID, keyIDs))
            for send in sends {
                guard case .ok(let messageID) = send.outcome else { continue }
                let number = MessageID.number(messageID)
                if number.map({ !committedMessages.contains($0) }) ?? true { lost += 1 }
                if let own = committed.first, let number, own.message != number { mismatches += 1 }
            }
            guard !committed.isEmpty else { return 0 }
            let verdicts = sends.map(\.verdict)
            if verdicts.allSatisfy({ $0 == .fail || $0 == .dropped }) {
                failWithEffect += 1
            } else if !verdicts.contains(.ok) {
                infoWithEffect += 1
            }
            return committed.count
        }
    }

    init(scenario: Scenario, history: History, ledger: LedgerIndex) {
        let records = history.records
        var committedMessages: Set<UInt32> = []
        for record in ledger.records where record.endpoint == .send && record.effect {
            committedMessages.insert(record.message)
        }
        // Sends that share a bench id (explicit key pools) are checked as one group.
        var groups: [Int: [History.Record]] = [:]
        for send in records { groups[scenario.benchID(send.sendID), default: []].append(send) }
        let grouped = scenario.client.explicitKeys != nil
        var counts = Counts()
        for (benchID, sends) in groups {
            let effectCount = counts.add(
                benchID: benchID, sends: sends, attempts: ledger.attempts(sendID: benchID),
                committedMessages: committedMessages, grouped: grouped)
            for send in sends { effects[send.sendID] = grouped ? nil : effectCount }
        }
        let known = Set(groups.keys)
        let unexpected =
            ledger.orphans.filter { ledger.records[$0].effect }.count
            + ledger.bySend.filter { !known.contains($0.key) }.values.joined().filter { ledger.records[$0].effect }
            .count
        let defects = ledger.records.filter { !$0.defects.isEmpty }.count

        let (keyOwners, sharedKeys) = ContractProperty.keyOwners(counts.keys)
        // The keys the SDK made (an explicit key pool's are the harness's own).
        let made = grouped ? [] : keyOwners.keys.map { ledger.keys[Int($0)] }
        let shape = KeyShape(made)

        var recorder = MetricRecorder(scenario: scenario.name)
        recorder.record(.idempotencyKeysNotV4, Double(shape.notV4))
        recorder.record(.idempotencyKeyBitBias, shape.bitBias)
        let figures: [(MetricKey, Int)] = [
            (.idempotencySends, records.count), (.idempotencyEffects, counts.totalEffects),
            (.idempotencyDuplicates, counts.duplicates), (.idempotencyLost, counts.lost),
            (.idempotencyUnexpected, unexpected), (.idempotencyFailWithEffect, counts.failWithEffect),
            (.idempotencyInfoWithEffect, counts.infoWithEffect), (.idempotencyMessageIDMismatches, counts.mismatches),
            (.idempotencyKeyChanges, counts.keyChanges), (.idempotencyKeylessSends, counts.keyless),
            (.idempotencyBodyChanges, counts.bodyChanges),
            (.idempotencyKeyCollisions, sharedKeys.count), (.idempotencyDefects, defects),
        ]
        for (key, value) in figures { recorder.record(key, Double(value)) }
        for verdict in [History.Record.Verdict.ok, .fail, .info, .dropped] {
            recorder.record(
                .idempotencyOutcome(verdict.rawValue), Double(records.filter { $0.verdict == verdict }.count))
        }
        rows = recorder.rows
        metrics = recorder.metrics
    }
}

/// Whether SDK-made idempotency keys look like random version-4 UUIDs (`ContractProperty.isVersion4`,
/// the check certify makes). Of the keys that are, each of the 122 random bits must be 1 in about half of them:
/// `bitBias` is the largest |ones − n/2| / √(n/4) over those bits (about the largest of 122
/// |N(0,1)|, under 4.5 in all but one run in 10,000 for a random source; a counter, a clock or a
/// hash of something shared leaves bits stuck and scores near √n).
struct KeyShape {
    var notV4 = 0
    var bitBias = Double.nan

    init(_ keys: [String]) {
        var ones = [Int](repeating: 0, count: 128)
        var valid = 0
        for key in keys {
            guard ContractProperty.isVersion4(key), let (high, low) = Self.v4Bits(key) else {
                notV4 += 1
                continue
            }
            valid += 1
            for bit in 0..<64 {
                if high >> (63 - UInt64(bit)) & 1 == 1 { ones[bit] += 1 }
                if low >> (63 - UInt64(bit)) & 1 == 1 { ones[64 + bit] += 1 }
            }
        }
        guard valid >= 2 else { return }
        let n = Double(valid)
        bitBias = Self.randomBits.map { abs(Double(ones[$0]) - n / 2) / (n / 4).squareRoot() }.max() ?? .nan
    }

    /// The 122 bit positions (0 = the first hex digit's top bit) that are random in a v4 UUID:
    /// all but the version nibble (48-51) and the variant's two bits (64-65).
    static let randomBits = (0..<128).filter { !(48...51).contains($0) && !(64...65).contains($0) }

    /// The key's 128 bits, when it is a version-4, variant-10 UUID in its 36-character form.
    static func v4Bits(_ key: String) -> (UInt64, UInt64)? {
        let utf8 = Array(key.utf8)
        guard utf8.count == 36 else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var digits = 0
        for (index, byte) in utf8.enumerated() {
            if [8, 13, 18, 23].contains(index) {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            let value: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            if digits < 16 { high = high << 4 | value } else { low = low << 4 | value }
            digits += 1
        }
        // Version: the 13th hex digit (bits 48-51); variant: the 17th digit's top two bits.
        guard (high >> 12) & 0xF == 4, low >> 62 == 0b10 else { return nil }
        return (high, low)
    }
}
