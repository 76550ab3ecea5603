import Foundation
import Testing

@testable import Frontmail

@Suite("JSON reader: strict parsing into FrontmailValue")
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
}
