import Frontmail

/// The fake's own strict reader of JSON text (RFC 8259): it validates every byte of a request body
/// or an input file and builds only the values asked for. Written apart from the SDK's reader, so
/// what the fake reads from a client (the `bench_send_id` every verdict groups requests by, the
/// members it judges) is never read by the code it judges.
///
/// Nesting deeper than `maxDepth` is refused, so hostile input cannot exhaust the stack; a number
/// that is not finite as a double is refused too.
struct JSONScanner {
    /// Where the text stops being JSON, and why.
    struct Failure: Error, Equatable {
        var offset: Int
        var reason: String
    }

    static let maxDepth = 256

    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0
    /// How many arrays and objects enclose the value at `position`.
    private var depth = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Checks that `bytes` are one JSON value with only whitespace around it.
    static func validate(_ bytes: UnsafeBufferPointer<UInt8>) throws(Failure) {
        var scanner = JSONScanner(bytes)
        scanner.skipSpace()
        try scanner.skip()
        try scanner.end()
    }

    /// Reads `bytes` as one JSON value: when it is an object, `member` is handed each key and the
    /// scanner at its value, which it must read (`value`, `skip` or `members`); any other value is
    /// checked and false returned.
    static func readObject(
        _ bytes: UnsafeBufferPointer<UInt8>, _ member: (String, inout JSONScanner) throws(Failure) -> Void
    ) throws(Failure) -> Bool {
        var scanner = JSONScanner(bytes)
        scanner.skipSpace()
        let isObject = try scanner.members(member)
        try scanner.end()
        return isObject
    }

    /// True when the value here is `null`.
    var isAtNull: Bool { byte(at: position) == UInt8(ascii: "n") }

    /// The value here, built.
    mutating func value() throws(Failure) -> FrontmailValue {
        switch byte(at: position) {
        case UInt8(ascii: "{")?:
            var object: [String: FrontmailValue] = [:]
            _ = try members { key, scanner throws(Failure) in object[key] = try scanner.value() }
            return .object(object)
        case UInt8(ascii: "[")?:
            var elements: [FrontmailValue] = []
            try elementsOfArray { scanner throws(Failure) in elements.append(try scanner.value()) }
            return .array(elements)
        case UInt8(ascii: "\"")?:
            return .string(try string())
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?:
            return try number()
        default:
            return try literal()
        }
    }

    /// Steps over the value here, checking it.
    mutating func skip() throws(Failure) {
        switch byte(at: position) {
        case UInt8(ascii: "{")?: _ = try members { _, scanner throws(Failure) in try scanner.skip() }
        case UInt8(ascii: "[")?: try elementsOfArray { scanner throws(Failure) in try scanner.skip() }
        case UInt8(ascii: "\"")?: try stepOverString()
        case UInt8(ascii: "-")?, (UInt8(ascii: "0")...UInt8(ascii: "9"))?: _ = try number()
        default: _ = try literal()
        }
    }

    /// When the value here is an object, hands `member` each key and the scanner at its value
    /// (which it must read) and returns true; any other value is stepped over and false returned.
    mutating func members(_ member: (String, inout JSONScanner) throws(Failure) -> Void) throws(Failure) -> Bool {
        guard byte(at: position) == UInt8(ascii: "{") else {
            try skip()
            return false
        }
        try enter()
        skipSpace()
        if byte(at: position) == UInt8(ascii: "}") {
            position += 1
            depth -= 1
            return true
        }
        while true {
            guard byte(at: position) == UInt8(ascii: "\"") else { throw failure("a member's key must be a string") }
            let key = try string()
            skipSpace()
            guard byte(at: position) == UInt8(ascii: ":") else { throw failure("expected ':' after a key") }
            position += 1
            skipSpace()
            try member(key, &self)
            skipSpace()
            switch byte(at: position) {
            case UInt8(ascii: ",")?:
                position += 1
                skipSpace()
            case UInt8(ascii: "}")?:
                position += 1
                depth -= 1
                return true
            default:
                throw failure("expected ',' or '}' in an object")
            }
        }
    }

    private mutating func elementsOfArray(_ element: (inout JSONScanner) throws(Failure) -> Void) throws(Failure) {
        try enter()
        skipSpace()
        if byte(at: position) == UInt8(ascii: "]") {
            position += 1
            depth -= 1
            return
        }
        while true {
            try element(&self)
            skipSpace()
            switch byte(at: position) {
            case UInt8(ascii: ",")?:
                position += 1
                skipSpace()
            case UInt8(ascii: "]")?:
                position += 1
                depth -= 1
                return
            default:
                throw failure("expected ',' or ']' in an array")
            }
        }
    }

    /// Steps into an array or object (at its bracket).
    private mutating func enter() throws(Failure) {
        guard depth < Self.maxDepth else { throw failure("nested deeper than \(Self.maxDepth)") }
        depth += 1
        position += 1
    }

    private mutating func end() throws(Failure) {
        skipSpace()
        guard position == bytes.count else { throw failure("more after the value") }
    }

