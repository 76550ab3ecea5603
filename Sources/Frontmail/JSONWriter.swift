import Foundation

/// Writes JSON (RFC 8259) into one growing byte buffer.
///
/// Object keys are written in sorted order, so the same value gives the same bytes in every
/// process. Doubles use the shortest representation that round-trips; non-finite numbers are
/// rejected with the path of the offending value.
///
/// The buffer is the writer's own `malloc` block, so a write checks only the capacity (no
/// copy-on-write uniqueness check per byte, as an array pays), and `data()` hands the block to the
/// `Data` without copying it.
package struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    package private(set) var count = 0

    /// A writer with room for `capacity` bytes (0: nothing is allocated until the first write).
    package init(capacity: Int = 512) {
        self.capacity = max(capacity, 0)
        base = self.capacity == 0 ? Self.unallocated : Self.allocate(self.capacity)
    }

    deinit { if capacity > 0 { free(base) } }

    /// A copy of the bytes written so far.
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written so far, as a string.
    package var string: String { String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self) }

    /// The bytes as `Data` that owns the writer's buffer (no copy; the block keeps its capacity,
    /// at most twice what was written once the writer had to grow).
    package consuming func data() -> Data {
        let base = self.base
        let count = self.count
        let capacity = self.capacity
        discard self
        if capacity == 0 { return Data() }
        return Data(bytesNoCopy: base, count: count, deallocator: .free)
    }

    /// Stands in for the buffer of a writer that has allocated nothing (never read or freed).
    private static var unallocated: UnsafeMutablePointer<UInt8> { UnsafeMutablePointer(bitPattern: 0x10)! }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let block = malloc(capacity) else { fatalError("JSONWriter: out of memory (\(capacity) bytes)") }
        return block.assumingMemoryBound(to: UInt8.self)
    }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let needed = count + extra
        var newCapacity = max(capacity * 2, 64)
        while newCapacity < needed { newCapacity *= 2 }
        // A new block and a copy, not realloc: whether realloc can grow in place depends on the
        // heap's layout, which would make the allocation count per encode vary between processes.
        let block = Self.allocate(newCapacity)
        if capacity > 0 {
            block.update(from: base, count: count)
            free(base)
        }
        base = block
        capacity = newCapacity
    }

    /// Appends bytes from memory.
    @inline(__always)
    mutating func append(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        (base + count).update(from: source, count: length)
        count += length
    }

    /// Appends where `reserve` made room already.
    @inline(__always)
    mutating func appendReserved(_ source: UnsafePointer<UInt8>, _ length: Int) {
        (base + count).update(from: source, count: length)
        count &+= length
    }

    @inline(__always)
    mutating func appendReserved(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Removes what was written after `position` (a `count` read earlier).
    package mutating func truncate(to position: Int) {
        precondition(position >= 0 && position <= count, "JSONWriter: truncate past the end")
        count = position
    }

    /// Bytes that are already JSON (a part of this writer's output copied aside, say).
    package mutating func writeBytes(_ source: UnsafeRawBufferPointer) {
        guard let start = source.baseAddress, !source.isEmpty else { return }
        append(start.assumingMemoryBound(to: UInt8.self), source.count)
    }

    /// Lends the bytes written so far.
    package func withWrittenBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A number that JSON cannot carry (NaN or an infinity), with the path to it.
    package struct NonFiniteNumber: Error, Equatable {
        package var path: [String]
        package var value: Double

        package var pathDescription: String {
            var text = ""
            for component in path {
                if component.first == "[" || text.isEmpty {
                    text += component
                } else {
                    text += "." + component
                }
            }
            return text
        }
    }

    // MARK: Values

    package mutating func write(_ value: FrontmailValue) throws(NonFiniteNumber) {
        switch value {
        case .string(let string): writeString(string)
        case .integer(let integer): writeInteger(integer)
        case .double(let double): try writeDouble(double)
        case .bool(let bool): writeRaw(bool ? "true" : "false")
        case .null: writeRaw("null")
        case .array(let elements):
            append(UInt8(ascii: "["))
            for index in elements.indices {
                if index != 0 { append(UInt8(ascii: ",")) }
                do {
                    try write(elements[index])
                } catch {
                    throw error.prefixed("[\(index)]")
                }
            }
            append(UInt8(ascii: "]"))
        case .object(let members):
            try writeObject(members)
        }
    }

    /// Writes an object with its keys in sorted order.
    package mutating func writeObject(_ members: [String: FrontmailValue]) throws(NonFiniteNumber) {
        append(UInt8(ascii: "{"))
        let count = members.count
        if count == 1, let (key, value) = members.first {
            try writeMember(key, value)
        } else if count > 1 {
            // The members copied out in one pass of the dictionary's iterator, then an order of
            // their slots sorted by key: no key is moved or looked up again.
            typealias Member = (key: String, value: FrontmailValue)
            try withUnsafeTemporaryAllocation(of: Member.self, capacity: count) { buffer throws(NonFiniteNumber) in
                var copied = 0
                for member in members where copied < count {
                    buffer.initializeElement(at: copied, to: member)
                    copied += 1
                }
                try withUnsafeTemporaryAllocation(of: Int.self, capacity: copied) { order throws(NonFiniteNumber) in
                    Self.sortSlots(order, by: { buffer[$0].key < buffer[$1].key })
                    // Each member is moved out as it is written (no copy); after an error, the
                    // rest are moved out and dropped.
                    var rank = 0
                    defer {
                        while rank < copied {
                            _ = buffer.moveElement(from: order[rank])
                            rank += 1
                        }
                    }
                    while rank < copied {
                        if rank != 0 { append(UInt8(ascii: ",")) }
                        let member = buffer.moveElement(from: order[rank])
                        rank += 1
                        try writeMember(member.key, member.value)
                    }
                }
            }
        }
        append(UInt8(ascii: "}"))
    }

    private mutating func writeMember(_ key: String, _ value: FrontmailValue) throws(NonFiniteNumber) {
        writeKey(key)
        do {
            try write(value)
        } catch {
            throw error.prefixed(key)
        }
    }

    /// Writes `"key":`.
    package mutating func writeKey(_ key: String) {
        writeQuoted(key, then: UInt8(ascii: ":"))
    }

    /// Writes like `write(_:)`, but puts `null` where a number is not finite (for descriptions).
    package mutating func writeLenient(_ value: FrontmailValue) {
        do {
            try write(value)
        } catch {
            count = 0
            writeLenient(value.replacingNonFinite())
        }
    }

    // MARK: Base64

    /// Writes `data` as a quoted standard base64 string (RFC 4648, with padding).
    package mutating func writeBase64String(_ data: Data) {
        append(UInt8(ascii: "\""))
        data.withUnsafeBytes { writeBase64(UnsafeRawBufferPointer($0)) }
        append(UInt8(ascii: "\""))
    }

    package mutating func writeBase64(_ input: UnsafeRawBufferPointer) {
        let produced = Base64.encodedCount(input.count)
        reserve(produced)
        Base64.encode(input, into: UnsafeMutableBufferPointer(start: base + count, count: produced))
        count += produced
    }
}

extension JSONWriter.NonFiniteNumber {
    fileprivate func prefixed(_ component: String) -> Self {
        var copy = self
        copy.path.insert(component, at: 0)
        return copy
    }
}

extension FrontmailValue {
    fileprivate func replacingNonFinite() -> FrontmailValue {
        switch self {
        case .double(let value) where !value.isFinite: return .null
        case .array(let elements): return .array(elements.map { $0.replacingNonFinite() })
        case .object(let members): return .object(members.mapValues { $0.replacingNonFinite() })
        default: return self
        }
    }
}
