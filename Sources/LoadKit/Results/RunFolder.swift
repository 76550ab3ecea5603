import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run's own folder, `<root>/<run id>-<kind>` (an exploration's, a certification's): made with
/// `mkdir`, so that two runs started in the same second take different ids (`<id>-2`, …) instead
/// of writing into one folder, and an earlier run's folder is never written into.
package enum RunFolder {
    package static func claim(root: URL, runID base: String, kind: String) throws -> (folder: URL, runID: String) {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for attempt in 1...1000 {
            let runID = attempt == 1 ? base : "\(base)-\(attempt)"
            let folder = root.appendingPathComponent("\(runID)-\(kind)")
            if mkdir(folder.path, 0o755) == 0 { return (folder, runID) }
            guard errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        throw POSIXError(.EEXIST)
    }
}
