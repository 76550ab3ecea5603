import Foundation

// The containers of `StreamEncoder`. A container whose `level` is nil could not be opened in a
// stream (the stream is abandoned already); its writes do nothing.

struct StreamingKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: StreamState
    let level: Int?
    let owner: Int
    let depth: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }

    /// Writes one member whose value `write` puts in the writer.
    @inline(__always)
    private func member(_ key: Key, _ write: (inout JSONWriter) -> Void) {
        guard let level, state.activate(level: level, owner: owner) else { return }
        let span = state.beginMember(level: level, key: key.stringValue)
        write(&state.storage.pointee.writer)
        state.endMember(span)
    }

    private func integer(_ value: some BinaryInteger, _ key: Key) throws {
        guard let integer = Int(exactly: value) else {
            throw StreamEncoder.Unwritable()
        }
        member(key) { $0.writeInteger(integer) }
    }

    mutating func encodeNil(forKey key: Key) throws { member(key) { $0.writeRaw("null") } }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        member(key) { $0.writeRaw(value ? "true" : "false") }
    }
    mutating func encode(_ value: String, forKey key: Key) throws { member(key) { $0.writeString(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        guard value.isFinite else {
            throw StreamEncoder.Unwritable()
        }
        member(key) { try? $0.writeDouble(value) }
    }
    mutating func encode(_ value: Float, forKey key: Key) throws { try encode(Double(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { member(key) { $0.writeInteger(value) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        guard let level, state.activate(level: level, owner: owner) else { return }
        let span = state.beginMember(level: level, key: key.stringValue)
        state.enter(key, depth: depth)
        try state.encodeValue(value, depth: depth + 1)
        state.leave(depth: depth)
        state.endMember(span)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        guard let nested = open(.object, key) else {
            return KeyedEncodingContainer(
                StreamingKeyedContainer<NestedKey>(state: state, level: nil, owner: -1, depth: depth + 1))
        }
        return KeyedEncodingContainer(
            StreamingKeyedContainer<NestedKey>(state: state, level: nested.level, owner: nested.owner, depth: depth + 1)
        )
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = open(.array, key)
        return StreamingUnkeyedContainer(
            state: state, level: nested?.level, owner: nested?.owner ?? -1, depth: depth + 1)
    }

    private func open(_ kind: OpenContainer.Kind, _ key: Key) -> (level: Int, owner: Int)? {
        guard let level, state.activate(level: level, owner: owner) else { return nil }
        let span = state.beginMember(level: level, key: key.stringValue)
        state.enter(key, depth: depth)
        return state.nested(kind, parentSpan: span)
    }

    mutating func superEncoder() -> any Encoder { StreamingEncoder.unfollowable(state, depth: depth + 1) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        StreamingEncoder.unfollowable(state, depth: depth + 1)
    }
}

struct StreamingUnkeyedContainer: UnkeyedEncodingContainer, StreamingScalarSink {
    let state: StreamState
    let level: Int?
    let owner: Int
    let depth: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }

    var count: Int {
        guard let level, level < state.storage.pointee.open.count, state.storage.pointee.open[level].owner == owner
        else { return 0 }
        return state.storage.pointee.open[level].count
    }

    @inline(__always)
    func put(_ write: (inout JSONWriter) -> Void) {
        guard let level, state.activate(level: level, owner: owner) else { return }
        state.beginElement(level: level)
        write(&state.storage.pointee.writer)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let level, state.activate(level: level, owner: owner) else { return }
        state.enter(IndexKey(count), depth: depth)
        state.beginElement(level: level)
        try state.encodeValue(value, depth: depth + 1)
        state.leave(depth: depth)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let nested = open(.object)
        return KeyedEncodingContainer(
            StreamingKeyedContainer<NestedKey>(
                state: state, level: nested?.level, owner: nested?.owner ?? -1, depth: depth + 1))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = open(.array)
        return StreamingUnkeyedContainer(
            state: state, level: nested?.level, owner: nested?.owner ?? -1, depth: depth + 1)
    }

    private func open(_ kind: OpenContainer.Kind) -> (level: Int, owner: Int)? {
        guard let level, state.activate(level: level, owner: owner) else { return nil }
        state.enter(IndexKey(count), depth: depth)
        state.beginElement(level: level)
        return state.nested(kind, parentSpan: nil)
    }

    mutating func superEncoder() -> any Encoder { StreamingEncoder.unfollowable(state, depth: depth + 1) }
}

struct StreamingSingleContainer: SingleValueEncodingContainer, StreamingScalarSink {
    let state: StreamState
    let level: Int
    let depth: Int
    let mark: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }

    @inline(__always)
    func put(_ write: (inout JSONWriter) -> Void) {
        guard state.singleWritable(level: level, mark: mark) else { return }
        write(&state.storage.pointee.writer)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        guard state.singleWritable(level: level, mark: mark) else { return }
        state.leave(depth: depth)
        try state.encodeValue(value, depth: depth)
    }
}

/// A container that writes one unkeyed value at a time (an array's next element, a single value):
/// the checks of integers and doubles it shares.
protocol StreamingScalarSink {
    /// Writes one value, or nothing when the stream was abandoned.
    func put(_ write: (inout JSONWriter) -> Void)
}

/// The scalar members of an unkeyed and a single-value container, written once for both.
extension StreamingScalarSink {
    func encodeNil() throws { put { $0.writeRaw("null") } }
    func encode(_ value: Bool) throws { put { $0.writeRaw(value ? "true" : "false") } }
    func encode(_ value: String) throws { put { $0.writeString(value) } }
    func encode(_ value: Double) throws { try putDouble(value) }
    func encode(_ value: Float) throws { try putDouble(Double(value)) }
    func encode(_ value: Int) throws { put { $0.writeInteger(value) } }
    func encode(_ value: Int8) throws { try putInteger(value) }
    func encode(_ value: Int16) throws { try putInteger(value) }
    func encode(_ value: Int32) throws { try putInteger(value) }
    func encode(_ value: Int64) throws { try putInteger(value) }
    func encode(_ value: UInt) throws { try putInteger(value) }
    func encode(_ value: UInt8) throws { try putInteger(value) }
    func encode(_ value: UInt16) throws { try putInteger(value) }
    func encode(_ value: UInt32) throws { try putInteger(value) }
    func encode(_ value: UInt64) throws { try putInteger(value) }

    func putInteger(_ value: some BinaryInteger) throws {
        guard let integer = Int(exactly: value) else {
            throw StreamEncoder.Unwritable()
        }
        put { $0.writeInteger(integer) }
    }

    func putDouble(_ value: Double) throws {
        guard value.isFinite else {
            throw StreamEncoder.Unwritable()
        }
        put { try? $0.writeDouble(value) }
    }
}
