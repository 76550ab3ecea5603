import Foundation
import Testing

@testable import Frontmail

@Suite("JSON writer: RFC 8259 output, sorted keys, shortest doubles, base64")
struct JSONWriterTests {
    private func json(_ value: FrontmailValue) throws -> String {
        var writer = JSONWriter()
        try writer.write(value)
        return writer.string
    }

    @Test("scalars, integers and literals")
    func scalars() throws {
        #expect(try json(0) == "0")
        #expect(try json(7) == "7")
        #expect(try json(-42) == "-42")
        #expect(try json(.integer(Int.max)) == "9223372036854775807")
        #expect(try json(.integer(Int.min)) == "-9223372036854775808")
        #expect(try json(true) == "true")
        #expect(try json(false) == "false")
        #expect(try json(nil) == "null")
        #expect(try json([]) == "[]")
        #expect(try json([:]) == "{}")
    }

    @Test(
        "doubles use the shortest form that round-trips",
        arguments: [
            0.5, 0.1, 1.0 / 3.0, 1e-7, 1e21, .leastNonzeroMagnitude, Double.greatestFiniteMagnitude, -0.0, 123456.789,
            2.0,
        ])
    func doublesRoundTrip(value: Double) throws {
        let text = try json(.double(value))
        #expect(Double(text) == value)
        #expect(text == value.description)
        // And it is JSON that Foundation's parser accepts.
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(text)]".utf8), options: []) as? [NSNumber]
        #expect(parsed?.first?.doubleValue == value)
    }

    @Test("non-finite numbers are rejected with their path", arguments: [Double.nan, .infinity, -.infinity])
    func nonFinite(value: Double) {
        var writer = JSONWriter()
        #expect(throws: JSONWriter.NonFiniteNumber.self) {
            try writer.write(["a": ["b": [1, .double(value)]]])
        }
        do {
            var writer = JSONWriter()
            try writer.write(["a": ["b": [1, .double(value)]]])
        } catch {
            #expect(error.pathDescription == "a.b[1]")
        }
    }

    @Test("strings are escaped per RFC 8259; non-ASCII passes through as UTF-8")
    func escaping() throws {
        #expect(try json("a\"b\\c") == #""a\"b\\c""#)
        #expect(try json("\n\r\t\u{08}\u{0C}") == #""\n\r\t\b\f""#)
        #expect(try json("\u{00}\u{1F}\u{7F}") == "\"\\u0000\\u001f\u{7F}\"")
        #expect(try json("/ü€😀") == "\"/ü€😀\"")
        #expect(try json("\u{2028}") == "\"\u{2028}\"")
    }

    @Test("object keys are sorted at every level, so output is deterministic")
    func sortedKeys() throws {
        let value: FrontmailValue = ["b": 1, "a": ["z": 1, "y": [["d": 1, "c": 2]]], "A": 0, "é": 1]
        #expect(try json(value) == #"{"A":0,"a":{"y":[{"c":2,"d":1}],"z":1},"b":1,"é":1}"#)
        // Dictionaries built in different orders give the same bytes.
        var forward: [String: FrontmailValue] = [:]
        var backward: [String: FrontmailValue] = [:]
        let keys = (0..<200).map { "key\($0)" }
        for key in keys { forward[key] = .string(key) }
        for key in keys.reversed() { backward[key] = .string(key) }
        #expect(try json(.object(forward)) == json(.object(backward)))
    }

    @Test("random values survive a round trip through Foundation's parser")
    func roundTripThroughFoundation() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let value = FrontmailValue.random(using: &generator, depth: 3)
            let text = try json(value)
            let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
            let again = try JSONSerialization.data(withJSONObject: foundation, options: [.fragmentsAllowed])
            #expect(try JSONReader.parse(again) == JSONReader.parse(Data(text.utf8)))
            #expect(try JSONReader.parse(text) == value)
        }
    }

    @Test("base64 equals Foundation's for every length up to 300 bytes")
    func base64MatchesFoundation() {
        var generator = SplitMix64(seed: 7)
        for length in 0...300 {
            let data = Data((0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
            var writer = JSONWriter()
            writer.writeBase64String(data)
            #expect(writer.string == "\"\(data.base64EncodedString())\"")
        }
    }

    @Test(
        "the buffer grows from nothing, and data() hands over exactly what was written", arguments: [0, 1, 64, 1 << 20])
    func bufferGrowth(capacity: Int) throws {
        var generator = SplitMix64(seed: UInt64(capacity))
        let value = FrontmailValue.random(using: &generator, depth: 4)
        var reference = JSONWriter(capacity: 1 << 16)
        try reference.write(value)
        var writer = JSONWriter(capacity: capacity)
        for _ in 0..<3 { try writer.write(value) }
        writer.truncate(to: reference.count)
        let expected = reference.bytes
        #expect(writer.bytes == expected)
        let data = writer.data()
        #expect(data == Data(expected))
        #expect(JSONWriter(capacity: capacity).data().isEmpty)
    }

    @Test("slots sort stably at every size, in place (insertion sort, then heapsort above 16)")
    func slotSort() {
        var generator = SplitMix64(seed: 3)
        for count in [0, 1, 2, 16, 17, 40, 257] {
            let keys = (0..<count).map { _ in Int(generator.next() % 12) }
            let sorted = withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { order -> [Int] in
                JSONWriter.sortSlots(order, by: { keys[$0] < keys[$1] })
                return Array(order)
            }
            // The reference: by key, equal keys in their original order.
            let expected = (0..<count).sorted { keys[$0] < keys[$1] || (keys[$0] == keys[$1] && $0 < $1) }
            #expect(sorted == expected, "\(count) slots")
        }
    }

    @Test("description is compact sorted JSON, with null for non-finite numbers")
    func valueDescription() {
        let value: FrontmailValue = ["b": .double(.nan), "a": [1, "x"]]
        #expect(value.description == #"{"a":[1,"x"],"b":null}"#)
    }
}

/// A small seeded generator so random tests are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension FrontmailValue {
    static func random(using generator: inout SplitMix64, depth: Int) -> FrontmailValue {
        let pick = Int.random(in: 0..<(depth > 0 ? 7 : 5), using: &generator)
        switch pick {
        case 0: return .integer(Int.random(in: Int.min...Int.max, using: &generator))
        case 1: return .double(Double.random(in: -1e12...1e12, using: &generator))
        case 2:
            let scalars = (0..<Int.random(in: 0..<12, using: &generator)).map { _ in
                Character(Unicode.Scalar(UInt32.random(in: 0..<0xD7FF, using: &generator)) ?? "x")
            }
            return .string(String(scalars))
        case 3: return .bool(Bool.random(using: &generator))
        case 4: return .null
        case 5:
            return .array(
                (0..<Int.random(in: 0..<4, using: &generator)).map { _ in random(using: &generator, depth: depth - 1) })
        default:
            var members: [String: FrontmailValue] = [:]
            for index in 0..<Int.random(in: 0..<4, using: &generator) {
                members["k\(index)\(Int.random(in: 0..<100, using: &generator))"] = random(
                    using: &generator, depth: depth - 1)
            }
            return .object(members)
        }
    }
}

