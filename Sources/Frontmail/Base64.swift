/// Standard base64 (RFC 4648 §4, with padding) written straight into a caller's buffer.
package enum Base64 {
    package static func encodedCount(_ byteCount: Int) -> Int {
        ((byteCount + 2) / 3) * 4
    }

    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes `input` into `output`, which must hold exactly `encodedCount(input.count)` bytes.
    package static func encode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableBufferPointer<UInt8>) {
        precondition(output.count == encodedCount(input.count), "base64 output buffer has the wrong size")
        guard let source = input.baseAddress, let target = output.baseAddress else { return }
        alphabet.withUnsafeBufferPointer { table in
            let table = table.baseAddress!
            let fullGroups = input.count / 3
            var inIndex = 0
            var outIndex = 0
            for _ in 0..<fullGroups {
                let b0 = UInt32(source.load(fromByteOffset: inIndex, as: UInt8.self))
                let b1 = UInt32(source.load(fromByteOffset: inIndex + 1, as: UInt8.self))
                let b2 = UInt32(source.load(fromByteOffset: inIndex + 2, as: UInt8.self))
                let group = (b0 << 16) | (b1 << 8) | b2
                target[outIndex] = table[Int((group >> 18) & 0x3F)]
                target[outIndex + 1] = table[Int((group >> 12) & 0x3F)]
                target[outIndex + 2] = table[Int((group >> 6) & 0x3F)]
                target[outIndex + 3] = table[Int(group & 0x3F)]
                inIndex += 3
                outIndex += 4
            }
            let remaining = input.count - inIndex
            if remaining > 0 {
                let b0 = UInt32(source.load(fromByteOffset: inIndex, as: UInt8.self))
                let b1 = remaining > 1 ? UInt32(source.load(fromByteOffset: inIndex + 1, as: UInt8.self)) : 0
                let group = (b0 << 16) | (b1 << 8)
                target[outIndex] = table[Int((group >> 18) & 0x3F)]
                target[outIndex + 1] = table[Int((group >> 12) & 0x3F)]
                target[outIndex + 2] = remaining > 1 ? table[Int((group >> 6) & 0x3F)] : UInt8(ascii: "=")
                target[outIndex + 3] = UInt8(ascii: "=")
            }
        }
    }
}
