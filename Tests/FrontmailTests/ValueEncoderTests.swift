import Foundation
import Testing

@testable import Frontmail

@Suite("Encodable params: names as they are, ISO-8601 dates, base64 data")
struct ValueEncoderTests {
    struct Item: Codable, Equatable {
        var sku: String
        var qty: Int
        var price: Double
    }

    enum Kind: String, Codable { case retail, wholesale }

    struct Order: Codable, Equatable {
        var orderID: String
        var placedAt: Date
        var items: [Item]
        var note: String?
        var tags: Set<String>
        var kind: Kind
        var receipt: Data
        var meta: [String: Int]
        var link: URL
        var small: UInt8
        var big: Int64
    }

    struct Renamed: Encodable {
        var firstName: String
        enum CodingKeys: String, CodingKey { case firstName = "first_name" }
    }

    static let order = Order(
        orderID: "1042", placedAt: Date(timeIntervalSince1970: 1_764_491_170.75),
        items: [Item(sku: "A-1", qty: 2, price: 9.5), Item(sku: "B-2", qty: 1, price: 0.1)], note: nil,
        tags: ["b", "a"], kind: .wholesale, receipt: Data([1, 2, 3, 250]), meta: ["x": 1],
        link: URL(string: "https://example.com/a?b=c")!, small: 7, big: -9_000_000_000)

    @Test("equivalent to JSONEncoder with sorted keys and .iso8601 dates (decoded and compared)")
    func matchesJSONEncoder() throws {
        let ours = try ValueEncoder.encode(Self.order)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        var theirs = try JSONReader.parse(try encoder.encode(Self.order))
        // Sets have no order: compare tags as sets.
        guard case .object(var ourMembers) = ours, case .object(var theirMembers) = theirs else {
            Issue.record("not objects")
            return
        }
        #expect(Set(ourMembers["tags"]?.arrayValue ?? []) == Set(theirMembers["tags"]?.arrayValue ?? []))
        ourMembers["tags"] = nil
        theirMembers["tags"] = nil
        theirs = .object(theirMembers)
        #expect(FrontmailValue.object(ourMembers) == theirs)
        #expect(ourMembers["placedAt"] == "2025-11-30T08:26:10Z")
        #expect(ourMembers["receipt"] == .string(Data([1, 2, 3, 250]).base64EncodedString()))
        #expect(ourMembers["note"] == nil)
        #expect(ourMembers["big"] == .integer(-9_000_000_000))
    }

    @Test("CodingKeys rename; property names are otherwise kept as they are")
    func names() throws {
        #expect(try ValueEncoder.encode(Renamed(firstName: "Jan")) == ["first_name": "Jan"])
        #expect(try ValueEncoder.encode(Self.order)["orderID"] == "1042")
    }

    static let dates: [(Double, String)] = [
        (-86_400.0 * 365, "1969-01-01T00:00:00Z"), (0, "1970-01-01T00:00:00Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        (4_102_444_799.9, "2099-12-31T23:59:59Z"), (-0.5, "1969-12-31T23:59:59Z"),
    ]

    @Test("dates before 1970 and far ahead format correctly", arguments: dates)
    func isoDates(seconds: Double, expected: String) throws {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test("params that are not an object throw invalid_params before any request")
    func nonObjectParams() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        for params in [AnyEncodable([1, 2]), AnyEncodable("text"), AnyEncodable(3)] {
            let error = await frontmailError { try await client.send(templateID: "t", params: params) }
            #expect(error?.code == .invalidParams)
            #expect(error?.isValidation == true)
            #expect(error?.message.contains("JSON object") == true)
        }
        #expect(transport.count == 0)
    }

    @Test("a non-finite number throws invalid_params naming its path")
    func nonFiniteParams() async throws {
        struct Bad: Encodable { var ratio: Double }
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        let encodable = await frontmailError { try await client.send(templateID: "t", params: Bad(ratio: .nan)) }
        let literal = await frontmailError {
            try await client.send(templateID: "t", params: ["a": ["b": .double(.infinity)]])
        }
        #expect(encodable?.code == .invalidParams)
        #expect(encodable?.message.contains("ratio") == true)
        #expect(literal?.code == .invalidParams)
        #expect(literal?.message.contains("template_params.a.b") == true)
        #expect(transport.count == 0)
    }

    @Test("an Encodable send puts the same params on the wire as the literal form")
    func encodableSend() async throws {
        struct Contact: Encodable {
            let email: String
            let message: String
        }
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        try await client.send(templateID: "tpl_contact", params: Contact(email: "e@x", message: "Hi"))
        try await client.send(templateID: "tpl_contact", params: ["email": "e@x", "message": "Hi"])
        let bodies = transport.requests.compactMap { $0.request.body }
        #expect(bodies.count == 2)
        #expect(bodies[0] == bodies[1])
    }

    @Test("errors deep inside nested values name their full path")
    func nestedErrorPath() async throws {
        struct Line: Encodable { var price: Double }
        struct Cart: Encodable {
            var owner = "x"
            var lines: [Line]
            var extra: [String: [Double]] = [:]
        }
        let client = try TestClient.make(ScriptedTransport([TestClient.accepted]))
        let inArray = await frontmailError {
            try await client.send(templateID: "t", params: Cart(lines: [Line(price: 1), Line(price: .infinity)]))
        }
        let arrayMessage = inArray?.message ?? ""
        #expect(arrayMessage.contains("lines[1].price"), "\(arrayMessage)")
        let inDictionary = await frontmailError {
            try await client.send(templateID: "t", params: Cart(lines: [], extra: ["k": [0, .nan]]))
        }
        #expect(inDictionary?.message.contains("extra.k[1]") == true, "\(inDictionary?.message ?? "")")
    }

    @Test("custom encode(to:) with nested containers, super encoders and repeated keys")
    func customEncodings() throws {
        struct Custom: Encodable {
            enum Keys: String, CodingKey { case a, b, c, nested, list }
            enum Inner: String, CodingKey { case x }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var nested = container.nestedContainer(keyedBy: Inner.self, forKey: .nested)
                try container.encode(1, forKey: .a)
                try nested.encode("late", forKey: .x)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(true)
                try list.encode(Date(timeIntervalSince1970: 0))
                try container.encode(2, forKey: .a)
                try "sup".encode(to: container.superEncoder(forKey: .b))
                var single = encoder.container(keyedBy: Keys.self)
                try single.encodeNil(forKey: .c)
            }
        }
        let value = try ValueEncoder.encode(Custom())
        #expect(
            value == ["a": 2, "b": "sup", "c": nil, "nested": ["x": "late"], "list": [true, "1970-01-01T00:00:00Z"]])
        var writer = JSONWriter()
        guard case .object(let pairs) = try ValueEncoder.encodeNode(Custom()) else {
            Issue.record("not an object")
            return
        }
        try writer.writePairs(pairs)
        #expect(
            writer.string
                == #"{"a":2,"b":"sup","c":null,"list":[true,"1970-01-01T00:00:00Z"],"nested":{"x":"late"}}"#)
    }

    @Test("UInt64 beyond Int.max is refused rather than rounded")
    func hugeUnsigned() throws {
        struct Huge: Encodable { var n: UInt64 }
        #expect(throws: EncodingError.self) { try ValueEncoder.encode(Huge(n: .max)) }
        #expect(try ValueEncoder.encode(Huge(n: 5)) == ["n": 5])
    }
}

/// Wraps any value so tests can pass mixed `Encodable`s.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}
