import Foundation
import Testing

@testable import Frontmail

@Suite("Encodable params streamed into the body: the tree path's bytes, or a fall back to it")
struct StreamEncoderTests {
    /// What the tree path writes for `value`.
    private func treeBytes<T: Encodable>(_ value: T) throws -> String {
        guard case .object(let pairs) = try ValueEncoder.encodeNode(value) else {
            Issue.record("not an object")
            return ""
        }
        var writer = JSONWriter()
        try writer.writePairs(pairs)
        return writer.string
    }

    /// What the stream writes after `prefix`, or nil when it falls back (the prefix then intact).
    private func streamBytes<T: Encodable>(_ value: T, prefix: String = "") -> String? {
        var writer = JSONWriter(capacity: 0)
        prefix.utf8.withContiguousStorageIfAvailable { writer.writeBytes(UnsafeRawBufferPointer($0)) }
        let streamed = StreamEncoder.writeObject(value, into: &writer)
        let text = writer.string
        guard streamed else {
            #expect(text == prefix, "a fall back leaves the writer as it was")
            return nil
        }
        #expect(text.hasPrefix(prefix))
        return String(text.dropFirst(prefix.count))
    }

    @Test("synthesized Codable types stream, byte for byte as the tree path writes them")
    func synthesized() throws {
        struct Wrapper: Encodable {
            var order = ValueEncoderTests.order
            var orders = [ValueEncoderTests.order, ValueEncoderTests.order]
            var empty: [String: Int] = [:]
            var nothing: [Int] = []
            var maybe: Int? = 3
            var absent: Int?
            var nested: [[String: [Double]]] = [["b": [1.5, -0.0], "a": []], [:]]
            var value: FrontmailValue = ["z": 1, "a": [true, nil, "x"]]
            var decimal = Decimal(string: "12.75")!
            var float: Float = 0.1
            var tiny: Int8 = -8
            var unsigned: UInt = 42
            var text = "quote \" backslash \\ newline \n tab \t control \u{01} é 😀"
        }
        let value = Wrapper()
        let streamed = streamBytes(value, prefix: "{\"k\":")
        #expect(streamed != nil)
        #expect(try streamed == treeBytes(value))
        #expect(try streamBytes(ValueEncoderTests.order) == treeBytes(ValueEncoderTests.order))
    }

    @Test("random objects with repeated, escaped and non-ASCII keys stream as the tree writes them")
    func randomTrees() throws {
        var generator = SplitMix64(seed: 11)
        var streamedCount = 0
        for _ in 0..<400 {
            let tree = DynamicTree.randomObject(using: &generator, depth: 3)
            let streamed = streamBytes(tree)
            #expect(streamed != nil)
            if streamed != nil { streamedCount += 1 }
            #expect(try streamed == treeBytes(tree))
        }
        #expect(streamedCount == 400)
    }

    @Test("a value that opens no container is written as {} (as the tree path does)")
    func emptyValue() throws {
        struct Silent: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Holder: Encodable {
            var silent = Silent()
            var list = [Silent(), Silent()]
        }
        #expect(streamBytes(Holder()) == #"{"list":[{},{}],"silent":{}}"#)
        #expect(try streamBytes(Holder()) == treeBytes(Holder()))
    }

    @Test("uses a stream cannot follow fall back, leaving the writer as it was", arguments: Unfollowable.allCases)
    func unfollowable(use: Unfollowable) throws {
        let value = UnfollowableValue(use: use)
        #expect(streamBytes(value, prefix: "[1,") == nil)
        // The SDK's writer then takes the tree path: the same bytes as before streaming existed.
        var writer = JSONWriter()
        try Frontmail.writeParams(value, into: &writer)
        #expect(try writer.string == treeBytes(value))
    }

    @Test("a container asked for twice by one value continues the same object")
    func containerTwice() throws {
        struct Twice: Encodable {
            enum Keys: String, CodingKey { case b, a }
            func encode(to encoder: any Encoder) throws {
                var first = encoder.container(keyedBy: Keys.self)
                try first.encode(1, forKey: .b)
                var second = encoder.container(keyedBy: Keys.self)
                try second.encode(2, forKey: .a)
                try first.encode(3, forKey: .b)
            }
        }
        #expect(streamBytes(Twice()) == #"{"a":2,"b":3}"#)
        #expect(try streamBytes(Twice()) == treeBytes(Twice()))
    }

    @Test("errors fall back, and the tree path throws them with their coding path")
    func errors() async throws {
        struct Line: Encodable { var price: Double }
        struct Cart: Encodable { var lines: [Line] }
        let cart = Cart(lines: [Line(price: 1), Line(price: .nan)])
        #expect(streamBytes(cart) == nil)
        var writer = JSONWriter()
        #expect(throws: FrontmailError.self) { try Frontmail.writeParams(cart, into: &writer) }
        do {
            try Frontmail.writeParams(cart, into: &writer)
        } catch {
            #expect(error.message.contains("lines[1].price"), "\(error.message)")
        }
    }

    @Test("params that are not an object fall back (the tree path refuses them)")
    func notAnObject() {
        #expect(streamBytes([1, 2]) == nil)
        #expect(streamBytes("text") == nil)
        #expect(streamBytes(Optional<Int>.none) == nil)
    }

