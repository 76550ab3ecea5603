import Foundation

/// Numbers and single bytes.
extension JSONWriter {
    /// Bytes that are already valid JSON (punctuation, literals).
    package mutating func writeRaw(_ text: StaticString) {
        append(text.utf8Start, text.utf8CodeUnitCount)
    }

    package mutating func writeByte(_ byte: UInt8) {
        append(byte)
    }

    package mutating func writeInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            append(UInt8(truncatingIfNeeded: value) &+ 48)
            return
        }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var position = 20
            repeat {
                position -= 1
                digits[position] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
                magnitude /= 10
            } while magnitude != 0
            if value < 0 { append(UInt8(ascii: "-")) }
            append(digits.baseAddress! + position, 20 - position)
        }
    }

    package mutating func writeDouble(_ value: Double) throws(NonFiniteNumber) {
        guard value.isFinite else { throw NonFiniteNumber(path: [], value: value) }
        // Swift's description is the shortest string that round-trips, and always valid JSON
        // for finite values ("0.5", "1e-05", "1e+16", "-0.0").
        var text = value.description
        text.withUTF8 { append($0.baseAddress!, $0.count) }
    }
}
