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

/// Why `--profile PROFILE` names nothing this benchmark runs, or nil when its group is one of
/// `groups` and a workload follows the slash (the workload is checked when its group runs).
public func profileProblem(_ profile: String, groups: [String]) -> String? {
    let parts = profile.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
    guard parts.count == 2, !parts[1].isEmpty else { return "--profile \(profile): expected GROUP/WORKLOAD" }
    guard groups.contains(parts[0]) else {
        return "--profile \(profile): no group \(parts[0]) (\(groups.joined(separator: ", ")))"
    }
    return nil
}

/// The `--profile` value when it names one of `groups`; exits 64 naming the option when it does not.
public func checkedProfile(_ arguments: Arguments, tool: String, groups: [String]) -> String? {
    guard let profile = arguments.value("profile") else { return nil }
    if let problem = profileProblem(profile, groups: groups) {
        FileHandle.standardError.write(Data("\(tool): \(problem)\n".utf8))
        exit(64)
    }
    return profile
}