    @inline(__always)
    private func byte(at index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: position, reason: position < bytes.count ? reason : "the text ends early")
    }

    private mutating func skipSpace() {
        while let byte = byte(at: position), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            position += 1
        }
    }

    private mutating func literal() throws(Failure) -> FrontmailValue {
        switch byte(at: position) {
        case UInt8(ascii: "t")?:
            try word("true")
            return .bool(true)
        case UInt8(ascii: "f")?:
            try word("false")
            return .bool(false)
        case UInt8(ascii: "n")?:
            try word("null")
            return .null
        default:
            throw failure("not a JSON value")
        }
    }

    /// Steps over `word` here, or fails.
    private mutating func word(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw failure("not a JSON value") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw failure("not a JSON value")
        }
        position += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`: an integer when it has neither a
    /// fraction nor an exponent and fits `Int`, a double otherwise (refused when not finite).
    private mutating func number() throws(Failure) -> FrontmailValue {
        let start = position
        if byte(at: position) == UInt8(ascii: "-") { position += 1 }
        guard let lead = byte(at: position), isDigit(lead) else { throw failure("a number needs a digit") }
        position += 1
        if lead != UInt8(ascii: "0") { digits() }
        var whole = true
        if byte(at: position) == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw failure("a fraction needs a digit") }
            whole = false
        }
        if let mark = byte(at: position), mark == UInt8(ascii: "e") || mark == UInt8(ascii: "E") {
            position += 1
            if let sign = byte(at: position), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("an exponent needs a digit") }
            whole = false
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        if whole, let integer = Int(text) { return .integer(integer) }
        guard let double = Double(text), double.isFinite else {
            position = start
            throw failure("a number too large for a double")
        }
        return .double(double)
    }

    @discardableResult
    private mutating func digits() -> Int {
        let start = position
        while let byte = byte(at: position), isDigit(byte) { position += 1 }
        return position - start
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The string here (at its quote), its escapes decoded and its UTF-8 checked.
    private mutating func string() throws(Failure) -> String {
        let start = position + 1
        if let end = try plainRun(), byte(at: end) == UInt8(ascii: "\"") {
            position = end + 1
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        position = start
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        while let byte = byte(at: position) {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
                return String(scalars)
            case UInt8(ascii: "\\"):
                scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
                pending.removeAll(keepingCapacity: true)
                scalars.append(try escape())
            default:
                let end = try utf8Sequence()
                pending.append(contentsOf: bytes[position..<end])
                position = end
            }
        }
        throw failure("a string must end with '\"'")
    }

    /// Steps over the string here, checking its escapes and UTF-8.
    private mutating func stepOverString() throws(Failure) {
        position += 1
        while let byte = byte(at: position) {
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return
            case UInt8(ascii: "\\"): _ = try escape()
            case 0x20..<0x80: position += 1
            default: position = try utf8Sequence()
            }
        }
        throw failure("a string must end with '\"'")
    }

    /// From the character after the quote here: the index of the first quote or backslash when
    /// every character before it is valid (the bytes between then need no decoding), else nil.
    private mutating func plainRun() throws(Failure) -> Int? {
        let quote = position
        position += 1
        defer { position = quote }
        while let byte = byte(at: position), byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            if byte >= 0x20 && byte < 0x80 {
                position += 1
            } else {
                position = try utf8Sequence()
            }
        }
        return position < bytes.count ? position : nil
    }

    /// The end of the one character at `position` (not a quote or backslash): a byte of 0x20 or
    /// more, or a well-formed UTF-8 sequence (no overlong form, no surrogate, at most U+10FFFF).
    private func utf8Sequence() throws(Failure) -> Int {
        guard let lead = byte(at: position) else { throw failure("a string must end with '\"'") }
        if lead < 0x20 { throw failure("a control character must be escaped in a string") }
        if lead < 0x80 { return position + 1 }
        let length: Int
        let range: ClosedRange<UInt8>
        switch lead {
        case 0xC2...0xDF: (length, range) = (2, 0x80...0xBF)
        case 0xE0: (length, range) = (3, 0xA0...0xBF)
        case 0xED: (length, range) = (3, 0x80...0x9F)
        case 0xE1...0xEF: (length, range) = (3, 0x80...0xBF)
        case 0xF0: (length, range) = (4, 0x90...0xBF)
        case 0xF4: (length, range) = (4, 0x80...0x8F)
        case 0xF1...0xF3: (length, range) = (4, 0x80...0xBF)
        default: throw failure("not UTF-8")
        }
        guard let second = byte(at: position + 1), range.contains(second) else { throw failure("not UTF-8") }
        for index in position + 2..<position + length {
            guard let next = byte(at: index), (0x80...0xBF).contains(next) else { throw failure("not UTF-8") }
        }
        return position + length
    }

    /// The character an escape stands for (at its backslash); a surrogate must come in a pair.
    private mutating func escape() throws(Failure) -> Unicode.Scalar {
        guard let kind = byte(at: position + 1) else { throw failure("a string must end with '\"'") }
        position += 2
        switch kind {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return Unicode.Scalar(kind)
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"): break
        default:
            position -= 2
            throw failure("not an escape JSON knows")
        }
        let unit = try hex4()
        if (0xDC00...0xDFFF).contains(unit) { throw failure("a low surrogate without a high one") }
        guard (0xD800...0xDBFF).contains(unit) else { return Unicode.Scalar(unit) ?? "\u{FFFD}" }
        guard byte(at: position) == UInt8(ascii: "\\"), byte(at: position + 1) == UInt8(ascii: "u") else {
            throw failure("a high surrogate without a low one")
        }
        position += 2
        let low = try hex4()
        guard (0xDC00...0xDFFF).contains(low) else { throw failure("a high surrogate without a low one") }
        return Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)) ?? "\u{FFFD}"
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = byte(at: position) else { throw failure("\\u needs four hex digits") }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("\\u needs four hex digits")
            }
            unit = unit << 4 | UInt32(digit)
            position += 1
        }
        return unit
    }
}
