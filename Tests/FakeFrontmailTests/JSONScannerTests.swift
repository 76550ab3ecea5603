import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail

/// The fake's own JSON reader and writer: strict where RFC 8259 is, bounded on hostile input, and
/// (checked differentially, in this test only) agreeing with the SDK's on what is JSON and what it
/// means, and writing the same bytes, so moving the fake off the SDK's code changed no result.
@Suite("the fake's own JSON: JSONScanner and JSONBytes", .onItsOwnThread)
struct JSONScannerTests {
    /// The value of `text` when the fake's reader takes it as JSON.
    static func scan(_ text: [UInt8]) -> Result<FrontmailValue, JSONScanner.Failure> {
        text.withUnsafeBufferPointer { bytes in
            do throws(JSONScanner.Failure) {
                try JSONScanner.validate(bytes)
                return .success(try Self.topValue(bytes))
            } catch {
                return .failure(error)
            }
        }
    }

    /// The value of a text already checked, read as the one member of an object.
    static func topValue(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONScanner.Failure) -> FrontmailValue {
        let wrapped = Array("{\"v\":".utf8) + Array(bytes) + Array("}".utf8)
        return try wrapped.withUnsafeBufferPointer { buffer throws(JSONScanner.Failure) in
            var value: FrontmailValue = .null
            _ = try JSONScanner.readObject(buffer) { _, scanner throws(JSONScanner.Failure) in
                value = try scanner.value()
            }
            return value
        }
    }

