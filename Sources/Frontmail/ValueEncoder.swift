import Foundation

/// Encodes any `Encodable` into a `FrontmailValue` tree.
///
/// Property names are kept as they are; `Date` becomes an ISO-8601 UTC string (whole seconds, like
/// `JSONEncoder`'s `.iso8601`), `Data` a base64 string, `URL` its absolute string, `Decimal` a number.
/// Non-finite floating-point values throw.
package enum ValueEncoder {
    package static func encode(_ value: some Encodable) throws -> FrontmailValue {
        if let special = try specialValue(value) { return special }
        let root = EncodingNode()
        let encoder = TreeEncoder(node: root, codingPath: [])
        try value.encode(to: encoder)
        return root.value ?? .object([:])
    }

    fileprivate static func specialValue(_ value: some Encodable) throws -> FrontmailValue? {
        switch value {
        case let value as FrontmailValue: return value
        case let date as Date: return .string(ISO8601.string(from: date))
        case let data as Data: return .string(data.base64EncodedString())
        case let url as URL: return .string(url.absoluteString)
        case let decimal as Decimal: return .double(NSDecimalNumber(decimal: decimal).doubleValue)
        default: return nil
        }
    }
}

/// A slot that a container fills in: a scalar, an array or an object under construction.
private final class EncodingNode {
    enum Content {
        case empty
        case value(FrontmailValue)
        case array([EncodingNode])
        case object([String: EncodingNode])
    }

    var content: Content = .empty

    var value: FrontmailValue? {
        switch content {
        case .empty: return nil
        case .value(let value): return value
        case .array(let nodes): return .array(nodes.map { $0.value ?? .object([:]) })
        case .object(let nodes):
            var members = [String: FrontmailValue](minimumCapacity: nodes.count)
            for (key, node) in nodes { members[key] = node.value ?? .object([:]) }
            return .object(members)
        }
    }

    func makeObject() {
        if case .object = content { return }
        content = .object([:])
    }

    func makeArray() {
        if case .array = content { return }
        content = .array([])
    }

    func child(forKey key: String) -> EncodingNode {
        guard case .object(var nodes) = content else { preconditionFailure("not an object node") }
        if let existing = nodes[key] { return existing }
        let node = EncodingNode()
        content = .empty  // drop the reference so the dictionary is mutated in place
        nodes[key] = node
        content = .object(nodes)
        return node
    }

    func appendChild() -> EncodingNode {
        guard case .array(var nodes) = content else { preconditionFailure("not an array node") }
        let node = EncodingNode()
        content = .empty
        nodes.append(node)
        content = .array(nodes)
        return node
    }

    var arrayCount: Int {
        if case .array(let nodes) = content { return nodes.count }
        return 0
    }
}

private struct IndexKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}

private struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

private struct TreeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node, codingPath: codingPath)
    }
}

/// Stores one encoded value into `node`, shared by all container kinds.
private func store(_ value: some Encodable, in node: EncodingNode, codingPath: [any CodingKey]) throws {
    if let special = try ValueEncoder.specialValue(value) {
        node.content = .value(special)
        return
    }
    try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
}

private func checkedDouble(_ value: Double, codingPath: [any CodingKey]) throws -> FrontmailValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(
            value,
            EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a valid JSON number"))
    }
    return .double(value)
}

private func checkedInteger<T: BinaryInteger>(_ value: T, codingPath: [any CodingKey]) throws -> FrontmailValue {
    guard let integer = Int(exactly: value) else {
        throw EncodingError.invalidValue(
            value,
            EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) does not fit in a 64-bit integer")
        )
    }
    return .integer(integer)
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    private func slot(_ key: Key) -> EncodingNode { node.child(forKey: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { slot(key).content = .value(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).content = .value(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot(key).content = .value(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        slot(key).content = .value(try checkedDouble(value, codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        slot(key).content = .value(try checkedDouble(Double(value), codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { slot(key).content = .value(.integer(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        slot(key).content = .value(try checkedInteger(value, codingPath: codingPath + [key]))
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { slot(key).content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        slot(key).content = .value(try checkedInteger(value, codingPath: codingPath + [key]))
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try store(value, in: slot(key), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = slot(key)
        child.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = slot(key)
        child.makeArray()
        return UnkeyedContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.child(forKey: "super"), codingPath: codingPath + [SuperKey()])
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: slot(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.arrayCount }

    private func next() -> EncodingNode { node.appendChild() }
    private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }

    mutating func encodeNil() throws { next().content = .value(.null) }
    mutating func encode(_ value: Bool) throws { next().content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { next().content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws {
        next().content = .value(try checkedDouble(value, codingPath: nextPath))
    }
    mutating func encode(_ value: Float) throws {
        next().content = .value(try checkedDouble(Double(value), codingPath: nextPath))
    }
    mutating func encode(_ value: Int) throws { next().content = .value(.integer(value)) }
    mutating func encode(_ value: Int8) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws {
        next().content = .value(try checkedInteger(value, codingPath: nextPath))
    }
    mutating func encode(_ value: UInt8) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { next().content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws {
        next().content = .value(try checkedInteger(value, codingPath: nextPath))
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try store(value, in: next(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let path = nextPath
        let child = next()
        child.makeObject()
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = next()
        child.makeArray()
        return UnkeyedContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return TreeEncoder(node: next(), codingPath: path)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode(_ value: Bool) throws { node.content = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { node.content = .value(.string(value)) }
    mutating func encode(_ value: Double) throws {
        node.content = .value(try checkedDouble(value, codingPath: codingPath))
    }
    mutating func encode(_ value: Float) throws {
        node.content = .value(try checkedDouble(Double(value), codingPath: codingPath))
    }
    mutating func encode(_ value: Int) throws { node.content = .value(.integer(value)) }
    mutating func encode(_ value: Int8) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws {
        node.content = .value(try checkedInteger(value, codingPath: codingPath))
    }
    mutating func encode(_ value: UInt8) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { node.content = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws {
        node.content = .value(try checkedInteger(value, codingPath: codingPath))
    }
    mutating func encode<T: Encodable>(_ value: T) throws { try store(value, in: node, codingPath: codingPath) }
}
