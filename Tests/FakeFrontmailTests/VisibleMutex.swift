import FakeFrontmail

// ThreadSanitizer builds only (scripts/sanitize.sh): a Mutex ThreadSanitizer sees (FakeFrontmail's
// VisibleMutex explains why).
#if FRONTMAIL_TSAN
    typealias Mutex = VisibleMutex
#endif
