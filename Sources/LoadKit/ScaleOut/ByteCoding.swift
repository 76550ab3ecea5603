import Foundation

/// Little-endian bytes for a shard's raw results: fixed-width numbers (doubles bit for bit) and
/// length-prefixed UTF-8 strings.
struct ByteWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 0) { bytes.reserveCapacity(capacity) }

    mutating func u8(_ value: UInt8) { bytes.append(value) }
    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    mutating func u16(_ value: UInt16) { append(value) }
    mutating func u32(_ value: UInt32) { append(value) }
    mutating func u64(_ value: UInt64) { append(value) }
    mutating func int(_ value: Int) { append(Int64(value)) }
    mutating func f64(_ value: Double) { append(value.bitPattern) }
    mutating func f32(_ value: Float) { append(value.bitPattern) }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            u32(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    mutating func optionalString(_ value: String?) {
        bool(value != nil)
        if let value { string(value) }
    }

    mutating func raw(_ other: [UInt8]) { bytes.append(contentsOf: other) }

    private mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
}

/// Reads what `ByteWriter` wrote; every read is bounds-checked and a short or malformed input
/// throws (never traps), so a damaged file is reported, not crashed on.
struct ByteReader {
    struct Malformed: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func u8() throws(Malformed) -> UInt8 { try fixed() }
    mutating func u16() throws(Malformed) -> UInt16 { try fixed() }
    mutating func u32() throws(Malformed) -> UInt32 { try fixed() }
    mutating func u64() throws(Malformed) -> UInt64 { try fixed() }
    mutating func f64() throws(Malformed) -> Double { Double(bitPattern: try fixed()) }
    mutating func f32() throws(Malformed) -> Float { Float(bitPattern: try fixed()) }

    mutating func bool() throws(Malformed) -> Bool {
        let value = try u8()
        guard value <= 1 else { throw Malformed(offset: offset - 1, reason: "a flag of \(value), not 0 or 1") }
        return value == 1
    }

    mutating func int() throws(Malformed) -> Int {
        let value: Int64 = try fixed()
        return Int(value)
    }

    /// A count of items each at least `itemSize` bytes long, checked against what is left.
    mutating func count(itemSize: Int) throws(Malformed) -> Int {
        let value = try int()
        guard value >= 0, value <= remaining / max(1, itemSize) else {
            throw Malformed(
                offset: offset - 8, reason: "a count of \(value) that the \(remaining) bytes left cannot hold")
        }
        return value
    }

    mutating func string() throws(Malformed) -> String {
        let length = Int(try u32())
        guard length <= remaining else {
            throw Malformed(offset: offset - 4, reason: "a string of \(length) bytes past the end")
        }
        defer { offset += length }
        return String(decoding: bytes[offset..<offset + length], as: UTF8.self)
    }

    mutating func optionalString() throws(Malformed) -> String? {
        try bool() ? try string() : nil
    }

    mutating func bytes(_ length: Int) throws(Malformed) -> ArraySlice<UInt8> {
        guard length >= 0, length <= remaining else {
            throw Malformed(offset: offset, reason: "\(length) bytes past the end")
        }
        defer { offset += length }
        return bytes[offset..<offset + length]
    }

    private mutating func fixed<T: FixedWidthInteger>() throws(Malformed) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw Malformed(offset: offset, reason: "the file ends early") }
        var value = T.zero
        for shift in 0..<size { value |= T(truncatingIfNeeded: bytes[offset + shift]) << (8 * shift) }
        offset += size
        return value
    }
}
