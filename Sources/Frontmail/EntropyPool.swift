#if os(Linux)
    import Foundation
    import Glibc

    /// The kernel's random bytes, fetched 256 at a time, for idempotency keys.
    ///
    /// One `getentropy` per key was a system call per send: about a twentieth of a send through the
    /// in-process fake. The pool lives in a page of its own that the kernel wipes in a forked child
    /// (`MADV_WIPEONFORK`), so a child never hands out a parent's bytes: it finds the pool empty and
    /// fetches its own. Bytes handed out are erased from the pool at once. Where the page cannot be
    /// set up so (a kernel before 4.14), `take16` returns nil and the caller asks the kernel per key.
    enum EntropyPool {
        private static let poolBytes = 256
        /// The count of unused bytes, at offset 0 of the page (0 in a forked child); the pool from
        /// offset 64.
        private static let poolOffset = 64

        // Sendable unchecked: the page's bytes are only read and written under `lock`.
        private struct Page: @unchecked Sendable {
            let base: UnsafeMutableRawPointer?
        }

        private static let page: Page = {
            let size = 4096
            guard let mapped = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                mapped != MAP_FAILED
            else { return Page(base: nil) }
            let wipeOnFork: Int32 = 18  // MADV_WIPEONFORK (Linux 4.14)
            guard madvise(mapped, size, wipeOnFork) == 0 else {
                munmap(mapped, size)
                return Page(base: nil)
            }
            return Page(base: mapped)
        }()

        // An NSLock, not a `Lock<Void>`: the exclusive access to a zero-size value reads as a
        // race to ThreadSanitizer (docs/sanitizers.md).
        private static let lock = NSLock()

        /// Sixteen fresh random bytes as two words; nil when the pool is not available or the
        /// kernel refused.
        static func take16() -> (UInt64, UInt64)? {
            guard let base = page.base else { return nil }
            lock.lock()
            defer { lock.unlock() }
            var remaining = Int(base.load(as: UInt64.self))
            if remaining < 16 || remaining > poolBytes {
                guard getentropy(base + poolOffset, poolBytes) == 0 else { return nil }
                remaining = poolBytes
            }
            let offset = poolOffset + poolBytes - remaining
            let words = (
                base.loadUnaligned(fromByteOffset: offset, as: UInt64.self),
                base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self)
            )
            (base + offset).initializeMemory(as: UInt8.self, repeating: 0, count: 16)
            base.storeBytes(of: UInt64(remaining - 16), as: UInt64.self)
            return words
        }
    }
#endif
