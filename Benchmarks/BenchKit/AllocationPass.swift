import Foundation
import LoadKit

/// Timings under the system allocator, allocation counts from a second process under jemalloc.
///
/// jemalloc counts every allocation exactly, but only as the process's allocator, and then it moves
/// the timings of allocation-heavy work (the small-form writer is about 10x `JSONEncoder` on the
/// system allocator and about 13x on jemalloc). Apps run on the system allocator, so the timing pass
/// (the benchmark as it was started) never has jemalloc in it; when jemalloc's shared library is on
/// the machine, the benchmark then runs itself once more with it preloaded (`LD_PRELOAD`), takes
/// that pass's allocation counts, and reports its ratios beside the system allocator's
/// (`jemalloc_ratio_vs_<baseline>`, informational) with the shift between them.
public enum AllocationPass {
    /// The flag that makes a run the allocation pass (it also forbids a pass of its own).
    public static let flag = "allocation-pass"

    /// Where Debian, Fedora, Alpine and Homebrew-style installs put the library.
    static let searchPaths = [
        "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2", "/usr/lib/aarch64-linux-gnu/libjemalloc.so.2",
        "/usr/lib64/libjemalloc.so.2", "/usr/lib/libjemalloc.so.2", "/usr/local/lib/libjemalloc.so.2",
    ]

    /// jemalloc's shared library: `FRONTMAIL_JEMALLOC` if set, else the first of the usual places
    /// that exists; nil when `FRONTMAIL_NO_JEMALLOC` is set or nothing is found. Looked up at run
    /// time, so installing jemalloc (Debian: `libjemalloc2`) needs no rebuild.
    public static func jemallocLibrary(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
    ) -> String? {
        if environment["FRONTMAIL_NO_JEMALLOC"] != nil { return nil }
        if let chosen = environment["FRONTMAIL_JEMALLOC"], !chosen.isEmpty { return exists(chosen) ? chosen : nil }
        #if os(Linux)
            return searchPaths.first(where: exists)
        #else
            return nil
        #endif
    }

    /// What the allocation pass gave, or why there is none.
    public enum Outcome {
        case measured([SummaryRow])
        case unavailable(String)
    }

    /// Runs this executable again with `arguments` plus the pass flag and `--out` a scratch file,
    /// jemalloc preloaded, and reads back its summary. Its output is discarded; its errors are ours.
    public static func run(arguments: [String]) -> Outcome {
        guard let library = jemallocLibrary() else {
            return .unavailable(
                ProcessInfo.processInfo.environment["FRONTMAIL_NO_JEMALLOC"] != nil
                    ? "allocation counts: n/a (the allocation pass is off: FRONTMAIL_NO_JEMALLOC is set)"
                    : "allocation counts: n/a (jemalloc not found: install libjemalloc2, or set FRONTMAIL_JEMALLOC to its .so; no rebuild needed)"
            )
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
            "frontmail-allocation-pass-\(ProcessInfo.processInfo.processIdentifier).csv")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = childArguments(arguments, out: scratch.path)
        var environment = ProcessInfo.processInfo.environment
        environment["LD_PRELOAD"] = [library, environment["LD_PRELOAD"]].compactMap { $0 }.joined(separator: ":")
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return .unavailable("allocation counts: n/a (the allocation pass did not start: \(error))")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .unavailable("allocation counts: n/a (the allocation pass exited \(process.terminationStatus))")
        }
        do {
            let text = try String(contentsOf: scratch, encoding: .utf8)
            return .measured(try SummaryCSV.parse(text).rows)
        } catch {
            return .unavailable("allocation counts: n/a (the allocation pass wrote no readable summary: \(error))")
        }
    }

    /// The pass's arguments: the benchmark's own, without `--out` and its value, then the flag and
    /// the scratch file.
    static func childArguments(_ arguments: [String], out: String) -> [String] {
        var kept: [String] = []
        var skipNext = false
        for argument in arguments {
            if skipNext {
                skipNext = false
                continue
            }
            if argument == "--out" {
                skipNext = true
                continue
            }
            if argument.hasPrefix("--out=") || argument == "--\(flag)" { continue }
            kept.append(argument)
        }
        return kept + ["--\(flag)", "--out", out]
    }

    /// The timing pass's rows with the allocation pass's counts in place of its own (n/a: it runs on
    /// the system allocator), plus the allocation pass's ratios as `jemalloc_ratio_vs_<baseline>`;
    /// and one line per ratio saying how the allocator moved it.
    public static func merge(timing: [SummaryRow], allocation: [SummaryRow]) -> (rows: [SummaryRow], shifts: [String]) {
        func key(_ row: SummaryRow) -> String { "\(row.probe)\u{1F}\(row.metric)\u{1F}\(row.statistic)" }
        var counts: [String: Double] = [:]
        var ratios: [String: SummaryRow] = [:]
        for row in allocation {
            if row.statistic == "allocs_per_op" || row.statistic == "alloc_bytes_per_op" {
                counts[key(row)] = row.value
            }
            if row.statistic.hasPrefix("ratio_vs_") { ratios[key(row)] = row }
        }
        var rows: [SummaryRow] = []
        var shifts: [String] = []
        for var row in timing {
            if let count = counts[key(row)] { row.value = count }
            rows.append(row)
            guard row.statistic.hasPrefix("ratio_vs_"), let other = ratios[key(row)] else { continue }
            var jemalloc = other
            jemalloc.statistic = "jemalloc_" + other.statistic
            rows.append(jemalloc)
            guard !row.metric.hasSuffix("_control") else { continue }
            let baseline = row.statistic.dropFirst("ratio_vs_".count)
            shifts.append(
                String(
                    format: "allocator %@: %@ is %.2fx %@ on the system allocator, %.2fx on jemalloc (shift %+.0f%%)",
                    row.probe, row.metric, row.value, String(baseline), other.value, (other.value / row.value - 1) * 100
                ))
        }
        return (rows, shifts)
    }
}
