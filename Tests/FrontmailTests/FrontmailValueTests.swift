import Foundation
import Testing

@testable import Frontmail

@Suite("FrontmailValue: literals, accessors, Codable")
struct FrontmailValueTests {
    @Test("ordinary literals build the matching cases")
    func literals() {
        let email = "jan@example.com"
        let params: [String: FrontmailValue] = [
            "email": .string(email), "message": "Hello!", "qty": 2, "ratio": 0.5, "ok": true, "none": nil,
            "items": [["sku": "A-1"]],
        ]
        #expect(params["email"] == .string(email))
        #expect(params["qty"] == .integer(2))
        #expect(params["ratio"] == .double(0.5))
        #expect(params["ok"] == .bool(true))
        #expect(params["none"] == .null)
        #expect(params["items"] == .array([.object(["sku": .string("A-1")])]))
        #expect(params["qty"]?.intValue == 2 && params["ratio"]?.doubleValue == 0.5)
        #expect(params["items"]?.arrayValue?.first?["sku"]?.stringValue == "A-1")
        #expect(params["none"]?.isNull == true && params["ok"]?.boolValue == true)
    }

    @Test("Codable round trip through JSONEncoder/JSONDecoder keeps integers as integers")
    func codableRoundTrip() throws {
        let value: FrontmailValue = ["i": 3, "d": 2.5, "s": "x", "b": false, "n": nil, "a": [1, [2]], "o": ["k": "v"]]
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(FrontmailValue.self, from: data)
        #expect(decoded == value)
        #expect(try JSONReader.parse(data) == value)
    }

    @Test("Hashable: equal values hash equally and work as set members")
    func hashable() {
        let set: Set<FrontmailValue> = [["a": 1], ["a": 1], [1, 2], "x"]
        #expect(set.count == 3)
    }
}
