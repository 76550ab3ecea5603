import Foundation

/// Encodes an `Encodable` straight into a `JSONWriter`, with no tree in between.
///
/// Members are written as they arrive; when an object closes, its members are put in sorted key
/// order (the last of a repeated key kept) by moving their bytes, so the output is byte for byte what
/// the tree path (`ValueEncoder.encodeNode` + `JSONWriter.writePairs`) writes. Containers must be
/// used as a stack, the way synthesized and almost all hand-written `encode(to:)` use them: a
/// container written to after a sibling or its parent went on, a super encoder, or a second kind
/// of container for one value ends the attempt, and the caller falls back to the tree path, which
/// supports every use. So does any error (the tree path then throws it with its coding path).
package enum StreamEncoder {
    /// A value JSON cannot carry (a non-finite number, an integer beyond 64 bits). The stream ends
    /// and the tree path encodes again, throwing the error with its coding path.
    struct Unwritable: Error {}

    /// Writes `value`, which must encode to a JSON object, at the end of `writer`. Returns false,
    /// with `writer` as it was, when the value needs the tree path (see above).
    package static func writeObject<T: Encodable>(_ value: T, into writer: inout JSONWriter) -> Bool {
        if ValueEncoder.isSpecial(T.self) { return false }
        let state = StreamState()
        let mark = writer.count
        // The state is reached through its pointer, which does not keep the state alive.
        let written = withExtendedLifetime(state) {
            swap(&writer, &state.storage.pointee.writer)
            defer { swap(&writer, &state.storage.pointee.writer) }
            do {
                try state.encodeValue(value, depth: 0)
                return state.finish(rootAt: mark)
            } catch {
                return false
            }
        }
        if !written { writer.truncate(to: mark) }
        return written
    }
}

/// An open container of the stream.
struct OpenContainer {
    enum Kind { case object, array }
    var kind: Kind
    /// The value encode that opened it (its encoder may ask for it again).
    var owner: Int
    /// Where its first member starts (after `{` or `[`).
    var bodyStart: Int
    /// Its members' spans begin at this index of `StreamState.Storage.spans`.
    var spansStart: Int
    var count = 0
    /// Whether every key so far came after the one before it (nothing to reorder at the close).
    var sorted = true
    /// The span of the parent object that this container is the value of, finished at its close.
    var parentSpan: Int?
}

/// One member of an open object: `"key":value` from `start` to `end` of the writer.
struct MemberSpan {
    var key: String
    var start: Int
    var end: Int
}

/// The state of one stream encode. Its storage sits behind a pointer the object owns, so the hot
/// path pays no dynamic exclusivity check per write (as a class's stored properties would).
final class StreamState {
    struct Storage: ~Copyable {
        var writer = JSONWriter(capacity: 0)
        var open: [OpenContainer] = []
        var spans: [MemberSpan] = []
        /// The keys from the root to the value being encoded (depth-first, so a stack).
        var keys: [any CodingKey] = []
        var nextOwner = 0
        /// Set by a use the stream cannot follow; checked at the end.
        var abandoned = false
    }

    let storage: UnsafeMutablePointer<Storage>

    init() {
        storage = .allocate(capacity: 1)
        storage.initialize(to: Storage())
        storage.pointee.open.reserveCapacity(8)
        storage.pointee.spans.reserveCapacity(16)
    }

