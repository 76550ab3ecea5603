import Foundation

/// A JSON document as written (RFC 8259), read by the suite's own parser: numbers keep their text,
/// object members their order and duplicates, strings their exact scalars. The payload oracle
/// reads bodies with it instead of the SDK's reader, and instead of Foundation's
/// `JSONSerialization`, which on Linux reads about one double in forty one unit in the last place
/// off (`Double(text)` is correctly rounded).
indirect enum JSONText: Equatable {
    case object([(name: String, value: JSONText)])
    case array([JSONText])
    case string(String)
    case number(String)
    case bool(Bool)
    case null

    struct Malformed: Error, Equatable {
        var offset: Int
        var reason: String
    }

    static func == (lhs: JSONText, rhs: JSONText) -> Bool {
        switch (lhs, rhs) {
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        case (.array(let a), .array(let b)): return a == b
        case (.string(let a), .string(let b)): return Array(a.unicodeScalars) == Array(b.unicodeScalars)
        case (.number(let a), .number(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// Parses a whole document (white space around it allowed, nothing after it). Nesting deeper
    /// than 512 is refused rather than recursed into.
    static func parse(_ bytes: [UInt8]) throws(Malformed) -> JSONText {
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        reader.skipSpace()
        guard reader.offset == bytes.count else { throw reader.fail("text after the document") }
        return value
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        func fail(_ reason: String) -> Malformed { Malformed(offset: offset, reason: reason) }

        mutating func skipSpace() {
            while offset < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[offset]) { offset += 1 }
        }

        mutating func expect(_ literal: String) throws(Malformed) {
            for byte in literal.utf8 {
                guard offset < bytes.count, bytes[offset] == byte else { throw fail("expected \(literal)") }
                offset += 1
            }
        }

        mutating func value(depth: Int) throws(Malformed) -> JSONText {
            guard depth <= 512 else { throw fail("nested deeper than 512") }
            skipSpace()
            guard offset < bytes.count else { throw fail("a value is missing") }
            switch bytes[offset] {
            case UInt8(ascii: "{"):
                offset += 1
                var members: [(name: String, value: JSONText)] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    return .object(members)
                }
                while true {
                    skipSpace()
                    let name = try string()
                    skipSpace()
                    try expect(":")
                    members.append((name, try value(depth: depth + 1)))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("an object is not closed") }
                    offset += 1
                    if bytes[offset - 1] == UInt8(ascii: "}") { return .object(members) }
                    guard bytes[offset - 1] == UInt8(ascii: ",") else { throw fail("expected , or }") }
                }
            case UInt8(ascii: "["):
                offset += 1
                var items: [JSONText] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    return .array(items)
                }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard offset < bytes.count else { throw fail("an array is not closed") }
                    offset += 1
                    if bytes[offset - 1] == UInt8(ascii: "]") { return .array(items) }
                    guard bytes[offset - 1] == UInt8(ascii: ",") else { throw fail("expected , or ]") }
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try expect("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try expect("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try expect("null")
                return .null
            default: return .number(try number())
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, as written.
        mutating func number() throws(Malformed) -> String {
            let start = offset
            func digits() -> Int {
                let first = offset
                while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                    offset += 1
                }
                return offset - first
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            let whole = digits()
            guard whole > 0, whole == 1 || bytes[offset - whole] != UInt8(ascii: "0") else {
                throw fail("not a number")
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard digits() > 0 else { throw fail("a fraction needs digits") }
            }
            if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                    offset += 1
                }
                guard digits() > 0 else { throw fail("an exponent needs digits") }
            }
            return String(decoding: bytes[start..<offset], as: UTF8.self)
        }

        mutating func string() throws(Malformed) -> String {
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a string") }
            offset += 1
            var scalars = String.UnicodeScalarView()
            var run = offset
            func flush(_ end: Int) throws(Malformed) {
                guard end > run else { return }
                guard let text = String(bytes: bytes[run..<end], encoding: .utf8) else { throw fail("invalid UTF-8") }
                scalars.append(contentsOf: text.unicodeScalars)
            }
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    try flush(offset)
                    offset += 1
                    return String(scalars)
                }
                guard byte >= 0x20 else { throw fail("a control character in a string") }
                guard byte == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                try flush(offset)
                offset += 1
                guard offset < bytes.count else { break }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var unit = try hex4()
                    if (0xD800..<0xDC00).contains(unit) {
                        try expect("\\u")
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw fail("a lone high surrogate") }
                        unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(unit) else { throw fail("a lone low surrogate") }
                    scalars.append(scalar)
                default: throw fail("an unknown escape")
                }
                run = offset
            }
            throw fail("a string is not closed")
        }

        mutating func hex4() throws(Malformed) -> UInt32 {
            guard offset + 4 <= bytes.count, bytes[offset..<offset + 4].allSatisfy({ $0.isHexDigit }),
                let value = UInt32(String(decoding: bytes[offset..<offset + 4], as: UTF8.self), radix: 16)
            else { throw fail("\\u needs four hex digits") }
            offset += 4
            return value
        }
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self)
            || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self | 0x20)
    }
}
