import Foundation
import LoadKit

/// Parses a benchmark's arguments (`--quick`, `--out FILE`, `--help`, the allocation pass's flag and
/// its own options); prints
/// `usage` for `--help` and exits 64 on bad arguments.
public func benchmarkArguments(tool: String, usage: String, options: Set<String> = []) -> Arguments {
    do {
        let parsed = try Arguments(
            Array(CommandLine.arguments.dropFirst()),
            spec: Arguments.Spec(
                options: options.union(["out", "profile"]), flags: ["quick", "help", AllocationPass.flag]))
        if parsed.flag("help") {
            print(usage)
            exit(0)
        }
        return parsed
    } catch {
        FileHandle.standardError.write(Data("\(tool): \(error)\n".utf8))
        exit(64)
    }
}
