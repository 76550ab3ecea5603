import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

/// Runs every (policy × environment × seed) of a sweep in process, `jobs` at a time, each through
/// `LoadExperiment` (the real SDK against a fresh in-process fake). Cancelling the calling task
/// stops it: runs not started are skipped, runs cut short are discarded, and the cells hold what
/// finished.
package struct TuneRunner {
    let tune: TuneFile
    let jobs: Int
    /// Called after every finished run with (runs done, runs planned, the run's cell label).
    package var progress: @Sendable (Int, Int, String) -> Void = { _, _, _ in }
    /// The suite's own tests' broken behaviour for every run (a transport wrapper, a broken budget).
    var seams = TestSeams()

    package init(tune: TuneFile, jobs: Int) {
        self.tune = tune
        self.jobs = jobs
    }

    /// One policy at one environment of `tune` (a storms sweep's place, for a joint decision),
    /// over the file's seeds: nil when interrupted.
    package static func cell(
        _ policy: PolicyPoint, at environment: TuneEnvironment, of tune: TuneFile, jobs: Int
    ) async -> TuneCell? {
        var single = tune
        single.environments = [environment]
        single.clients = []
        single.grid = PolicyGrid()
        single.grid.points = [policy]
        single.defaultPolicy = policy
        single.quick = nil
        return await TuneRunner(tune: single, jobs: jobs).run().first.flatMap { $0.runs.isEmpty ? nil : $0 }
    }

    struct Job: Sendable {
        var cell: Int
        var seed: Int
        var scenario: Scenario
    }

    package func run() async -> [TuneCell] {
        var cells: [TuneCell] = []
        var jobs: [Job] = []
        for environment in tune.scaledEnvironments {
            for policy in tune.policies {
                let index = cells.count
                cells.append(TuneCell(policy: policy, environment: environment))
                for seed in 0..<tune.seeds {
                    jobs.append(
                        Job(
                            cell: index, seed: seed,
                            scenario: tune.scenario(policy: policy, environment: environment, seed: seed)))
                }
            }
        }
        var seeded: [Int: [(Int, RunFigures)]] = [:]
        let total = jobs.count
        let width = max(1, self.jobs)
        let progress = self.progress
        let seams = self.seams
        await withTaskGroup(of: (Int, Int, RunFigures?).self) { group in
            var next = 0
            var done = 0
            func launch() {
                guard next < jobs.count, !Task.isCancelled else { return }
                let job = jobs[next]
                next += 1
                group.addTask {
                    guard !Task.isCancelled else { return (job.cell, job.seed, nil) }
                    do {
                        let scenario = job.scenario.onVirtualTime()
                        var experiment = LoadExperiment(scenario: scenario, progress: false)
                        experiment.seams = seams
                        experiment.rendersFiles = false
                        let measurement = try await experiment.run()
                        let figures = try RunFigures(measurement, timeScale: scenario.timeScale)
                        return (job.cell, job.seed, figures.interrupted ? nil : figures)
                    } catch {
                        printError("  \(job.scenario.name) (seed \(job.seed)) could not run: \(error)")
                        return (job.cell, job.seed, nil)
                    }
                }
            }
            for _ in 0..<width { launch() }
            while let (cell, seed, figures) = await group.next() {
                if let figures {
                    seeded[cell, default: []].append((seed, figures))
                    done += 1
                    progress(done, total, "\(cells[cell].environment.name) \(cells[cell].policy.label)")
                }
                launch()
            }
        }
        // In seed order, whatever order the runs finished in: the cell's figures are sums over its
        // runs, and a sum's last digit depends on its order.
        for (cell, runs) in seeded { cells[cell].runs = runs.sorted { $0.0 < $1.0 }.map(\.1) }
        Pareto.mark(&cells)
        return cells
    }
}
