import Frontmail

/// The fake's own JSON writer, for its answers: object keys in sorted order (the same bytes in
/// every process), `"`, `\` and control bytes escaped (`\n`, `\r`, `\t`, `\b`, `\f`, else
/// `\u00xx`), doubles in Swift's shortest round-trip form, and `null` where a number is not finite.
/// Written apart from the SDK's writer: an answer the client reads is never written by the code
/// that reads it.
struct JSONBytes {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 128) {
        bytes.reserveCapacity(capacity)
    }

    /// Bytes that are JSON already (punctuation, a literal).
    mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func integer(_ value: Int) {
        bytes.append(contentsOf: String(value).utf8)
    }

    /// `"key":`.
    mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        if !text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), byte]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")]
                bytes += [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Any value; a number that is not finite is written `null`.
    mutating func value(_ value: FrontmailValue) {
        switch value {
        case .string(let text): string(text)
        case .integer(let number): integer(number)
        case .double(let number) where number.isFinite: bytes.append(contentsOf: number.description.utf8)
        case .double: raw("null")
        case .bool(let flag): flag ? raw("true") : raw("false")
        case .null: raw("null")
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                self.value(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                key(member.key)
                self.value(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }
}
