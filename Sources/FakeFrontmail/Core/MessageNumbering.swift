import Foundation
import Frontmail
import Synchronization

/// How an emulator numbers its messages. Shards of one run each have their own server in process:
/// shard i of N deals `n × N + i`, so message ids stay unique across the shards and the merged
/// ledger needs no renumbering (the history's message ids are the ones the client saw).
public struct MessageNumbering: Sendable, Hashable {
    public var stride: UInt32
    public var offset: UInt32

    /// One server for the whole run: 1, 2, 3, …
    public static let single = MessageNumbering(stride: 1, offset: 0)

    public init(stride: UInt32, offset: UInt32) {
        precondition(stride >= 1 && offset < stride, "offset must be below stride")
        self.stride = stride
        self.offset = offset
    }

    /// The number of the `count`-th commit (1-based), never 0 (0 means no message in the ledger).
    /// Past UInt32's range numbers wrap (four billion commits in one server).
    func number(_ count: UInt32) -> UInt32 { count &* stride &+ offset }

    /// Which commit dealt `number` (the inverse of `number(_:)`); nil for a number it never deals.
    func count(of number: UInt32) -> UInt32? {
        guard number >= offset, (number - offset) % stride == 0 else { return nil }
        return (number - offset) / stride
    }
}
