import Foundation

struct PairContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let target: ContainerTarget
    let place: ContainerPlace
    var codingPath: [any CodingKey] { place.codingPath(target.state) }

    private func put(_ value: FrontmailValue, _ key: Key) { target.appendPair(key.stringValue, .value(value)) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        put(try ValueEncoder.checkedDouble(value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        put(try ValueEncoder.checkedDouble(Double(value), codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        put(try ValueEncoder.checkedInteger(value, codingPath: codingPath + [key]), key)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(Int(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        put(try ValueEncoder.checkedInteger(value, codingPath: codingPath + [key]), key)
    }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        target.appendPair(key.stringValue, try place.node(value, key: key, state: target.state))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let box = ValueEncoder.NodeBox()
        target.appendPair(key.stringValue, .box(box))
        return KeyedEncodingContainer(
            PairContainer<NestedKey>(target: .box(box, target.state), place: .path(codingPath + [key])))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let box = ValueEncoder.NodeBox()
        box.node = .array([])
        target.appendPair(key.stringValue, .box(box))
        return ElementContainer(target: .box(box, target.state), place: .path(codingPath + [key]))
    }

    mutating func superEncoder() -> any Encoder {
        BoxEncoder(box: boxed("super"), state: target.state, codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        BoxEncoder(box: boxed(key.stringValue), state: target.state, codingPath: codingPath + [key])
    }

    private func boxed(_ key: String) -> ValueEncoder.NodeBox {
        let box = ValueEncoder.NodeBox()
        target.appendPair(key, .box(box))
        return box
    }
}

struct ElementContainer: UnkeyedEncodingContainer, TreeScalarSink {
    let target: ContainerTarget
    let place: ContainerPlace
    var codingPath: [any CodingKey] { place.codingPath(target.state) }
    var count: Int { target.elementCount }

    func put(_ value: FrontmailValue) { target.appendElement(.value(value)) }
    private var nextPath: [any CodingKey] { codingPath + [IndexKey(count)] }
    /// An unwritable value's path: the element it would have been.
    var scalarPath: [any CodingKey] { nextPath }

    mutating func encode<T: Encodable>(_ value: T) throws {
        target.appendElement(try place.node(value, key: IndexKey(count), state: target.state))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        let path = nextPath
        let box = ValueEncoder.NodeBox()
        target.appendElement(.box(box))
        return KeyedEncodingContainer(PairContainer<NestedKey>(target: .box(box, target.state), place: .path(path)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let box = ValueEncoder.NodeBox()
        box.node = .array([])
        target.appendElement(.box(box))
        return ElementContainer(target: .box(box, target.state), place: .path(path))
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        let box = ValueEncoder.NodeBox()
        target.appendElement(.box(box))
        return BoxEncoder(box: box, state: target.state, codingPath: path)
    }
}

struct SingleContainer: SingleValueEncodingContainer, TreeScalarSink {
    let state: EncoderState
    let frame: Int
    let depth: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }

    func put(_ value: FrontmailValue) { state.frames[frame].single = .value(value) }
    var scalarPath: [any CodingKey] { codingPath }

    mutating func encode<T: Encodable>(_ value: T) throws {
        state.frames[frame].single = try state.node(value, depth: depth)
    }
}

/// An encoder whose result goes into a box (super encoders, nested in the middle of a container).
struct BoxEncoder: Encoder {
    let box: ValueEncoder.NodeBox
    let state: EncoderState
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = box.node {} else { box.node = .object([]) }
        return KeyedEncodingContainer(PairContainer<Key>(target: .box(box, state), place: .path(codingPath)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = box.node {} else { box.node = .array([]) }
        return ElementContainer(target: .box(box, state), place: .path(codingPath))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        BoxSingleContainer(box: box, state: state, codingPath: codingPath)
    }
}

struct BoxSingleContainer: SingleValueEncodingContainer {
    let box: ValueEncoder.NodeBox
    let state: EncoderState
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { box.node = .value(.null) }
    mutating func encode(_ value: Bool) throws { box.node = .value(.bool(value)) }
    mutating func encode(_ value: String) throws { box.node = .value(.string(value)) }
    mutating func encode(_ value: Double) throws {
        box.node = .value(try ValueEncoder.checkedDouble(value, codingPath: codingPath))
    }
    mutating func encode(_ value: Float) throws {
        box.node = .value(try ValueEncoder.checkedDouble(Double(value), codingPath: codingPath))
    }
    mutating func encode(_ value: Int) throws { box.node = .value(.integer(value)) }
    mutating func encode(_ value: Int8) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int16) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int32) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: Int64) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt) throws {
        box.node = .value(try ValueEncoder.checkedInteger(value, codingPath: codingPath))
    }
    mutating func encode(_ value: UInt8) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt16) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt32) throws { box.node = .value(.integer(Int(value))) }
    mutating func encode(_ value: UInt64) throws {
        box.node = .value(try ValueEncoder.checkedInteger(value, codingPath: codingPath))
    }
    mutating func encode<T: Encodable>(_ value: T) throws {
        state.keys = codingPath
        box.node = try state.node(value, depth: codingPath.count)
    }
}

/// The key of an array element in a coding path ("Index 3"; the text is made only when read).
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}

/// The scalar members of the tree's unkeyed and single-value containers, written once for both.
protocol TreeScalarSink {
    /// Puts one value in the tree.
    func put(_ value: FrontmailValue)
    /// The coding path an unwritable value's error names.
    var scalarPath: [any CodingKey] { get }
}

extension TreeScalarSink {
    func encodeNil() throws { put(.null) }
    func encode(_ value: Bool) throws { put(.bool(value)) }
    func encode(_ value: String) throws { put(.string(value)) }
    func encode(_ value: Double) throws { put(try ValueEncoder.checkedDouble(value, codingPath: scalarPath)) }
    func encode(_ value: Float) throws { put(try ValueEncoder.checkedDouble(Double(value), codingPath: scalarPath)) }
    func encode(_ value: Int) throws { put(.integer(value)) }
    func encode(_ value: Int8) throws { put(.integer(Int(value))) }
    func encode(_ value: Int16) throws { put(.integer(Int(value))) }
    func encode(_ value: Int32) throws { put(.integer(Int(value))) }
    func encode(_ value: Int64) throws { put(.integer(Int(value))) }
    func encode(_ value: UInt) throws { put(try ValueEncoder.checkedInteger(value, codingPath: scalarPath)) }
    func encode(_ value: UInt8) throws { put(.integer(Int(value))) }
    func encode(_ value: UInt16) throws { put(.integer(Int(value))) }
    func encode(_ value: UInt32) throws { put(.integer(Int(value))) }
    func encode(_ value: UInt64) throws { put(try ValueEncoder.checkedInteger(value, codingPath: scalarPath)) }
}
