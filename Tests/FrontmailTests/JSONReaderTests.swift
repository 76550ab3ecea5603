import Foundation
import TestSupport
import Testing

@testable import Frontmail

@Suite("JSON reader: strict parsing into FrontmailValue", .onItsOwnThread)
struct JSONReaderTests {
    @Test(
        "valid documents",
        arguments: [
            (
                #"{"a":[1,2.5,"x",true,false,null],"b":{}}"#,
                FrontmailValue.object(["a": [1, 2.5, "x", true, false, nil], "b": [:]])
            ),
            ("  42 ", 42),
            ("-0.5e2", -50.0),
            ("1E+2", 100.0),
            ("99999999999999999999", .double(1e20)),
            (#""\u00fc\ud83d\ude00\n\/""#, "ü😀\n/"),
            ("[]", .array([])),
        ])
    func valid(text: String, expected: FrontmailValue) throws {
        #expect(try JSONReader.parse(text) == expected)
    }

    @Test(
        "invalid documents are rejected",
        arguments: [
            "", " ", "{", "[1,]", "{\"a\":1,}", "01", "1.", ".5", "+1", "-", "1e", "tru", "nul", "\"abc", "\"\\x\"",
            "\"\\ud800\"", "\"\\udc00\"", "\"a\u{01}b\"", "{a:1}", "[1 2]", "1 2", "NaN", "Infinity", "1e400",
            "{\"a\"}",
            "\"\\u12\"",
        ])
    func invalid(text: String) {
        #expect(throws: JSONReader.ParseError.self) { try JSONReader.parse(text) }
    }

    @Test("invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        #expect(throws: JSONReader.ParseError.self) { try JSONReader.parse(Data([0x22, 0xFF, 0xFE, 0x22])) }
    }

    @Test("nesting deeper than the limit is an error, not a crash")
    func depthLimit() throws {
        let ok = String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth)
        #expect(throws: Never.self) { try JSONReader.parse(ok) }
        let deep = String(repeating: "[", count: 100_000)
        #expect(throws: JSONReader.ParseError.self) { try JSONReader.parse(deep) }
    }

