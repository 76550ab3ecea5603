import Foundation

/// A strict RFC 8259 parser into `FrontmailValue`.
///
/// Integers that fit in `Int` stay `.integer`; every other number is `.double`. Nesting is limited
/// (`maxDepth`) so hostile input cannot exhaust the stack.
package struct JSONReader {
    package struct ParseError: Error, Equatable, CustomStringConvertible {
        package var offset: Int
        package var reason: String
        package var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    package static let maxDepth = 256
    /// The members an object makes room for when its first one arrives.
    static let objectCapacity = 6

    package static func parse(_ data: Data) throws(ParseError) -> FrontmailValue {
        var outcome = Result<FrontmailValue, ParseError>.failure(ParseError(offset: 0, reason: "no input"))
        data.withUnsafeBytes { raw in
            do throws(ParseError) {
                let buffer = UnsafeBufferPointer(
                    start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
                outcome = .success(try parse(buffer))
            } catch {
                outcome = .failure(error)
            }
        }
        return try outcome.get()
    }

    package static func parse(_ text: String) throws(ParseError) -> FrontmailValue {
        try parse(Data(text.utf8))
    }

    package static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(ParseError) -> FrontmailValue {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        let value = try reader.parseValue(depth: 0)
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw reader.error("unexpected data after the value") }
        return value
    }

    /// Validates `data` as JSON and hands `found` the top-level members whose keys are in `names`
    /// (their index there and their value, in document order; a repeated key is handed again), without
    /// building the rest. Returns false when the value is not an object.
    package static func members(
        named names: [String], in data: Data, _ found: (Int, FrontmailValue) -> Void
    ) throws(ParseError) -> Bool {
        var outcome = Result<Bool, ParseError>.failure(ParseError(offset: 0, reason: "no input"))
        data.withUnsafeBytes { raw in
            do throws(ParseError) {
                let buffer = UnsafeBufferPointer(
                    start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count)
                outcome = .success(
                    try readObject(buffer) { key, reader throws(ParseError) in
                        if let index = names.firstIndex(of: key) {
                            found(index, try reader.value())
                        } else {
                            try reader.skip()
                        }
                    })
            } catch {
                outcome = .failure(error)
            }
        }
        return try outcome.get()
    }

    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0
    /// The depth of the value a member handler is handed (for `value()`, `skip()`, `members(_:)`).
    var valueDepth = 0

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> ParseError {
        ParseError(offset: position, reason: reason)
    }

    var current: UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(ParseError) -> FrontmailValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth + 1)
        case UInt8(ascii: "["): return try parseArray(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw error("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(ParseError) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[position + offset] != literal.utf8Start[offset] {
            throw error("invalid literal")
        }
        position += count
    }

    private mutating func parseObject(depth: Int) throws(ParseError) -> FrontmailValue {
        var members: [String: FrontmailValue] = [:]
        try parseObjectMembers(depth: depth) { key, reader throws(ParseError) in
            // Room for a small object at once, not grown one step per member (1, 3, 6, …).
            if members.isEmpty { members.reserveCapacity(Self.objectCapacity) }
            members[key] = try reader.parseValue(depth: depth)
        }
        return .object(members)
    }

    /// Reads an object from its `{` to its `}`, handing `member` each key with the reader at the
    /// start of its value (which `member` must read).
    mutating func parseObjectMembers(
        depth: Int, _ member: (String, inout JSONReader) throws(ParseError) -> Void
    ) throws(ParseError) {
        try parseElements(depth: depth, closing: UInt8(ascii: "}")) { reader throws(ParseError) in
            guard reader.current == UInt8(ascii: "\"") else { throw reader.error("expected a string key") }
            let key = try reader.parseString()
            reader.skipWhitespace()
            guard reader.current == UInt8(ascii: ":") else { throw reader.error("expected ':'") }
            reader.position += 1
            reader.skipWhitespace()
            reader.valueDepth = depth
            try member(key, &reader)
        }
    }

    private mutating func parseArray(depth: Int) throws(ParseError) -> FrontmailValue {
        var elements: [FrontmailValue] = []
        try parseArrayElements(depth: depth) { reader throws(ParseError) in
            elements.append(try reader.parseValue(depth: depth))
        }
        return .array(elements)
    }

    /// Reads an array from its `[` to its `]`, handing `element` the reader at the start of each
    /// element (which `element` must read).
    mutating func parseArrayElements(
        depth: Int, _ element: (inout JSONReader) throws(ParseError) -> Void
    ) throws(ParseError) {
        try parseElements(depth: depth, closing: UInt8(ascii: "]"), element)
    }

    /// Reads a container from its opening bracket to `closing`, handing `element` the reader at the
    /// start of each element (which `element` must read) and checking the commas between them.
    private mutating func parseElements(
        depth: Int, closing: UInt8, _ element: (inout JSONReader) throws(ParseError) -> Void
    ) throws(ParseError) {
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth)") }
        position += 1
        skipWhitespace()
        if current == closing {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            try element(&self)
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case closing?:
                position += 1
                return
            case nil: throw error("unexpected end of input")
            default: throw error("expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            }
        }
    }

    private mutating func parseNumber() throws(ParseError) -> FrontmailValue {
        let start = position
        var isInteger = true
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            throw error("expected a digit")
        }
        if first == UInt8(ascii: "0") {
            position += 1
        } else {
            skipDigits()
        }
        if current == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard skipDigits() > 0 else { throw error("expected a digit after '.'") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard skipDigits() > 0 else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if isInteger, let integer = Int(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            position = start
            throw error("number out of range")
        }
        return .double(double)
    }

    /// The bytes as a string, or nil when they are not valid UTF-8 (no repair, unlike `String(decoding:)`).
    static func validatedString(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var ascii = true
        for byte in bytes where byte >= 0x80 {
            ascii = false
            break
        }
        if ascii { return String(decoding: bytes, as: UTF8.self) }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            return String(validating: bytes, as: UTF8.self)
        }
        let string = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces invalid sequences with U+FFFD; valid input comes back byte for byte.
        return string.utf8.elementsEqual(bytes) ? string : nil
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = position
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
        return position - start
    }
}
