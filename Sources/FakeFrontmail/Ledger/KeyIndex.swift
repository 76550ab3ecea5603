import Foundation

/// Strings numbered 0, 1, 2, … in the order they were first seen, found again by their 64-bit
/// fingerprint (`Fingerprint.of`) in an open-addressed table.
///
/// The fake's idempotency store and the ledger's key table each held a `[String: …]` dictionary: every
/// lookup hashed the 36-byte key with SipHash, and every growth hashed all of them again. Here the
/// caller hands in the fingerprint it already computed, a lookup compares it in the table and the
/// string only on a fingerprint match, and growth moves stored fingerprints. Keys are told apart by
/// their bytes, as an HTTP server compares header values (two spellings of one canonical string are
/// two keys).
package struct KeyIndex: Sendable {
    /// The keys by number.
    package private(set) var keys: [String] = []
    /// Slots hold a number + 1 (0 is empty) and the key's fingerprint; the count is a power of two.
    private var slots: [Slot]
    private var shift: UInt64

    private struct Slot: Sendable {
        var fingerprint: UInt64 = 0
        var numberPlusOne: UInt32 = 0
    }

    /// Room for `capacity` keys before the table first grows.
    package init(capacity: Int = 16) {
        var size = 16
        while size / 4 * 3 < capacity { size *= 2 }
        slots = Array(repeating: Slot(), count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        keys.reserveCapacity(capacity)
    }

    /// Numbers `keys` by their places, 0, 1, … (a table read back). A repeated key keeps its place in
    /// `keys`, and `number(of:)` finds its first.
    package init(_ keys: some Sequence<String>) {
        self.init()
        for key in keys {
            let fingerprint = Fingerprint.of(key)
            append(key, fingerprint: fingerprint, findable: number(of: key, fingerprint: fingerprint) == nil)
        }
    }

    package var count: Int { keys.count }

    /// The number of `key`, whose fingerprint is `fingerprint`; nil when it was never inserted.
    package func number(of key: String, fingerprint: UInt64) -> Int? {
        var slot = home(fingerprint)
        let mask = slots.count - 1
        while true {
            let entry = slots[slot]
            if entry.numberPlusOne == 0 { return nil }
            let number = Int(entry.numberPlusOne - 1)
            if entry.fingerprint == fingerprint && Self.sameBytes(keys[number], key) { return number }
            slot = (slot + 1) & mask
        }
    }

    /// The number of `key`, given it now if it had none (`inserted`).
    package mutating func insert(_ key: String, fingerprint: UInt64) -> (number: Int, inserted: Bool) {
        if let number = number(of: key, fingerprint: fingerprint) { return (number, false) }
        append(key, fingerprint: fingerprint, findable: true)
        return (keys.count - 1, true)
    }

    private mutating func append(_ key: String, fingerprint: UInt64, findable: Bool) {
        if (keys.count + 1) * 4 > slots.count * 3 { grow() }
        keys.append(key)
        if findable { place(fingerprint, UInt32(keys.count)) }
    }

    private func home(_ fingerprint: UInt64) -> Int {
        // Fibonacci hashing: the product's top bits spread FNV's weak low bits over the table.
        Int(truncatingIfNeeded: (fingerprint &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func place(_ fingerprint: UInt64, _ numberPlusOne: UInt32) {
        var slot = home(fingerprint)
        let mask = slots.count - 1
        while slots[slot].numberPlusOne != 0 { slot = (slot + 1) & mask }
        slots[slot] = Slot(fingerprint: fingerprint, numberPlusOne: numberPlusOne)
    }

    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        shift -= 1
        for entry in old where entry.numberPlusOne != 0 { place(entry.fingerprint, entry.numberPlusOne) }
    }

    private static func sameBytes(_ lhs: String, _ rhs: String) -> Bool {
        var lhs = lhs
        var rhs = rhs
        return lhs.withUTF8 { left in
            rhs.withUTF8 { right in
                left.count == right.count
                    && (left.isEmpty || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0)
            }
        }
    }
}