    @Test("the error names the byte offset")
    func errorOffset() {
        do {
            _ = try JSONReader.parse(#"{"a": x}"#)
            Issue.record("parsed")
        } catch {
            #expect(error.offset == 6)
            #expect(error.description.contains("byte 6"))
        }
    }
    @Test("members(named:): only the named top-level members, in order, the rest validated and dropped")
    func namedMembers() throws {
        func found(_ text: String) throws(JSONReader.ParseError) -> (Bool, [String]) {
            var seen: [String] = []
            let isObject = try JSONReader.members(named: ["b", "a"], in: Data(text.utf8)) { index, value in
                seen.append("\(index)=\(value)")
            }
            return (isObject, seen)
        }
        let (isObject, seen) = try found(#" {"x":{"a":1},"a":"one","y":[1,{"b":2}],"b":true,"a":null} "#)
        #expect(isObject)
        // nested "a" and "b" are not top-level members; a repeated key is handed again
        #expect(seen == [#"1="one""#, "0=true", "1=null"])
        #expect(try found("[1,2]") == (false, []))
        #expect(try found(#""a""#) == (false, []))
        // the members it skips are still checked, as is what follows the object
        for invalid in [#"{"x":[1,}"#, #"{"a":1} x"#, "{\"x\":\"\u{1}\"}", "{", ""] {
            #expect(throws: JSONReader.ParseError.self) { try found(invalid) }
        }
        let deep = "{\"x\":" + String(repeating: "[", count: JSONReader.maxDepth + 1) + "}"
        #expect(throws: JSONReader.ParseError.self) { try found(deep) }
    }

    /// Whether `readObject` with every member skipped accepts `bytes`, against whether `parse` does.
    static func skipAgrees(_ bytes: [UInt8]) -> (parse: Bool, skip: Bool) {
        let parsed = (try? JSONReader.parse(Data(bytes))) != nil
        let skipped =
            (try? bytes.withUnsafeBufferPointer { buffer throws(JSONReader.ParseError) in
                try JSONReader.readObject(buffer) { _, reader throws(JSONReader.ParseError) in try reader.skip() }
            }) != nil
        return (parsed, skipped)
    }

    @Test("skip() accepts exactly what parse accepts: every document above, inside an object")
    func skipMatchesParse() {
        let values = [
            #"[1,2.5,"x",true,false,null]"#, "{}", "[]", "42", "-0.5e2", "99999999999999999999",
            #""\u00fc\ud83d\ude00\n\/""#, "1e400", "01", "1.", "tru", "nul", #""abc"#, #""\x""#, #""\ud800""#,
            #""\udc00""#, "\"a\u{01}b\"", "{a:1}", "[1 2]", "[1,]", #"{"a":1,}"#, #""\u12""#, "NaN", "",
            String(repeating: "[", count: JSONReader.maxDepth - 1)
                + String(repeating: "]", count: JSONReader.maxDepth - 1),
            String(repeating: "[", count: JSONReader.maxDepth) + String(repeating: "]", count: JSONReader.maxDepth),
            #"{"a":{"b":{"c":[{"d":"e"}]}}}"#,
        ]
        for value in values {
            let agreement = Self.skipAgrees(Array(#"{"k":\#(value)}"#.utf8))
            #expect(agreement.parse == agreement.skip, "\(value): parse \(agreement.parse), skip \(agreement.skip)")
        }
    }

    @Test("skip() on strings: a quote, backslash, control or non-ASCII byte at every place of the word scan")
    func skipStringWordBoundaries() {
        // Each special byte at each offset of strings 0-40 bytes long, so it falls in every lane of
        // the eight-byte scan and in the tail after it.
        let specials: [[UInt8]] = [
            Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), [0x01], [0x1F], [0x7F], [0xC3, 0xA9],
            [0xF0, 0x9F, 0x93, 0xA6], [0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF], Array(#"\q"#.utf8), [0x0A],
            [0x22],
        ]
        var checked = 0
        for length in 0...40 {
            for place in 0...length {
                for special in specials {
                    var text = Array(repeating: UInt8(ascii: "a"), count: length)
                    text.insert(contentsOf: special, at: place)
                    let document = Array(#"{"k":""#.utf8) + text + Array(#""}"#.utf8)
                    let agreement = Self.skipAgrees(document)
                    #expect(agreement.parse == agreement.skip, "\(document)")
                    checked += 1
                }
            }
        }
        #expect(checked > 10_000)
        // And a string that runs to the end of the input, however long.
        for length in 0...20 {
            let open = Array(#"{"k":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: length)
            #expect(Self.skipAgrees(open) == (false, false))
        }
    }

    @Test("value(), skip() and members(_:) read a document member by member")
    func memberByMember() throws {
        let text = Array(#"{"a":{"x":1,"y":null,"x":2},"b":"skipped \u00e9","c":[1,{"d":true}],"e":3}"#.utf8)
        var seen: [String] = []
        let isObject = try text.withUnsafeBufferPointer { buffer throws(JSONReader.ParseError) in
            try JSONReader.readObject(buffer) { key, reader throws(JSONReader.ParseError) in
                switch key {
                case "a":
                    let nested = try reader.members { inner, reader throws(JSONReader.ParseError) in
                        seen.append("a.\(inner)\(reader.isAtNull ? "=null" : "")")
                        try reader.skip()
                    }
                    #expect(nested)
                case "e":
                    seen.append("e=\(try reader.value())")
                case "c":
                    // Not an object: skipped whole, and said so.
                    let isObject = try reader.members { _, _ throws(JSONReader.ParseError) in
                        Issue.record("no members")
                    }
                    #expect(!isObject)
                default:
                    try reader.skip()
                }
            }
        }
        #expect(isObject)
        #expect(seen == ["a.x", "a.y=null", "a.x", "e=3"])
    }
}
