import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How every output is written: into a temporary file beside the target, then renamed over it, so
/// a process killed while writing leaves the old file or none, never half of one. A symbolic link
/// is written through to its file; a target that is not a regular file (a device node, a FIFO, a
/// folder, a socket) is refused, never replaced (as root, `serve --ledger /dev/null` had deleted
/// the null device).
public enum OutputFile {
    public struct Refused: Error, CustomStringConvertible {
        public var path: String
        public var reason: String
        public var description: String { "\(path): could not be written (\(reason))" }
    }

    /// What is at `path` (following links) when it exists and is not a regular file.
    public static func nonRegularKind(at path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        switch status.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFCHR, S_IFBLK: return "a device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }

    /// Writes the file at `url` with `body`, which writes through the handle it is given.
    public static func write(to url: URL, _ body: (FileHandle) throws -> Void) throws {
        let path = url.path
        guard !path.isEmpty else { throw Refused(path: path, reason: "the path is empty") }
        if let kind = nonRegularKind(at: path) {
            throw Refused(path: path, reason: "it is \(kind), not a regular file; give the path of a file")
        }
        let target = url.resolvingSymlinksInPath()
        let folder = target.deletingLastPathComponent()
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<100 where descriptor < 0 {
            temporary =
                folder.appendingPathComponent(
                    ".\(target.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
                ).path
            descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if descriptor < 0, errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            throw Refused(path: path, reason: String(cString: strerror(errno)))
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try body(handle)
            try handle.close()
            guard rename(temporary, target.path) == 0 else {
                throw Refused(path: path, reason: String(cString: strerror(errno)))
            }
        } catch {
            try? handle.close()
            unlink(temporary)
            throw error
        }
    }

    /// Writes `data` as the file at `url` (as `write(to:_:)`).
    public static func write(_ data: Data, to url: URL) throws {
        try write(to: url) { handle in try handle.write(contentsOf: data) }
    }

    /// The first output that is the same file as an input, through any link or spelling (an
    /// output that does not exist yet is none). `report R-run.csv --out R-run.csv` had overwritten
    /// its input and exited 0.
    public static func clash(outputs: [String], inputs: [String]) -> (output: String, input: String)? {
        func identity(_ path: String) -> [UInt64]? {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return [UInt64(status.st_dev), UInt64(status.st_ino)]
        }
        let known = inputs.compactMap { input in identity(input).map { ($0, input) } }
        for output in outputs {
            guard let id = identity(output) else { continue }
            if let input = known.first(where: { $0.0 == id }) { return (output, input.1) }
        }
        return nil
    }
}
