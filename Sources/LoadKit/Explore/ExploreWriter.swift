import FakeFrontmail
import Foundation
import FrontmailMutants
import Simulator

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files an exploration's results: `ROOT/<run>-explore/explore.csv` (one row per property and per
/// decision point), `explore.html` (the same on a page, with each failure's replay command) and
/// each distinct failure as a scenario file, `found/<property>-<n>.json`, which `run` replays (over
/// sockets with `found/<property>-<n>.trace.txt` beside it: every send of the run that found it).
package struct ExploreWriter {
    package let folder: URL
    package let runID: String

    /// Claims `ROOT/<run>-explore` for a new exploration, exclusively (`<run>-2` when taken), so
    /// no earlier run's files are replaced.
    package static func claim(root: URL, runID base: String) throws -> ExploreWriter {
        let (folder, runID) = try RunFolder.claim(root: root, runID: base, kind: "explore")
        return ExploreWriter(folder: folder, runID: runID)
    }

    var found: URL { folder.appendingPathComponent("found") }

    /// Writes each failure's file (setting its path) and explore.csv.
    package func write(_ summary: inout ExploreSummary) throws {
        var counts: [String: Int] = [:]
        for index in summary.found.indices {
            let failure = summary.found[index]
            counts[failure.property, default: 0] += 1
            let name = "\(failure.property)-\(counts[failure.property] ?? 1)"
            if index == 0 || !FileManager.default.fileExists(atPath: found.path) {
                try FileManager.default.createDirectory(at: found, withIntermediateDirectories: true)
            }
            let file = found.appendingPathComponent(name + ".json")
            let text = failure.fileText(name: name, path: file.path, broken: summary.options.broken)
            try OutputFile.write(Data(text.utf8), to: file)
            summary.found[index].file = file.path
            // Over sockets, the run that found it as both sides saw it: a replay on the real clock
            // may pass, and this is then the only record of what happened.
            if let evidence = failure.original.evidence {
                let traces = URL(fileURLWithPath: Found.tracePath(file.path))
                let heading =
                    "case \(failure.original.index) (seed \(failure.original.drawn.seed)) as explore first ran it; it broke \(failure.original.broken.joined(separator: ", "))\n"
                try OutputFile.write(Data((heading + evidence).utf8), to: traces)
            }
        }
        try OutputFile.write(Data(summary.csv.utf8), to: folder.appendingPathComponent("explore.csv"))
        try OutputFile.write(
            Data(ExploreReport.render(summary, runID: runID).utf8), to: folder.appendingPathComponent("explore.html"))
    }
}

extension Found {
    /// Where the traces of the run that found a failure go, beside its file.
    static func tracePath(_ file: String) -> String {
        (file.hasSuffix(".json") ? String(file.dropLast(5)) : file) + ".trace.txt"
    }

    /// The shrunk case as a scenario file that fails the property's checks when `run` replays it.
    func fileText(name: String, path: String, broken: BrokenClient?) -> String {
        let property = ExploreProperty.all.first { $0.name == self.property }
        let summary = property?.summary ?? "the run completes"
        var description =
            "explore found \(self.property) broken (\(summary)) in case \(original.index), seed \(original.drawn.seed); shrunk from \(original.drawn.size.sends) sends and \(original.drawn.size.rules) rules in \(shrinkRuns) runs"
        if schedule != .fifo { description += "; schedule \(Schedule.spelled(schedule))" }
        if let broken { description += "; client: --broken \(broken.name)" }
        description += "; replay: \(replayCommand(file: path, broken: broken))"
        if let error { description += "; the run failed: \(error)" }
        // The property's checks, where the failing run recorded them: `run` then fails on them.
        // Over sockets, with the real clock's metrics too, and a time metric up to its allowance.
        let keys = property?.violationKeys(realClock: shrunk.overSockets) ?? []
        var checks = keys.filter { metrics[$0] != nil }.map { key in
            guard shrunk.overSockets, let allowance = property?.allowances[key] else { return "\(key.text) == 0" }
            return "\(key.text) <= \(allowance)"
        }
        // A case's own jitter test: its waits' distance from uniform below the critical one.
        if self.property == ExploreProperty.jitterUniform, let samples = metrics[.jitterExactRealizedSamples],
            samples >= 1
        {
            let critical = KolmogorovSmirnov.critical(n: Int(samples), alpha: ExploreProperty.caseJitterAlpha)
            checks.append("\(MetricKey.jitterExactRealizedKSD.text) < \(String(format: "%.6f", critical))")
        }
        let text = shrunk.json(name: name, description: String(description.prefix(2000)), assertions: checks)
        return text + "\n"
    }
}
