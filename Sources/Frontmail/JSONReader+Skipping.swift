// Reading a document member by member, and checking values without building them.

extension JSONReader {
    /// Validates `bytes` as one JSON value. When it is an object, hands `member` each key in document
    /// order with the reader at the start of its value, which `member` must read with `value()`,
    /// `skip()` or `members(_:)`; returns whether it was an object (any other value is only checked).
    package static func readObject(
        _ bytes: UnsafeBufferPointer<UInt8>, _ member: (String, inout JSONReader) throws(ParseError) -> Void
    ) throws(ParseError) -> Bool {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        let isObject = try reader.members(member)
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.error("unexpected data after the value") }
        return isObject
    }

    /// The value at the reader, built.
    package mutating func value() throws(ParseError) -> FrontmailValue {
        try parseValue(depth: valueDepth)
    }

    /// Checks the value at the reader as `value()` would, without building it.
    package mutating func skip() throws(ParseError) {
        try skipValue(depth: valueDepth)
    }

    /// Whether the value at the reader is `null` (it is not read).
    package var isAtNull: Bool { current == UInt8(ascii: "n") }

    /// When the value at the reader is an object, hands `member` its members as `readObject` does and
    /// returns true; any other value is skipped, and the answer is false.
    package mutating func members(
        _ member: (String, inout JSONReader) throws(ParseError) -> Void
    ) throws(ParseError) -> Bool {
        guard current == UInt8(ascii: "{") else {
            try skipValue(depth: valueDepth)
            return false
        }
        try parseObjectMembers(depth: valueDepth + 1, member)
        return true
    }

    /// `parseValue` without building: the same checks, the same errors.
    mutating func skipValue(depth: Int) throws(ParseError) {
        switch current {
        case UInt8(ascii: "{"):
            try parseObjectMembers(depth: depth + 1) { _, reader throws(ParseError) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            try parseArrayElements(depth: depth + 1) { reader throws(ParseError) in
                try reader.skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "\""):
            try skipString()
        default:
            _ = try parseValue(depth: depth)
        }
    }

    /// `parseString` without building the string: the same checks, no allocation.
    private mutating func skipString() throws(ParseError) {
        position += 1
        let start = position
        var highBits: UInt64 = 0
        while true {
            highBits |= skipPlainBytes()
            guard let byte = current else { throw error("unterminated string") }
            if byte == UInt8(ascii: "\"") {
                // Escapes are ASCII and decode to whole scalars, so the raw bytes are valid UTF-8
                // exactly when the decoded ones are.
                if highBits & Self.highBitsMask != 0
                    && !Self.isValidUTF8(UnsafeBufferPointer(rebasing: bytes[start..<position]))
                {
                    position = start
                    throw error("invalid UTF-8 in string")
                }
                position += 1
                return
            }
            if byte < 0x20 { throw error("control character in string") }
            position += 1
            _ = try parseEscapedScalar()
        }
    }

    static let highBitsMask: UInt64 = 0x8080_8080_8080_8080

    /// Moves past bytes that need no attention in a string (not `"`, `\`, or a control character),
    /// eight at a time while eight are left; returns the OR of the bytes passed (its high bits say
    /// whether any was not ASCII).
    mutating func skipPlainBytes() -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        var seen: UInt64 = 0
        if let base = bytes.baseAddress {
            while position + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                // A byte equal to b makes (x ^ b·ones) zero there; x − n·ones & ~x has a high bit
                // set exactly when some byte of x is below n (as a whole: which bit is not exact).
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                let special =
                    ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                if special & Self.highBitsMask != 0 { break }
                seen |= word
                position += 8
            }
        }
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 {
            seen |= UInt64(byte)
            position += 1
        }
        return seen
    }

    private static func isValidUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}
