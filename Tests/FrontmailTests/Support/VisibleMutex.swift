#if FRONTMAIL_TSAN
    import Foundation

    /// ThreadSanitizer builds only (scripts/sanitize.sh): the tests' `Mutex` on `NSLock`, which
    /// ThreadSanitizer sees; the toolchain's waits on a futex it does not model (docs/sanitizers.md).
    /// This target imports only the SDK, so it keeps its own copy of FakeFrontmail's `VisibleMutex`.
    ///
    /// `@unchecked Sendable`: `value` is only read and written under `lock`.
    final class Mutex<Value>: @unchecked Sendable {
        private let lock = NSLock()
        private var value: Value

        init(_ value: consuming sending Value) { self.value = value }

        func withLock<Result, Failure: Error>(
            _ body: (inout sending Value) throws(Failure) -> sending Result
        ) throws(Failure) -> sending Result {
            lock.lock()
            defer { lock.unlock() }
            return try body(&value)
        }
    }
#endif
