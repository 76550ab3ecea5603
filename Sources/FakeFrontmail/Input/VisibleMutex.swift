import Foundation

/// `Synchronization.Mutex`'s shape on `NSLock` (pthread), which ThreadSanitizer sees. On Linux the
/// toolchain's `Mutex` waits on a futex that ThreadSanitizer does not model, so every value it
/// guards reads as a race (docs/sanitizers.md). `scripts/sanitize.sh --thread` builds with
/// `-DFRONTMAIL_TSAN`, which points each module's `Mutex` here; every other build uses the
/// toolchain's.
///
/// `@unchecked Sendable`: `value` is only read and written under `lock`.
public final class VisibleMutex<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    public init(_ value: consuming sending Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout sending Value) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

#if FRONTMAIL_TSAN
    typealias Mutex = VisibleMutex
#endif