    deinit {
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    var abandoned: Bool { storage.pointee.abandoned }

    func abandon() { storage.pointee.abandoned = true }

    func path(depth: Int) -> [any CodingKey] { Array(storage.pointee.keys.prefix(depth)) }

    /// True when the whole value was written as one object starting at `mark`.
    func finish(rootAt mark: Int) -> Bool {
        closeAbove(level: 0)
        if storage.pointee.abandoned { return false }
        var startsWithBrace = false
        storage.pointee.writer.withWrittenBytes { bytes in
            startsWithBrace = bytes.count > mark && bytes[mark] == UInt8(ascii: "{")
        }
        return startsWithBrace
    }

    // MARK: Values

    /// Encodes a value that is not a primitive, in a new owner, at container level `level`: its
    /// encoder opens (at most) one container at that level. Writes `{}` if it opens none.
    func encodeValue<T: Encodable>(_ value: T, depth: Int) throws {
        if try writeSpecial(value, depth: depth) { return }
        let level = storage.pointee.open.count
        let owner = storage.pointee.nextOwner
        storage.pointee.nextOwner += 1
        let mark = storage.pointee.writer.count
        try value.encode(to: StreamingEncoder(state: self, owner: owner, level: level, depth: depth, mark: mark))
        closeAbove(level: level)
        if storage.pointee.writer.count == mark && !storage.pointee.abandoned {
            storage.pointee.writer.writeRaw("{}")
        }
    }

    /// The types with a JSON form of their own (as `ValueEncoder.specialNode` knows them).
    @inline(__always)
    private func writeSpecial<T: Encodable>(_ value: T, depth: Int) throws -> Bool {
        if T.self == String.self {
            storage.pointee.writer.writeString(unsafeBitCast(value, to: String.self))
        } else if T.self == Int.self {
            storage.pointee.writer.writeInteger(unsafeBitCast(value, to: Int.self))
        } else if T.self == Bool.self {
            storage.pointee.writer.writeRaw(unsafeBitCast(value, to: Bool.self) ? "true" : "false")
        } else if T.self == Double.self {
            try writeDouble(unsafeBitCast(value, to: Double.self), depth: depth)
        } else if T.self == Date.self {
            storage.pointee.writer.writeString(ISO8601.string(from: unsafeBitCast(value, to: Date.self)))
        } else if T.self == Data.self, let data = value as? Data {
            storage.pointee.writer.writeBase64String(data)
        } else if ValueEncoder.isSpecial(T.self) {
            // FrontmailValue, URL, Decimal: rare; through their node.
            guard let node = try ValueEncoder.specialNode(value, codingPath: { self.path(depth: depth) }) else {
                return false
            }
            do {
                try storage.pointee.writer.write(node)
            } catch {
                throw StreamEncoder.Unwritable()
            }
        } else {
            return false
        }
        return true
    }

    func writeDouble(_ value: Double, depth: Int) throws {
        guard value.isFinite else {
            throw StreamEncoder.Unwritable()
        }
        try? storage.pointee.writer.writeDouble(value)
    }

    // MARK: Containers

    /// Opens a container for `owner` (whose value starts at `mark`) at `level`, or returns the one
    /// it opened there before. Nil (and the stream abandoned) when that is not possible in a stream.
    func container(_ kind: OpenContainer.Kind, owner: Int, level: Int, mark: Int) -> Int? {
        if level < storage.pointee.open.count {
            guard storage.pointee.open[level].owner == owner, storage.pointee.open[level].kind == kind else {
                abandon()
                return nil
            }
            closeAbove(level: level + 1)
            return level
        }
        guard level == storage.pointee.open.count, storage.pointee.writer.count == mark else {
            abandon()
            return nil
        }
        return push(kind, owner: owner, parentSpan: nil)
    }

    /// Whether `owner`'s value (at `level`, starting at `mark`) may be written as a single value:
    /// nothing written for it yet and no container of its open.
    func singleWritable(level: Int, mark: Int) -> Bool {
        guard storage.pointee.open.count == level, storage.pointee.writer.count == mark else {
            abandon()
            return false
        }
        return true
    }

    private func push(_ kind: OpenContainer.Kind, owner: Int, parentSpan: Int?) -> Int {
        storage.pointee.writer.writeByte(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        storage.pointee.open.append(
            OpenContainer(
                kind: kind, owner: owner, bodyStart: storage.pointee.writer.count,
                spansStart: storage.pointee.spans.count, parentSpan: parentSpan))
        return storage.pointee.open.count - 1
    }

    /// Makes the container at `level` (owned by `owner`) the innermost, closing those inside it.
    /// False (and the stream abandoned) when it is closed already.
    @inline(__always)
    func activate(level: Int, owner: Int) -> Bool {
        guard level < storage.pointee.open.count, storage.pointee.open[level].owner == owner else {
            abandon()
            return false
        }
        if level + 1 < storage.pointee.open.count { closeAbove(level: level + 1) }
        return true
    }

    /// Starts the next member of the object at `level` (which is active): the comma and the key.
    /// Returns the member's span index.
    func beginMember(level: Int, key: String) -> Int {
        if storage.pointee.open[level].count > 0 { storage.pointee.writer.writeByte(UInt8(ascii: ",")) }
        let start = storage.pointee.writer.count
        storage.pointee.writer.writeKey(key)
        let spansStart = storage.pointee.open[level].spansStart
        if storage.pointee.open[level].sorted && storage.pointee.spans.count > spansStart {
            // A repeated key counts as out of order: the close keeps its last value.
            if !(storage.pointee.spans[storage.pointee.spans.count - 1].key < key) {
                storage.pointee.open[level].sorted = false
            }
        }
        storage.pointee.spans.append(MemberSpan(key: key, start: start, end: start))
        storage.pointee.open[level].count += 1
        return storage.pointee.spans.count - 1
    }

    func endMember(_ span: Int) {
        storage.pointee.spans[span].end = storage.pointee.writer.count
    }

    /// Starts the next element of the array at `level` (which is active): the comma.
    func beginElement(level: Int) {
        if storage.pointee.open[level].count > 0 { storage.pointee.writer.writeByte(UInt8(ascii: ",")) }
        storage.pointee.open[level].count += 1
    }

    /// Opens a nested container as the value of a member (`span`) or an element (nil).
    func nested(_ kind: OpenContainer.Kind, parentSpan: Int?) -> (level: Int, owner: Int) {
        let owner = storage.pointee.nextOwner
        storage.pointee.nextOwner += 1
        return (push(kind, owner: owner, parentSpan: parentSpan), owner)
    }

    /// Closes every container from `level` inward, innermost first.
    func closeAbove(level: Int) {
        while storage.pointee.open.count > level {
            let container = storage.pointee.open.removeLast()
            if container.kind == .object {
                if !container.sorted { sortMembers(container) }
                storage.pointee.spans.removeSubrange(container.spansStart...)
                storage.pointee.writer.writeByte(UInt8(ascii: "}"))
            } else {
                storage.pointee.writer.writeByte(UInt8(ascii: "]"))
            }
            if let span = container.parentSpan { endMember(span) }
        }
    }

    /// Rewrites the members of `container` in sorted key order, the last of a repeated key kept
    /// (what `JSONWriter.writePairs` writes for the same pairs).
    private func sortMembers(_ container: OpenContainer) {
        let bodyStart = container.bodyStart
        let length = storage.pointee.writer.count - bodyStart
        let memberCount = storage.pointee.spans.count - container.spansStart
        withUnsafeTemporaryAllocation(byteCount: length, alignment: 1) { copy in
            storage.pointee.writer.withWrittenBytes { written in
                copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: written[bodyStart...]))
            }
            storage.pointee.writer.truncate(to: bodyStart)
            storage.pointee.spans.withUnsafeBufferPointer { allSpans in
                let spans = UnsafeBufferPointer(rebasing: allSpans[container.spansStart...])
                withUnsafeTemporaryAllocation(of: Int.self, capacity: memberCount) { order in
                    JSONWriter.sortSlots(order, by: { spans[$0].key < spans[$1].key })
                    var first = true
                    for rank in 0..<memberCount {
                        let slot = order[rank]
                        if rank + 1 < memberCount && spans[order[rank + 1]].key == spans[slot].key { continue }
                        if !first { storage.pointee.writer.writeByte(UInt8(ascii: ",")) }
                        first = false
                        let span = spans[slot]
                        storage.pointee.writer.writeBytes(
                            UnsafeRawBufferPointer(rebasing: copy[(span.start - bodyStart)..<(span.end - bodyStart)]))
                    }
                }
            }
        }
    }
}
