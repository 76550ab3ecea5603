import Foundation

/// Strings: escapes, `\u` sequences and surrogate pairs, checked UTF-8.
extension JSONReader {
    mutating func parseString() throws(ParseError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        let seen = skipPlainBytes()
        if current == UInt8(ascii: "\"") {
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
            position += 1
            if seen & Self.highBitsMask == 0 { return String(decoding: slice, as: UTF8.self) }
            guard let string = Self.validatedString(slice) else {
                position = start
                throw error("invalid UTF-8 in string")
            }
            return string
        }
        var scalars: [UInt8] = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = scalars.withUnsafeBufferPointer({ Self.validatedString($0) }) else {
                    throw error("invalid UTF-8 in string")
                }
                return string
            case UInt8(ascii: "\\"):
                position += 1
                try parseEscape(into: &scalars)
            case 0..<0x20:
                throw error("control character in string")
            default:
                scalars.append(byte)
                position += 1
            }
        }
        throw error("unterminated string")
    }

    private mutating func parseEscape(into output: inout [UInt8]) throws(ParseError) {
        let scalar = try parseEscapedScalar()
        if scalar.isASCII {
            output.append(UInt8(scalar.value))
        } else {
            output.append(contentsOf: String(Character(scalar)).utf8)
        }
    }

    /// The scalar an escape stands for (the reader just past its backslash).
    mutating func parseEscapedScalar() throws(ParseError) -> Unicode.Scalar {
        guard let byte = current else { throw error("unterminated escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(byte)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count,
                    bytes[position + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate") }
                position += 2
                let low = try parseHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("unpaired surrogate")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid unicode escape") }
            return unicode
        default:
            position -= 1
            throw error("invalid escape")
        }
    }

    private mutating func parseHex4() throws(ParseError) -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("unterminated unicode escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
