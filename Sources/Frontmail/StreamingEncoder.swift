import Foundation

/// The encoder handed to one value's `encode(to:)`.
struct StreamingEncoder: Encoder {
    let state: StreamState
    let owner: Int
    let level: Int
    let depth: Int
    /// Where the value starts in the writer.
    let mark: Int
    var codingPath: [any CodingKey] { state.path(depth: depth) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// An encoder the stream cannot follow (a super encoder): every use of it abandons the stream.
    static func unfollowable(_ state: StreamState, depth: Int) -> StreamingEncoder {
        state.abandon()
        return StreamingEncoder(state: state, owner: -1, level: Int.max, depth: depth, mark: -1)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let at = state.container(.object, owner: owner, level: level, mark: mark)
        return KeyedEncodingContainer(StreamingKeyedContainer<Key>(state: state, level: at, owner: owner, depth: depth))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let at = state.container(.array, owner: owner, level: level, mark: mark)
        return StreamingUnkeyedContainer(state: state, level: at, owner: owner, depth: depth)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamingSingleContainer(state: state, level: level, depth: depth, mark: mark)
    }
}

/// The coding path of the value being encoded, for the tree path's errors.
extension StreamState {
    /// Puts `key` at `depth` of the key stack (for the value about to be encoded under it).
    func enter(_ key: any CodingKey, depth: Int) {
        let count = storage.pointee.keys.count
        if count > depth { storage.pointee.keys.removeSubrange(depth...) }
        storage.pointee.keys.append(key)
    }

    func leave(depth: Int) {
        if storage.pointee.keys.count > depth { storage.pointee.keys.removeSubrange(depth...) }
    }
}
