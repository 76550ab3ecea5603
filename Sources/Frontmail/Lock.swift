import Foundation

/// A mutex around a value. The SDK may not use `Synchronization` (its floor is iOS 15).
///
/// `@unchecked Sendable`: every access to `value` goes through `withLock`, under `NSLock`.
final class Lock<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
