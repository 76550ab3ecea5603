import FakeFrontmail

// ThreadSanitizer builds only (scripts/sanitize.sh): this target's Mutex, so the one a tested
// module declares for the same build and the toolchain's are not both in sight (FakeFrontmail's
// VisibleMutex explains why).
#if FRONTMAIL_TSAN
    typealias Mutex = VisibleMutex
#endif
