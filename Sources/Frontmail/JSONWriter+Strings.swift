import Foundation

// Strings: quoted, with the bytes RFC 8259 requires escaped, found eight at a time.
extension JSONWriter {
    package mutating func writeString(_ string: String) {
        writeQuoted(string, then: nil)
    }

    /// Writes `"string"` and then `suffix`, if any.
    mutating func writeQuoted(_ string: String, then suffix: UInt8?) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { writeQuoted($0, then: suffix) }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeQuoted($0, then: suffix) }
        }
    }

    /// Writes `utf8` in quotes: runs that need no escaping copied whole, between escapes. Room for
    /// everything but the escapes is made once; each escape makes room for itself and the rest.
    private mutating func writeQuoted(_ utf8: UnsafeBufferPointer<UInt8>, then suffix: UInt8?) {
        let length = utf8.count
        reserve(length + 3)
        appendReserved(UInt8(ascii: "\""))
        if let source = utf8.baseAddress {
            var runStart = 0
            var index = Self.firstEscape(source, length, from: 0)
            while index < length {
                appendReserved(source + runStart, index - runStart)
                reserve(6 + (length - index) + 2)
                writeEscape(source[index])
                runStart = index + 1
                index = Self.firstEscape(source, length, from: runStart)
            }
            appendReserved(source + runStart, length - runStart)
        }
        appendReserved(UInt8(ascii: "\""))
        if let suffix { appendReserved(suffix) }
    }

    /// The position of the first byte from `start` that needs escaping (a control byte, '"' or
    /// '\\'), or `length`. Eight bytes at a time: the lowest flagged byte of a word is exact. The
    /// last one to seven bytes are read as a word padded with 'A's: the string's last eight bytes
    /// shifted down, or (a string shorter than eight) in two or three overlapping loads.
    @inline(__always)
    static func firstEscape(_ source: UnsafePointer<UInt8>, _ length: Int, from start: Int) -> Int {
        var index = start
        while length - index >= 8 {
            let flags = needsEscape(loadWord(source + index))
            if flags != 0 { return index + flags.trailingZeroBitCount / 8 }
            index += 8
        }
        let remaining = length - index
        if remaining == 0 { return length }
        let word: UInt64
        let tail = source + index
        if length >= 8 {
            word = loadWord(source + length - 8) &>> UInt64(8 * (8 - remaining))
        } else if remaining >= 4 {
            // Two four-byte loads that overlap in the middle (the same bytes, so OR is exact).
            let low = UInt64(UInt32(littleEndian: UnsafeRawPointer(tail).loadUnaligned(as: UInt32.self)))
            let high = UInt64(
                UInt32(littleEndian: UnsafeRawPointer(tail + remaining - 4).loadUnaligned(as: UInt32.self)))
            word = low | high &<< UInt64(8 * (remaining - 4))
        } else {
            // The first, middle and last bytes cover one to three.
            word =
                UInt64(tail[0]) | UInt64(tail[remaining >> 1]) &<< UInt64(8 * (remaining >> 1))
                | UInt64(tail[remaining - 1]) &<< UInt64(8 * (remaining - 1))
        }
        let flags = needsEscape(word | padding &<< UInt64(8 * remaining))
        return flags == 0 ? length : index + flags.trailingZeroBitCount / 8
    }

    /// The escape sequence of one byte that needs escaping (room for six bytes made).
    private mutating func writeEscape(_ byte: UInt8) {
        appendReserved(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): appendReserved(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): appendReserved(UInt8(ascii: "\\"))
        case 0x0A: appendReserved(UInt8(ascii: "n"))
        case 0x0D: appendReserved(UInt8(ascii: "r"))
        case 0x09: appendReserved(UInt8(ascii: "t"))
        case 0x08: appendReserved(UInt8(ascii: "b"))
        case 0x0C: appendReserved(UInt8(ascii: "f"))
        default:
            let digits: StaticString = "0123456789abcdef"
            appendReserved(UInt8(ascii: "u"))
            appendReserved(UInt8(ascii: "0"))
            appendReserved(UInt8(ascii: "0"))
            appendReserved(digits.utf8Start[Int(byte >> 4)])
            appendReserved(digits.utf8Start[Int(byte & 0x0F)])
        }
    }

    private static let padding: UInt64 = 0x4141_4141_4141_4141

    /// Eight bytes from `address`, the first in the lowest byte.
    @inline(__always)
    private static func loadWord(_ address: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(address).loadUnaligned(as: UInt64.self))
    }

    /// The high bit of every byte of `word` that is below 0x20, '"' or '\\' (bytes above the first
    /// flagged one may be flagged falsely; the first is always right).
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        func zeroBytes(_ x: UInt64) -> UInt64 { (x &- ones) & ~x & highs }
        let control = (word &- ones &* 0x20) & ~word & highs
        return control | zeroBytes(word ^ (ones &* 0x22)) | zeroBytes(word ^ (ones &* 0x5C))
    }
}
