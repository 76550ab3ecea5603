import Foundation

/// The key a send gets when the caller gives none: a random UUID v4.
extension Frontmail {
    /// A random UUID v4 in lowercase (36 characters): 122 bits of the system's random generator,
    /// written straight into the string (`UUID().uuidString.lowercased()` reads /dev/urandom through
    /// a file of its own on Linux and formats through `snprintf`, then copies the string to lowercase).
    static func makeIdempotencyKey(_ random: (UInt64, UInt64) = randomWords()) -> String {
        // Bytes 0-7 and 8-15 of the UUID, most significant first; the version nibble (4) is the
        // high nibble of byte 6, the variant bits (10) the top of byte 8.
        let high = (random.0 & ~0xF000) | 0x4000
        let low = (random.1 & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        return String(unsafeUninitializedCapacity: 36) { buffer in
            let digits: StaticString = "0123456789abcdef"
            var index = 0
            func write(_ value: UInt64, nibbles: ClosedRange<Int>) {
                for nibble in nibbles {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        buffer[index] = UInt8(ascii: "-")
                        index += 1
                    }
                    buffer[index] = digits.utf8Start[Int((value >> UInt64(60 - 4 * nibble)) & 0xF)]
                    index += 1
                }
            }
            write(high, nibbles: 0...15)
            write(low, nibbles: 0...15)
            return index
        }
    }

    /// Sixteen bytes of the system's random generator: from the `EntropyPool` on Linux (a system
    /// call per sixteen keys; `SystemRandomNumberGenerator` makes one per eight bytes).
    static func randomWords() -> (UInt64, UInt64) {
        var words: (UInt64, UInt64) = (0, 0)
        #if os(Linux)
            if let pooled = EntropyPool.take16() { return pooled }
            if withUnsafeMutableBytes(of: &words, { getentropy($0.baseAddress, $0.count) }) == 0 { return words }
        #elseif canImport(Darwin)
            withUnsafeMutableBytes(of: &words) { arc4random_buf($0.baseAddress, $0.count) }
            return words
        #endif
        var generator = SystemRandomNumberGenerator()
        return (generator.next(), generator.next())
    }
}
