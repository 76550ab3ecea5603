import Foundation

/// SplitMix64: small, fast and good enough to drive fault decisions reproducibly.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    /// A generator for one decision, independent of the order requests arrive in.
    public init(seed: UInt64, mixing values: UInt64...) {
        var state = seed
        for value in values {
            state = Self.mix(state ^ value &+ 0x9E37_79B9_7F4A_7C15)
        }
        self.state = state
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// Uniform in [0, 1).
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// FNV-1a, 64 bits: a stable fingerprint of bytes (the same in every process).
public enum Fingerprint {
    public static func of(_ bytes: some Sequence<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }

    public static func of(_ text: String) -> UInt64 { of(text.utf8) }
}