    @Test("a streamed value's encode(to:) runs once")
    func encodesOnce() throws {
        // Counts calls in this one synchronous test; read only after the encode returned.
        final class Counter: @unchecked Sendable {
            var calls = 0
        }
        struct Counted: Encodable {
            let counter: Counter
            func encode(to encoder: any Encoder) throws {
                counter.calls += 1
                var container = encoder.container(keyedBy: DynamicKey.self)
                try container.encode(1, forKey: DynamicKey("n"))
            }
        }
        let counter = Counter()
        var writer = JSONWriter()
        try Frontmail.writeParams(Counted(counter: counter), into: &writer)
        #expect(writer.string == #"{"n":1}"#)
        #expect(counter.calls == 1)
    }
}

/// The container uses a stream cannot follow.
enum Unfollowable: String, CaseIterable, Sendable {
    /// A nested container written to after its parent went on.
    case nestedAfterParent
    /// A super encoder.
    case superEncoder
    /// A keyed container, then an unkeyed one, for one value.
    case twoKinds
    /// A single-value container written twice.
    case singleTwice
    /// A container of an element written after the next element began.
    case staleElement
}

struct UnfollowableValue: Encodable {
    var use: Unfollowable

    struct Inner: Encodable {
        var use: Unfollowable
        func encode(to encoder: any Encoder) throws {
            switch use {
            case .twoKinds:
                var keyed = encoder.container(keyedBy: DynamicKey.self)
                try keyed.encode(1, forKey: DynamicKey("k"))
                var unkeyed = encoder.unkeyedContainer()
                try unkeyed.encode(2)
            case .singleTwice:
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode(2)
            default:
                var single = encoder.singleValueContainer()
                try single.encode("inner")
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: DynamicKey.self)
        try container.encode("first", forKey: DynamicKey("z"))
        switch use {
        case .nestedAfterParent:
            var nested = container.nestedContainer(keyedBy: DynamicKey.self, forKey: DynamicKey("n"))
            try container.encode(1, forKey: DynamicKey("a"))
            try nested.encode("late", forKey: DynamicKey("x"))
        case .superEncoder:
            try "sup".encode(to: container.superEncoder())
        case .twoKinds, .singleTwice:
            try container.encode(Inner(use: use), forKey: DynamicKey("inner"))
        case .staleElement:
            var list = container.nestedUnkeyedContainer(forKey: DynamicKey("list"))
            var first = list.nestedContainer(keyedBy: DynamicKey.self)
            try list.encode(2)
            try first.encode(1, forKey: DynamicKey("late"))
        }
    }
}

struct DynamicKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A random JSON-like tree that encodes through keyed, unkeyed and single-value containers (never
/// as a `FrontmailValue`, which both paths write with the same writer).
enum DynamicTree: Encodable {
    case object([(String, DynamicTree)])
    case array([DynamicTree])
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case null
    case date(Date)

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .object(let members):
            var container = encoder.container(keyedBy: DynamicKey.self)
            for (key, value) in members {
                switch value {
                case .string(let text): try container.encode(text, forKey: DynamicKey(key))
                case .integer(let number): try container.encode(number, forKey: DynamicKey(key))
                case .null: try container.encodeNil(forKey: DynamicKey(key))
                default: try container.encode(value, forKey: DynamicKey(key))
                }
            }
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements {
                if case .bool(let flag) = element {
                    try container.encode(flag)
                } else {
                    try container.encode(element)
                }
            }
        case .string(let text):
            var container = encoder.singleValueContainer()
            try container.encode(text)
        case .integer(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .double(let number):
            var container = encoder.singleValueContainer()
            try container.encode(number)
        case .bool(let flag):
            var container = encoder.singleValueContainer()
            try container.encode(flag)
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .date(let date):
            var container = encoder.singleValueContainer()
            try container.encode(date)
        }
    }

    /// Keys from a small pool, so repeats are common; some need escaping, some are not ASCII.
    static let keys = ["a", "b", "B", "é", "e\u{301}", "key", "key2", "quote\"", "tab\t", "😀", "", "aa", "a\u{0}"]

    static func randomObject(using generator: inout SplitMix64, depth: Int) -> DynamicTree {
        let count = Int(generator.next() % 7)
        var members: [(String, DynamicTree)] = []
        for _ in 0..<count {
            let key = keys[Int(generator.next() % UInt64(keys.count))]
            members.append((key, random(using: &generator, depth: depth - 1)))
        }
        return .object(members)
    }

    static func random(using generator: inout SplitMix64, depth: Int) -> DynamicTree {
        let pick = generator.next() % (depth > 0 ? 9 : 7)
        switch pick {
        case 0:
            return .string(
                ["", "x", "long text that needs no escaping at all", "a\"b\\c\n", "ü€"][Int(generator.next() % 5)])
        case 1: return .integer(Int(truncatingIfNeeded: generator.next()) >> Int(generator.next() % 64))
        case 2: return .double(Double(Int64(truncatingIfNeeded: generator.next() % 100_000)) / 64)
        case 3: return .bool(generator.next() % 2 == 0)
        case 4: return .null
        case 5: return .date(Date(timeIntervalSince1970: Double(generator.next() % 4_000_000_000)))
        case 6: return .integer(Int(generator.next() % 10))
        case 7: return randomObject(using: &generator, depth: depth)
        default:
            return .array((0..<Int(generator.next() % 5)).map { _ in random(using: &generator, depth: depth - 1) })
        }
    }
}