    @Test(
        "edge cases: what is JSON and what is not",
        arguments: [
            ("{}", true), ("[]", true), (" {\"a\" : [1, 2.5, -0, 1e3, \"x\", true, false, null]} ", true),
            ("\"\\ud83d\\ude00\"", true), ("\"\\u00e9\\n\\t\\\"\\\\\\/\"", true), ("\"é😀\"", true),
            ("{", false), ("{\"a\" 1}", false), ("{\"a\":1,}", false), ("[1,]", false), ("01", false),
            ("1.", false), (".5", false), ("1e", false), ("-", false), ("+1", false), ("1e400", false),
            ("\"\\ud83d\"", false), ("\"\\ude00\"", false), ("\"\\x\"", false), ("\"a\u{01}\"", false),
            ("\"abc", false), ("tru", false), ("nul", false), ("{} {}", false), ("", false), ("   ", false),
            ("{1:2}", false), ("\"\\u12g4\"", false), ("NaN", false),
        ])
    func edges(text: String, valid: Bool) {
        let scanned = Self.scan(Array(text.utf8))
        let sdk = try? JSONReader.parse(Data(text.utf8))
        #expect(((try? scanned.get()) != nil) == valid, "\(text)")
        #expect((sdk != nil) == valid, "the SDK's reader disagrees on \(text)")
        if let sdk, let mine = try? scanned.get() { #expect(mine == sdk, "\(text)") }
    }

    @Test("bytes that are not UTF-8 are refused: overlong forms, surrogates, stray continuations, past U+10FFFF")
    func utf8() {
        for bytes: [UInt8] in [
            [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
            [0xC3], [0xE2, 0x82],
        ] {
            let text = [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
            #expect((try? Self.scan(text).get()) == nil, "\(bytes)")
            #expect((try? JSONReader.parse(Data(text))) == nil, "the SDK's reader disagrees on \(bytes)")
        }
        #expect((try? Self.scan(Array("\"\u{10FFFF}\"".utf8)).get()) == .string("\u{10FFFF}"))
    }

    @Test("nesting is bounded: 256 levels are read, 257 refused, 100,000 refused without exhausting the stack")
    func depth() {
        func nested(_ levels: Int) -> [UInt8] {
            Array(repeating: UInt8(ascii: "["), count: levels) + Array(repeating: UInt8(ascii: "]"), count: levels)
        }
        let ok = nested(JSONScanner.maxDepth)
        #expect(ok.withUnsafeBufferPointer { (try? JSONScanner.validate($0)) != nil })
        for levels in [JSONScanner.maxDepth + 1, 100_000] {
            let deep = nested(levels)
            let failure = deep.withUnsafeBufferPointer { bytes -> JSONScanner.Failure? in
                do throws(JSONScanner.Failure) {
                    try JSONScanner.validate(bytes)
                    return nil
                } catch {
                    return error
                }
            }
            #expect(failure?.reason.contains("deeper") == true)
        }
    }

    /// A random value of at most `depth` levels, with strings that need escaping and numbers of
    /// every kind JSON carries.
    static func randomValue(_ random: inout SeededRandom, depth: Int) -> FrontmailValue {
        let pick = random.next() % (depth > 0 ? 8 : 6)
        switch pick {
        case 0: return .null
        case 1: return .bool(random.next() % 2 == 0)
        case 2: return .integer(Int(truncatingIfNeeded: random.next()) >> Int(random.next() % 64))
        case 3:
            let double = Double(bitPattern: random.next())
            return .double(double.isFinite ? double : Double(random.next() % 1000) / 7)
        case 4, 5:
            let alphabet = ["a", "é", "😀", "\"", "\\", "\n", "\u{01}", "\u{1F}", "/", " ", "\t", "\u{7F}", "z"]
            return .string((0..<Int(random.next() % 6)).map { _ in alphabet[Int(random.next() % 13)] }.joined())
        case 6:
            return .array((0..<Int(random.next() % 4)).map { _ in randomValue(&random, depth: depth - 1) })
        default:
            var members: [String: FrontmailValue] = [:]
            for index in 0..<Int(random.next() % 4) {
                members["k\(index)\(["", "é", "\"", "\n"][Int(random.next() % 4)])"] = randomValue(
                    &random, depth: depth - 1)
            }
            return .object(members)
        }
    }

    @Test("fuzz: 2,000 random values are written byte for byte as the SDK's writer writes them, and read back")
    func writerAgrees() {
        var random = SeededRandom(seed: 2_024)
        for _ in 0..<2000 {
            let value = Self.randomValue(&random, depth: 4)
            var mine = JSONBytes()
            mine.value(value)
            var sdk = JSONWriter(capacity: 64)
            sdk.writeLenient(value)
            #expect(mine.bytes == sdk.bytes, "\(value)")
            #expect((try? Self.scan(mine.bytes).get()) == value, "\(value)")
        }
        var nonFinite = JSONBytes()
        nonFinite.value(["a": .double(.nan), "b": .array([.double(.infinity), 1])])
        #expect(String(decoding: nonFinite.bytes, as: UTF8.self) == #"{"a":null,"b":[null,1]}"#)
    }

    @Test("fuzz: 20,000 mutated texts are JSON to the fake exactly when they are to the SDK, with the same value")
    func readerAgrees() {
        var random = SeededRandom(seed: 77)
        let alphabet = Array("{}[],:\"\\-+.eE0123456789tfnul \n\tabé".utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF, 0xED]
        for _ in 0..<20_000 {
            var writer = JSONBytes()
            writer.value(Self.randomValue(&random, depth: 3))
            var text = writer.bytes
            for _ in 0..<Int(random.next() % 4) {
                let index = text.isEmpty ? 0 : Int(random.next() % UInt64(text.count))
                let byte = alphabet[Int(random.next() % UInt64(alphabet.count))]
                switch random.next() % 3 {
                case 0 where !text.isEmpty: text[index] = byte
                case 1: text.insert(byte, at: index)
                default: if !text.isEmpty { text.remove(at: index) }
                }
            }
            let mine = try? Self.scan(text).get()
            let sdk = try? JSONReader.parse(Data(text))
            #expect((mine != nil) == (sdk != nil), "\(String(decoding: text, as: UTF8.self))")
            if let mine, let sdk { #expect(mine == sdk, "\(String(decoding: text, as: UTF8.self))") }
        }
    }

    @Test("a failure names the byte where the text stops being JSON")
    func offsets() {
        let text = Array("{\"name\": \"x\",\n \"load\": {\"type\": \"closed\" \"sends\": 1}}".utf8)
        let failure = text.withUnsafeBufferPointer { bytes -> JSONScanner.Failure? in
            do throws(JSONScanner.Failure) {
                try JSONScanner.validate(bytes)
                return nil
            } catch {
                return error
            }
        }
        let sends = Array("\"sends\"".utf8)
        let expected = (0..<text.count).first { Array(text[$0..<min(text.count, $0 + sends.count)]) == sends }
        #expect(failure != nil && failure?.offset == expected)
    }

    @Test("readObject hands an object's members in order and says false for any other value")
    func readObject() {
        func members(_ text: String) -> (Bool, [String])? {
            Array(text.utf8).withUnsafeBufferPointer { bytes in
                var keys: [String] = []
                do throws(JSONScanner.Failure) {
                    let isObject = try JSONScanner.readObject(bytes) { key, scanner throws(JSONScanner.Failure) in
                        keys.append(key)
                        try scanner.skip()
                    }
                    return (isObject, keys)
                } catch {
                    return nil
                }
            }
        }
        #expect(members(#"{"b": [1, {"x": 2}], "a": null, "b": "again"}"#)! == (true, ["b", "a", "b"]))
        #expect(members("[1, 2]")! == (false, []))
        #expect(members("\"text\"")! == (false, []))
        #expect(members(#"{"a": 1} x"#) == nil)
        #expect(members(#"{"a": [1, 2}"#) == nil)
    }
}
