import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes to stdout and stderr that a closed pipe cannot end: `FileHandle.write` traps on EPIPE
/// (with SIGPIPE ignored), and `run … 2>&1 | head -1` closed stderr under a run that had results
/// left to write. A write that fails is dropped; the run's files are what count.
package enum StandardStream {
    package static func error(_ data: Data) { write(STDERR_FILENO, data) }
    package static func error(_ text: String) { write(STDERR_FILENO, Data(text.utf8)) }
    package static func output(_ text: String) { write(STDOUT_FILENO, Data(text.utf8)) }

    /// The whole of `data` to `descriptor`, through interrupted and partial writes; nothing on an error.
    static func write(_ descriptor: Int32, _ data: Data) {
        data.withUnsafeBytes { bytes in
            guard var next = bytes.baseAddress else { return }
            var left = bytes.count
            while left > 0 {
                let written = Foundation.write(descriptor, next, left)
                if written > 0 {
                    next += written
                    left -= written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
