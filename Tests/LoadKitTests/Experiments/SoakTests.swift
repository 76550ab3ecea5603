import Foundation
import FrontmailMutants
import Testing

@testable import LoadKit

/// The memory soak must tell a client whose cancelled waits keep their memory until their deadline
/// (`Task.sleep` does: a cancelled sleep is freed only when its deadline passes) from the SDK, whose
/// cancelled waits are freed at once. malloc's bytes in use are process-wide: beside the other
/// tests of `swift test`, which allocate and free megabytes while a batch runs, the soak's signal
/// (about 1 KB per cancelled wait) is lost in their noise, so both clients are soaked where the
/// soak always runs, a `frontmail-bench run` process of its own, and judged by its verdict.
@Suite("memory soak: cancelled waits with far-away deadlines")
struct SoakTests {
    /// A scenario that only soaks (5,000 cancellations in flight, then 5,000 in five-minute
    /// backoffs), judged as `cancellation-soak` judges it.
    static let scenario = """
        {
          "name": "soak-only",
          "description": "the memory soak of cancellation-soak alone",
          "seed": 1,
          "wallBudget": 120,
          "transport": "inProcess",
          "timeScale": 0.01,
          "cancellation": {"phases": ["backoff"], "samples": 1, "backgroundLoad": 0, "baseline": false, "soak": 5000},
          "assertions": ["cancellation.soak.backoff_growth_per_1k <= 64"]
        }
        """

    /// The `frontmail-bench` that `swift test` built beside this test binary.
    static func benchExecutable() throws -> String {
        let tests = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let bench = tests.deletingLastPathComponent().appendingPathComponent("frontmail-bench").path
        try #require(
            FileManager.default.isExecutableFile(atPath: bench),
            "no frontmail-bench beside \(tests.path) (swift test builds it with the tests)")
        return bench
    }

    /// Runs the soak in its own process (`--broken` names the client, nil for the SDK): its exit
    /// status and the KiB per 1,000 cancelled backoffs it measured.
    static func soak(broken: String?) async throws -> (status: Int32, perThousand: Double) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("soak.json")
        try Data(scenario.utf8).write(to: file)
        let out = folder.appendingPathComponent("out")
        let arguments =
            ["run", file.path, "--out", out.path, "--no-progress"] + (broken.map { ["--broken", $0] } ?? [])
        let outcome = await ChildProcess.runCapturing(
            try benchExecutable(), arguments: arguments, children: RunningChildren())
        #expect(outcome.crash == nil, "\(outcome.crash?.text ?? "")")
        let runs = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0.hasSuffix("-run.csv") }
        let csv = try String(contentsOf: out.appendingPathComponent(try #require(runs.first)), encoding: .utf8)
        let value = try #require(backoffGrowth(in: csv), "no backoff_growth_per_1k in \(csv)")
        return (outcome.status, value)
    }

    /// The soak's backoff growth in a run.csv, read as `compare` reads one.
    static func backoffGrowth(in csv: String) -> Double? {
        let rows = try? SummaryCSV.parse(csv).rows
        return rows?.first {
            $0.probe == "cancellation" && $0.metric == "soak" && $0.statistic == "backoff_growth_per_1k"
        }?
        .value
    }

    @Test(
        "a client that sleeps with Task.sleep holds memory after cancelled five-minute backoffs and fails the soak; the SDK passes"
    )
    func backoff() async throws {
        let leaky = try await Self.soak(broken: "task-sleep-backoff")
        #expect(leaky.status == 1, "the leaky client's run exits 1 (its soak assertion fails)")
        // About 1 KB per cancelled wait: 700 KiB per 1,000 or more.
        #expect(leaky.perThousand > 300, "\(leaky.perThousand) KiB per 1,000")
        let sdk = try await Self.soak(broken: nil)
        #expect(sdk.status == 0)
        #expect(sdk.perThousand <= 64, "\(sdk.perThousand) KiB per 1,000")
    }

    @Test("task-sleep-backoff runs only where a soak shows it: a scenario without one is a usage error")
    func soakOnly() async throws {
        let bench = try Self.benchExecutable()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("soak-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let scenarios = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scenarios")
        let outcome = await ChildProcess.runCapturing(
            bench,
            arguments: [
                "run", scenarios.appendingPathComponent("healthy-baseline.json").path, "--out", folder.path,
                "--broken", "task-sleep-backoff",
            ], children: RunningChildren())
        #expect(outcome.status == 64)
        #expect(!FileManager.default.fileExists(atPath: folder.path), "nothing is written")
        #expect(BrokenClient.named("task-sleep-backoff") != nil)
        #expect(!BrokenClient.all.contains { $0.name == "task-sleep-backoff" }, "explore is not asked to find it")
    }

    @Test("the soak reports its rate as the median of ten batches")
    func soakRate() async throws {
        let growth = try await CancellationLatency.soak(count: 100, phase: .backoff)
        #expect(growth.perThousand.isFinite)
        #expect(growth.resident.isFinite)
    }
}