@Suite("JSON writer: the eight-byte escape scan")
struct EscapeScanTests {
    static func mustEscape(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C }

    @Test("every byte value at every position of a word: flagged exactly when it needs escaping, found at its position")
    func everyByteEveryPosition() {
        for position in 0..<8 {
            for value in 0...255 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
                bytes[position] = UInt8(value)
                let word = bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(as: UInt64.self)) }
                let flags = JSONWriter.needsEscape(word)
                #expect((flags != 0) == Self.mustEscape(UInt8(value)), "byte \(value) at \(position)")
                if flags != 0 { #expect(flags.trailingZeroBitCount / 8 == position) }
            }
        }
    }

    @Test("strings with escapes anywhere are written as a byte-at-a-time writer writes them (random trials)")
    func matchesByteAtATime() {
        func reference(_ string: String) -> String {
            var out = Array("\"".utf8)
            for byte in string.utf8 {
                switch byte {
                case 0x22: out += Array("\\\"".utf8)
                case 0x5C: out += Array("\\\\".utf8)
                case 0x0A: out += Array("\\n".utf8)
                case 0x0D: out += Array("\\r".utf8)
                case 0x09: out += Array("\\t".utf8)
                case 0x08: out += Array("\\b".utf8)
                case 0x0C: out += Array("\\f".utf8)
                case 0..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
                default: out.append(byte)
                }
            }
            return String(decoding: out + Array("\"".utf8), as: UTF8.self)
        }
        var generator = SplitMix64(seed: 11)
        let pieces: [String] = [
            "a", "bc", "\"", "\\", "\n", "\u{1}", "\u{1F}", "é", "\u{1F4E6}", "xyzxyzxyz", "\t", " ",
        ]
        for _ in 0..<2000 {
            let length = Int(generator.next() % 24)
            let string = (0..<length).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            var writer = JSONWriter()
            writer.writeString(string)
            #expect(writer.string == reference(string), "\(Array(string.utf8))")
        }
    }
}
