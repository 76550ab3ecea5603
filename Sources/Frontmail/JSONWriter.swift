import Foundation

/// Writes JSON (RFC 8259) into one growing byte buffer.
///
/// Object keys are written in sorted order, so the same value gives the same bytes in every
/// process. Doubles use the shortest representation that round-trips; non-finite numbers are
/// rejected with the path of the offending value.
package struct JSONWriter {
    package private(set) var bytes: [UInt8]

    package init(capacity: Int = 512) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The bytes written so far, as a string.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    /// A number that JSON cannot carry (NaN or an infinity), with the path to it.
    package struct NonFiniteNumber: Error, Equatable {
        package var path: [String]
        package var value: Double

        package var pathDescription: String {
            var text = ""
            for component in path {
                if component.first == "[" || text.isEmpty {
                    text += component
                } else {
                    text += "." + component
                }
            }
            return text
        }
    }

    // MARK: Values

    package mutating func write(_ value: FrontmailValue) throws(NonFiniteNumber) {
        switch value {
        case .string(let string): writeString(string)
        case .integer(let integer): writeInteger(integer)
        case .double(let double): try writeDouble(double)
        case .bool(let bool): writeRaw(bool ? "true" : "false")
        case .null: writeRaw("null")
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for index in elements.indices {
                if index != 0 { bytes.append(UInt8(ascii: ",")) }
                do {
                    try write(elements[index])
                } catch {
                    throw error.prefixed("[\(index)]")
                }
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            try writeObject(members)
        }
    }

    /// Writes an object with its keys in sorted order.
    package mutating func writeObject(_ members: [String: FrontmailValue]) throws(NonFiniteNumber) {
        bytes.append(UInt8(ascii: "{"))
        let count = members.count
        if count == 1, let (key, value) = members.first {
            try writeMember(key, value)
        } else if count > 1 {
            // The keys beside their positions, sorted without looking each key up again.
            typealias Slot = (key: String, index: Dictionary<String, FrontmailValue>.Index)
            try withUnsafeTemporaryAllocation(of: Slot.self, capacity: count) { buffer throws(NonFiniteNumber) in
                var order = buffer
                var next = members.startIndex
                for slot in 0..<count {
                    order.initializeElement(at: slot, to: (members[next].key, next))
                    next = members.index(after: next)
                }
                defer { _ = order.deinitialize() }
                order.sort { $0.key < $1.key }
                for slot in 0..<count {
                    if slot != 0 { bytes.append(UInt8(ascii: ",")) }
                    try writeMember(order[slot].key, members[order[slot].index].value)
                }
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func writeMember(_ key: String, _ value: FrontmailValue) throws(NonFiniteNumber) {
        writeKey(key)
        do {
            try write(value)
        } catch {
            throw error.prefixed(key)
        }
    }

    /// Writes `"key":`.
    package mutating func writeKey(_ key: String) {
        writeString(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes like `write(_:)`, but puts `null` where a number is not finite (for descriptions).
    package mutating func writeLenient(_ value: FrontmailValue) {
        do {
            try write(value)
        } catch {
            bytes.removeAll(keepingCapacity: true)
            writeLenient(value.replacingNonFinite())
        }
    }

    // MARK: Scalars

    /// Bytes that are already valid JSON (punctuation, literals).
    package mutating func writeRaw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    package mutating func writeByte(_ byte: UInt8) {
        bytes.append(byte)
    }

    package mutating func writeInteger(_ value: Int) {
        if value >= 0 && value < 10 {
            bytes.append(UInt8(truncatingIfNeeded: value) &+ 48)
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
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[position..<20]))
        }
    }

    package mutating func writeDouble(_ value: Double) throws(NonFiniteNumber) {
        guard value.isFinite else { throw NonFiniteNumber(path: [], value: value) }
        // Swift's description is the shortest string that round-trips, and always valid JSON
        // for finite values ("0.5", "1e-05", "1e+16", "-0.0").
        var text = value.description
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    package mutating func writeString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let done: Void? = string.utf8.withContiguousStorageIfAvailable { writeEscaped($0) }
        if done == nil {
            var copy = string
            copy.withUTF8 { writeEscaped($0) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = utf8.count
        while index < count {
            // Eight bytes at a time while none needs escaping (a control byte, '"' or '\\'): the
            // lowest flagged byte of each test is exact, so the scan stops on the first one.
            if index + 8 <= count, let base = utf8.baseAddress {
                let word = UInt64(
                    littleEndian: UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
                let flags = Self.needsEscape(word)
                if flags == 0 {
                    index += 8
                    continue
                }
                index += flags.trailingZeroBitCount / 8
            }
            let byte = utf8[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
            }
            bytes.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(Self.hexDigits[Int(byte >> 4)])
                bytes.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<count]))
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

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

    // MARK: Base64

    /// Writes `data` as a quoted standard base64 string (RFC 4648, with padding).
    package mutating func writeBase64String(_ data: Data) {
        bytes.append(UInt8(ascii: "\""))
        data.withUnsafeBytes { writeBase64(UnsafeRawBufferPointer($0)) }
        bytes.append(UInt8(ascii: "\""))
    }

    package mutating func writeBase64(_ input: UnsafeRawBufferPointer) {
        Base64.append(input, to: &bytes)
    }
}

extension JSONWriter.NonFiniteNumber {
    fileprivate func prefixed(_ component: String) -> Self {
        var copy = self
        copy.path.insert(component, at: 0)
        return copy
    }
}

extension FrontmailValue {
    fileprivate func replacingNonFinite() -> FrontmailValue {
        switch self {
        case .double(let value) where !value.isFinite: return .null
        case .array(let elements): return .array(elements.map { $0.replacingNonFinite() })
        case .object(let members): return .object(members.mapValues { $0.replacingNonFinite() })
        default: return self
        }
    }
}
