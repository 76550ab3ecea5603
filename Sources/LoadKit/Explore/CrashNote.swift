import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A trap in the SDK (or any fault) ends the explore process itself, mid-search: what is left is
/// the backtrace Swift's runtime prints. `CrashNote` adds which cases were running and how to run
/// each again. Before a case starts, its line goes into a fixed slot; a handler of the fatal
/// signals writes the slots to stderr with `write(2)` only, puts back the handler that was there
/// before (Swift's backtracer) and returns, so the fault happens again and that handler reports it.
enum CrashNote {
    static let slots = 64
    static let width = 200

    /// The slots' bytes, allocated once and never freed: the handler may read them at any moment.
    nonisolated(unsafe) private static var lines = UnsafeMutablePointer<UInt8>.allocate(capacity: slots * width)
    /// The handlers found before ours, by signal number.
    nonisolated(unsafe) private static var previous = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
    private static let installed = Mutex(false)

    static let fatal: [Int32] = [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGFPE, SIGABRT]

    /// Installs the handler once per process.
    static func install() {
        let first = installed.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        lines.initialize(repeating: 0, count: slots * width)
        // Every static the handler reads is made here, not lazily in the handler.
        _ = header.utf8CodeUnitCount
        for number in fatal {
            ProcessSignals.setSignalHandler(number, crashNoteHandler, flags: 0, previous: previous + Int(number))
        }
    }

    /// Case `index` is starting: its line names it and the command that runs it first.
    static func running(index: Int, line: String) {
        let slot = lines + (index % slots) * width
        let bytes = Array(line.utf8.prefix(width - 2)) + [10]
        slot.update(from: bytes, count: bytes.count)
        (slot + bytes.count).update(repeating: 0, count: width - bytes.count)
    }

    /// Case `index` ended.
    static func ended(index: Int) { lines[(index % slots) * width] = 0 }

    /// The line in slot `slot` ("" when empty).
    static func line(_ slot: Int) -> String {
        String(cString: UnsafeRawPointer(lines + slot * width).assumingMemoryBound(to: CChar.self))
    }

    /// Written as it is: a handler may not allocate.
    private static let header: StaticString =
        "\nexplore: the process is dying on a fatal signal while running these cases:\n"

    fileprivate static func report(_ signal: Int32) {
        header.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
        for slot in 0..<slots {
            let line = lines + slot * width
            guard line[0] != 0 else { continue }
            _ = write(2, line, strlen(UnsafeRawPointer(line).assumingMemoryBound(to: CChar.self)))
        }
        sigaction(signal, previous + Int(signal), nil)
    }
}

private func crashNoteHandler(_ signal: Int32) {
    CrashNote.report(signal)
}
