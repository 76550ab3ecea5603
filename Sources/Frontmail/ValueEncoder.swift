import Foundation

/// Encodes any `Encodable` for the wire.
///
/// Property names are kept as they are; `Date` becomes an ISO-8601 UTC string (whole seconds, like
/// `JSONEncoder`'s `.iso8601`), `Data` a base64 string, `URL` its absolute string, `Decimal` a number.
/// Non-finite floating-point values throw. Objects are collected as key/value pairs on a stack of
/// frames (no object per value) and written with sorted keys, the last value of a repeated key winning.
package enum ValueEncoder {
    /// The encoded tree: objects as pairs in encoding order.
    package enum Node {
        case value(FrontmailValue)
        case object([ValueEncoder.Pair])
        case array([Node])
        /// A nested container the caller may still be filling (resolved when read).
        case box(NodeBox)
    }

    /// One object member.
    package struct Pair {
        package var key: String
        package var value: Node
    }

    package final class NodeBox {
        var node: Node = .object([])
    }

    package static func encodeNode(_ value: some Encodable) throws -> Node {
        if let special = try specialNode(value, codingPath: { [] }) { return special }
        let state = EncoderState()
        let index = state.push()
        try value.encode(to: StackEncoder(state: state, frame: index, depth: 0))
        return state.pop()
    }

    package static func encode(_ value: some Encodable) throws -> FrontmailValue {
        try encodeNode(value).frontmailValue
    }

    /// Primitives and the types with a JSON form of their own, recognised by metatype (no casts
    /// for the common ones).
    @inline(__always)
    static func specialNode<T: Encodable>(_ value: T, codingPath: () -> [any CodingKey]) throws -> Node? {
        if T.self == String.self { return .value(.string(unsafeBitCast(value, to: String.self))) }
        if T.self == Int.self { return .value(.integer(unsafeBitCast(value, to: Int.self))) }
        if T.self == Bool.self { return .value(.bool(unsafeBitCast(value, to: Bool.self))) }
        if T.self == Double.self {
            return .value(try checkedDouble(unsafeBitCast(value, to: Double.self), codingPath: codingPath()))
        }
        if T.self == Date.self { return .value(.string(ISO8601.string(from: unsafeBitCast(value, to: Date.self)))) }
        if T.self == FrontmailValue.self, let value = value as? FrontmailValue { return .value(value) }
        if T.self == Data.self, let data = value as? Data { return .value(.string(data.base64EncodedString())) }
        if T.self == URL.self, let url = value as? URL { return .value(.string(url.absoluteString)) }
        if T.self == Decimal.self, let decimal = value as? Decimal {
            return .value(.double(NSDecimalNumber(decimal: decimal).doubleValue))
        }
        return nil
    }

    /// Whether `specialNode` turns values of `T` into a node of their own.
    @inline(__always)
    static func isSpecial<T: Encodable>(_ type: T.Type) -> Bool {
        T.self == String.self || T.self == Int.self || T.self == Bool.self || T.self == Double.self
            || T.self == Date.self || T.self == FrontmailValue.self || T.self == Data.self || T.self == URL.self
            || T.self == Decimal.self
    }

    static func checkedDouble(_ value: Double, codingPath: [any CodingKey]) throws -> FrontmailValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(codingPath: codingPath, debugDescription: "\(value) is not a valid JSON number"))
        }
        return .double(value)
    }

    static func checkedInteger<T: BinaryInteger>(_ value: T, codingPath: [any CodingKey]) throws -> FrontmailValue {
        guard let integer = Int(exactly: value) else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "\(value) does not fit in a 64-bit integer"))
        }
        return .integer(integer)
    }
}

extension ValueEncoder.Node {
    /// The tree as a `FrontmailValue` (a repeated key keeps its last value).
    package var frontmailValue: FrontmailValue {
        switch self {
        case .value(let value): return value
        case .array(let elements): return .array(elements.map(\.frontmailValue))
        case .object(let pairs):
            var members = [String: FrontmailValue](minimumCapacity: pairs.count)
            for pair in pairs { members[pair.key] = pair.value.frontmailValue }
            return .object(members)
        case .box(let box): return box.node.frontmailValue
        }
    }
}

/// The frames of the containers being filled, innermost last.
final class EncoderState {
    struct Frame {
        enum Kind { case empty, object, array, single }
        var kind = Kind.empty
        var pairs: [ValueEncoder.Pair] = []
        var elements: [ValueEncoder.Node] = []
        var single: ValueEncoder.Node?
    }

    var frames: [Frame] = []
    /// The keys from the root to the value being encoded (depth-first, so a stack).
    var keys: [any CodingKey] = []

