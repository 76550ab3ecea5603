import Foundation
import Testing

@testable import LoadKit

/// The payload oracle's own JSON reader: exact on what it reads, strict on what it refuses, and
/// in agreement with Foundation's reader on the structure of random documents.
@Suite("JSONText: the suite's own JSON reader")
struct JSONTextTests {
    @Test("numbers keep their text; strings their scalars; members their order and duplicates")
    func reads() throws {
        let text =
            #" {"b": [1, -0.5e+3, 9223372036854775807], "a": "e\u0301\ud83d\udce6\n\"", "a": null, "t": true, "f": false} "#
        let parsed = try JSONText.parse(Array(text.utf8))
        #expect(
            parsed
                == .object([
                    ("b", .array([.number("1"), .number("-0.5e+3"), .number("9223372036854775807")])),
                    ("a", .string("e\u{301}\u{1F4E6}\n\"")), ("a", .null), ("t", .bool(true)), ("f", .bool(false)),
                ]))
        #expect(JSONText.string("\u{E9}") != .string("e\u{301}"))
    }

    @Test(
        "malformed documents are refused, never trapped on",
        arguments: [
            "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "1e", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"a", "tru",
            "[1] 2", "\"\u{1}\"", "\"\\u12G4\"", "\"\\u+123\"", String(repeating: "[", count: 600),
        ])
    func refuses(text: String) {
        #expect(throws: JSONText.Malformed.self) { try JSONText.parse(Array(text.utf8)) }
    }

    /// A random document without doubles (Foundation's reader rounds some of those wrongly).
    static func document(_ random: inout SystemRandomNumberGenerator, depth: Int) -> String {
        let strings = ["\"\"", "\"a\\\"b\"", "\"\\u00e9\\n\"", "\"漢字 🔑\"", "\"\\ud83d\\ude00\""]
        switch depth > 3 ? Int.random(in: 0...3, using: &random) : Int.random(in: 0...5, using: &random) {
        case 0: return String(Int64.random(in: .min ... .max, using: &random))
        case 1: return strings.randomElement(using: &random)!
        case 2: return ["true", "false", "null"].randomElement(using: &random)!
        case 3: return "\"k\(Int.random(in: 0...9, using: &random))\""
        case 4:
            let items = (0..<Int.random(in: 0...4, using: &random)).map { _ in document(&random, depth: depth + 1) }
            return "[" + items.joined(separator: ", ") + "]"
        default:
            let members = (0..<Int.random(in: 0...4, using: &random)).map { index in
                "\"m\(index)\": " + document(&random, depth: depth + 1)
            }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    static func foundation(_ node: JSONText) -> String {
        switch node {
        case .object(let members):
            return "{"
                + members.map { "\($0.name.debugDescription):\(foundation($0.value))" }.sorted().joined(separator: ",")
                + "}"
        case .array(let items): return "[" + items.map(foundation).joined(separator: ",") + "]"
        case .string(let text): return text.debugDescription
        case .number(let text): return text
        case .bool(let flag): return "\(flag)"
        case .null: return "null"
        }
    }

    static func foundation(_ value: Any) -> String {
        switch value {
        case let object as [String: Any]:
            return "{"
                + object.map { "\($0.key.debugDescription):\(foundation($0.value))" }.sorted().joined(separator: ",")
                + "}"
        case let array as [Any]: return "[" + array.map { foundation($0) }.joined(separator: ",") + "]"
        case let text as String: return text.debugDescription
        case is NSNull: return "null"
        case let number as NSNumber:
            return String(cString: number.objCType) == "c" ? "\(number.boolValue)" : number.stringValue
        default: return "?"
        }
    }

    @Test("random documents read the same as Foundation reads them (structure, integers, strings)")
    func agreesWithFoundation() throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let text = "[" + Self.document(&random, depth: 0) + "]"
            let ours = try JSONText.parse(Array(text.utf8))
            let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8))
            #expect(Self.foundation(ours) == Self.foundation(theirs), "\(text)")
        }
    }

    @Test("mutated documents never trap: each is read or refused")
    func fuzz() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            var bytes = Array(("[" + Self.document(&random, depth: 0) + "]").utf8)
            for _ in 0...Int.random(in: 0...3, using: &random) where !bytes.isEmpty {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = try? JSONText.parse(bytes)
        }
    }
}