    init() {
        frames.reserveCapacity(8)
        keys.reserveCapacity(16)
    }

    func path(depth: Int) -> [any CodingKey] { Array(keys.prefix(depth)) }

    func push() -> Int {
        var frame = Frame()
        frame.pairs.reserveCapacity(8)
        frames.append(frame)
        return frames.count - 1
    }

    func pop() -> ValueEncoder.Node {
        let frame = frames.removeLast()
        switch frame.kind {
        case .object, .empty: return .object(frame.pairs)
        case .array: return .array(frame.elements)
        case .single: return frame.single ?? .object([])
        }
    }

    /// Encodes `value`, reached through `key` from depth `depth`, in a new frame and returns its node.
    /// Coding paths are only built when read (from the key stack).
    func node<T: Encodable>(_ value: T, key: any CodingKey, depth: Int) throws -> ValueEncoder.Node {
        keys.removeSubrange(min(depth, keys.count)...)
        keys.append(key)
        defer { keys.removeSubrange(min(depth, keys.count)...) }
        if let special = try ValueEncoder.specialNode(value, codingPath: { self.path(depth: depth + 1) }) {
            return special
        }
        let index = push()
        do {
            try value.encode(to: StackEncoder(state: self, frame: index, depth: depth + 1))
        } catch {
            frames.removeSubrange(index...)
            throw error
        }
        return pop()
    }

    /// The same, for a value in a single-value container (no key of its own).
    func node<T: Encodable>(_ value: T, depth: Int) throws -> ValueEncoder.Node {
        keys.removeSubrange(min(depth, keys.count)...)
        if let special = try ValueEncoder.specialNode(value, codingPath: { self.path(depth: depth) }) { return special }
        let index = push()
        do {
            try value.encode(to: StackEncoder(state: self, frame: index, depth: depth))
        } catch {
            frames.removeSubrange(index...)
            throw error
        }
        return pop()
    }
}

struct StackEncoder: Encoder {
    let state: EncoderState
    let frame: Int
    let depth: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if state.frames[frame].kind == .empty { state.frames[frame].kind = .object }
        return KeyedEncodingContainer(PairContainer<Key>(target: .frame(state, frame), place: .depth(depth)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if state.frames[frame].kind != .array {
            state.frames[frame].kind = .array
            state.frames[frame].elements.reserveCapacity(8)
        }
        return ElementContainer(target: .frame(state, frame), place: .depth(depth))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        state.frames[frame].kind = .single
        return SingleContainer(state: state, frame: frame, depth: depth)
    }
}

/// Where a container sits: at a depth of the key stack, or (nested containers, super encoders)
/// at a path of its own.
enum ContainerPlace {
    case depth(Int)
    case path([any CodingKey])

    func codingPath(_ state: EncoderState) -> [any CodingKey] {
        switch self {
        case .depth(let depth): return state.path(depth: depth)
        case .path(let path): return path
        }
    }

    /// Encodes a nested value under `key`.
    func node<T: Encodable>(_ value: T, key: any CodingKey, state: EncoderState) throws -> ValueEncoder.Node {
        switch self {
        case .depth(let depth): return try state.node(value, key: key, depth: depth)
        case .path(let path):
            // Off the stack: put the path on it first.
            state.keys = path
            return try state.node(value, key: key, depth: path.count)
        }
    }
}

/// Where a container writes: a frame on the stack, or a box for a nested container.
enum ContainerTarget {
    case frame(EncoderState, Int)
    case box(ValueEncoder.NodeBox, EncoderState)

    var state: EncoderState {
        switch self {
        case .frame(let state, _), .box(_, let state): return state
        }
    }

    func appendPair(_ key: String, _ node: ValueEncoder.Node) {
        switch self {
        case .frame(let state, let index): state.frames[index].pairs.append(ValueEncoder.Pair(key: key, value: node))
        case .box(let box, _):
            guard case .object(var pairs) = box.node else { return }
            box.node = .object([])
            pairs.append(ValueEncoder.Pair(key: key, value: node))
            box.node = .object(pairs)
        }
    }

    func appendElement(_ node: ValueEncoder.Node) {
        switch self {
        case .frame(let state, let index): state.frames[index].elements.append(node)
        case .box(let box, _):
            guard case .array(var elements) = box.node else { return }
            box.node = .array([])
            elements.append(node)
            box.node = .array(elements)
        }
    }

    var elementCount: Int {
        switch self {
        case .frame(let state, let index): return state.frames[index].elements.count
        case .box(let box, _):
            if case .array(let elements) = box.node { return elements.count }
            return 0
        }
    }
}
