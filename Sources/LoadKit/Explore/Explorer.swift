import CProcessMemory
import FakeFrontmail
import Foundation
import FrontmailMutants
import Simulator

/// `frontmail-bench explore`: generated scenarios on virtual time, each judged by every universal
/// property; a case that breaks one is shrunk to a small scenario file that still breaks it
/// (docs/explore.md). The same seed and number of runs give the same cases, verdicts and files.
package struct Explorer: Sendable {
    package struct Options: Sendable {
        /// Stop after this many generated cases (with `seconds`, whichever comes first).
        package var runs: Int?
        /// Stop starting cases after this many wall seconds.
        package var seconds: Double?
        package var seed: UInt64 = 1
        /// Cases run at once (each a simulation on a thread of its own).
        package var jobs = 1
        /// One of the suite's deliberately broken clients instead of the SDK as it is.
        package var broken: BrokenClient?
        /// Runs one failure's shrinking may take.
        package var shrinkRuns = 300
        /// Stop once a case broke a property (after shrinking what it broke).
        package var stopOnFailure = false
        /// The order of the jobs ready at one instant in each case (seeded by the case's seed).
        package var schedule: Schedule.Policy = .fifo
        /// Cases through URLSession over loopback on the SDK's own clock and timers, bounded for
        /// the real clock (`--transport socket`), instead of in-process on virtual time.
        package var overSockets = false
        /// Over sockets: how long a case may run before it is a hang (`run-completes`).
        package var hangLimit = ExploreCase.realClockLimit

        package init() {}
    }

    /// What one case gave: each property's judgement, the pooled jitter draws, or why it could not run.
    struct Outcome: Sendable {
        var index: Int
        var drawn: ExploreCase
        /// The schedule it ran under (a shrunk case may fall back to fifo).
        var schedule: Schedule.Policy = .fifo
        /// The first send that failed (0: none did), for the replay's `--trace-send`.
        var traceSend = 0
        var judged: [String: (checked: Int, violations: Int)] = [:]
        var metrics: [String: Double] = [:]
        var realized: [Double] = []
        /// The SDK's decision points the case reached, and how often.
        var reached: [DecisionPoint: Int] = [:]
        var sends = 0
        var error: String?
        /// Over sockets, a case that broke a property: every send's trace as the server and the
        /// client saw it in this run (on the real clock a replay may not fail again).
        var evidence: String?

        /// The properties this case broke, in the catalog's order.
        var broken: [String] {
            ExploreProperty.names.filter { (judged[$0]?.violations ?? 0) > 0 }
                + (error == nil ? [] : [Explorer.runCompletes])
        }
    }

    /// The property of a case that could not run to its end (a deadlock, work that escaped the
    /// simulation, a generated file the checks refused).
    static let runCompletes = ContractProperty.runCompletes.rawValue
    /// How long a case's simulation waits for a wake-up from outside before it calls the run
    /// deadlocked (`Simulation.run`).
    static let stallGrace: TimeInterval = 0.25
    /// With `--stop-on-failure`: cases run after the pooled jitter test rejected, looking for one
    /// case that fails it alone (and can be shrunk), before the exploration stops.
    static let pooledGrace = 2_000
    /// Runs one failure's shrinking may take over sockets (each a real-clock run).
    static let socketShrinkRuns = 40
    /// Every this many judged cases the allocator returns its free memory to the system: each case
    /// runs on a thread of its own, and the memory its sends freed (4 MiB hostile bodies among them)
    /// otherwise stays with the thread's arena (docs/explore.md, "Memory on long runs"). A count, so
    /// the same on any machine; about every 5 s at 200 cases/s.
    static let releaseEvery = 1_000

    /// For a process that runs explore alone: at most `jobs + 1` malloc arenas (glibc's default is
    /// eight per core, each keeping its own freed memory). Whether the cap took.
    package static func limitArenas(jobs: Int) -> Bool {
        cpm_limit_arenas(Int32(clamping: jobs + 1)) == 1
    }

    let options: Options
    /// Called with a progress line about once a second.
    package var progress: (@Sendable (String) -> Void)?

    package init(options: Options) { self.options = options }

    /// The seed of case `index`: independent streams from one `--seed`.
    static func caseSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var random = SeededRandom(seed: seed, mixing: UInt64(index))
        return random.next() % 1_000_000_000_000
    }

    /// Explores until the runs or the time are used up or the task is cancelled. Up to `jobs`
    /// cases run at once, a new one starting as each ends (a case over sockets that waits out a
    /// timeout holds back no other); outcomes are judged in the order of their cases, so the same
    /// seed and runs give the same summary whatever the jobs.
    package func run() async -> ExploreSummary {
        CrashNote.install()
        var summary = ExploreSummary(options: options)
        let started = ContinuousClock.now
        var lastProgress = started
        var pooledChecks = 0
        await withTaskGroup(of: Outcome.self) { group in
            var next = 0
            var judged = 0
            var ready: [Int: Outcome] = [:]
            var stopping = false
            func startMore() {
                while !stopping, !Task.isCancelled, next - judged < options.jobs, next < (options.runs ?? Int.max) {
                    if let seconds = options.seconds, (ContinuousClock.now - started).seconds >= seconds { return }
                    let caseIndex = next
                    group.addTask { await self.explore(index: caseIndex) }
                    next += 1
                }
            }
            startMore()
            while let outcome = await group.next() {
                // A case a signal cut short is partial: it is neither counted nor judged.
                if Task.isCancelled { break }
                ready[outcome.index] = outcome
                while !stopping, let outcome = ready.removeValue(forKey: judged) {
                    judged += 1
                    await judge(outcome, into: &summary, started: started)
                    if Task.isCancelled { break }
                    // A failure shrunk ends it; the pooled jitter test's alone, once `pooledGrace` more
                    // cases found no case to shrink for it (a count, not seconds: the same cases on any
                    // machine).
                    if options.stopOnFailure,
                        !summary.found.isEmpty
                            || summary.pooledFoundRun.map({ summary.runs - $0 >= Self.pooledGrace }) ?? false
                    {
                        stopping = true
                    }
                    // The pooled draws are tested each time their number doubles (at most ~30 times a run).
                    if summary.realized.count >= 32, summary.realized.count >= 2 * pooledChecks {
                        pooledChecks = summary.realized.count
                        summary.testPooled(elapsed: (ContinuousClock.now - started).seconds)
                    }
                    if judged % Self.releaseEvery == 0 { _ = cpm_release_free_memory() }
                    if (ContinuousClock.now - lastProgress).seconds >= 1 {
                        lastProgress = ContinuousClock.now
                        progress?(summary.progressLine(elapsed: (lastProgress - started).seconds))
                    }
                }
                if stopping || Task.isCancelled { break }
                startMore()
            }
            group.cancelAll()
        }
        summary.testPooled(elapsed: (ContinuousClock.now - started).seconds)
        summary.interrupted = Task.isCancelled
        summary.wallSeconds = (ContinuousClock.now - started).seconds
        return summary
    }

    /// Adds one outcome to the summary and shrinks each property it broke that the summary wants.
    private func judge(_ outcome: Outcome, into summary: inout ExploreSummary, started: ContinuousClock.Instant) async {
        summary.add(outcome)
        for property in outcome.broken where summary.wantsShrink(property) {
            if Task.isCancelled { break }
            let found = await shrink(outcome, property: property, started: started)
            summary.add(found)
            progress?(
                "found \(found.property) in case \(outcome.index) (seed \(outcome.drawn.seed)): shrunk to \(found.shrunk.size.sends) sends, \(found.shrunk.size.rules) rules"
            )
        }
    }

    /// Draws and runs case `index`, its rerun command in `CrashNote`'s slot while it runs.
    func explore(index: Int) async -> Outcome {
        let drawn = CaseGenerator.draw(seed: Self.caseSeed(options.seed, index), overSockets: options.overSockets)
        CrashNote.running(index: index, line: "  case \(index) (seed \(drawn.seed)): " + rerunCommand(through: index))
        defer { CrashNote.ended(index: index) }
        return await measure(drawn, index: index, schedule: options.schedule)
    }

    /// The command that runs cases 0 to `index` again, one at a time, as this exploration drew them.
    func rerunCommand(through index: Int) -> String {
        var command = "frontmail-bench explore --seed \(options.seed) --runs \(index + 1) --jobs 1"
        if options.overSockets { command += " --transport socket" }
        if options.schedule != .fifo { command += " --schedule \(Schedule.spelled(options.schedule))" }
        if let broken = options.broken { command += " --broken \(broken.name)" }
        return command
    }

    /// Runs one case through the SDK (or the broken client) on virtual time, or over sockets on the
    /// real clock within `ExploreCase.realClockLimit` (past it, a hang naming what it waited for),
    /// and judges it.
    func measure(_ drawn: ExploreCase, index: Int, schedule: Schedule.Policy) async -> Outcome {
        var outcome = Outcome(index: index, drawn: drawn, schedule: schedule)
        do {
            let file = try drawn.scenario(name: "explore-\(index)", description: "")
            let scenario = drawn.overSockets ? file : file.onVirtualTime()
            var experiment = LoadExperiment(scenario: scenario, progress: false)
            if let broken = options.broken { broken.apply(to: &experiment.seams) }
            experiment.schedule = schedule
            experiment.rendersFiles = false
            // Nothing of a generated case comes from outside its simulation, so a run whose every
            // task waits with nothing timed is deadlocked at once, not after the 2 s a run of
            // `run` gives a wake-up from outside (a deadlocked case costs 0.25 s, not 2).
            experiment.stallGrace = Self.stallGrace
            let measurement =
                drawn.overSockets
                ? try await HangWatch.bounded(limit: options.hangLimit, grace: 2) { [experiment] in
                    try await experiment.run()
                } : try await experiment.run()
            outcome.metrics = measurement.metrics
            for property in ExploreProperty.all {
                outcome.judged[property.name] = property.judge(measurement.metrics, realClock: drawn.overSockets)
            }
            outcome.sends = Int(measurement.metrics[.sendSends] ?? 0)
            outcome.traceSend = measurement.history?.firstFailedSend ?? 0
            if let history = measurement.history, let ledger = measurement.ledger {
                outcome.reached = DecisionPoint.reached(
                    drawn, ledger: ledger.records, reads: history.statusReads.records, metrics: measurement.metrics)
            }
            // The waits as drawn are known exactly on virtual time only.
            if !drawn.overSockets, let history = measurement.history, let ledger = measurement.ledger {
                outcome.realized =
                    JitterProbe.ExactTiming(scenario: scenario, history: history, ledger: LedgerIndex(ledger)).realized
                if outcome.realized.count >= ExploreProperty.caseJitterMinimum {
                    let test = KolmogorovSmirnov(uniform: outcome.realized)
                    outcome.judged[ExploreProperty.jitterUniform] = (
                        1, test.rejects(alpha: ExploreProperty.caseJitterAlpha) ? 1 : 0
                    )
                }
            }
            if measurement.interrupted, !Task.isCancelled { outcome.error = "the run ended before its sends did" }
            if drawn.overSockets, !outcome.broken.isEmpty, let history = measurement.history {
                outcome.evidence = SendTrace.all(history: history, ledger: measurement.ledger)
            }
        } catch {
            outcome.error = "\(error)"
        }
        return outcome
    }

    /// Makes a failing case smaller while it still breaks `property`: each step tries the
    /// shrinker's candidates in order and keeps the first that still fails, until none does or
    /// the runs allowed are used up.
    func shrink(_ failing: Outcome, property: String, started: ContinuousClock.Instant) async -> Found {
        var smallest = failing
        var runs = 0
        // Over sockets a run takes real seconds: fewer of them, each candidate kept within the
        // real clock's bounds (one that those bounds make the case itself again is not a step).
        let overSockets = failing.drawn.overSockets
        let allowed = overSockets ? min(options.shrinkRuns, Self.socketShrinkRuns) : options.shrinkRuns
        func candidates(_ drawn: ExploreCase, _ made: [ExploreCase]) -> [ExploreCase] {
            overSockets ? made.map { $0.onRealClock() }.filter { $0 != drawn } : made
        }
        for candidate in candidates(smallest.drawn, Shrinker.drained(smallest.drawn)) {
            if runs >= allowed || Task.isCancelled { break }
            runs += 1
            let outcome = await measure(candidate, index: failing.index, schedule: smallest.schedule)
            if !Task.isCancelled, outcome.broken.contains(property) {
                smallest = outcome
                break
            }
        }
        var improved = true
        while improved, runs < allowed, !Task.isCancelled {
            improved = false
            // The plainest schedule first: a failure fifo shows too needs no schedule to replay.
            let schedules: [Schedule.Policy] = smallest.schedule == .fifo ? [] : [.fifo]
            let tries =
                schedules.map { (smallest.drawn, $0) }
                + candidates(smallest.drawn, Shrinker.candidates(smallest.drawn)).map { ($0, smallest.schedule) }
            for (candidate, schedule) in tries {
                if runs >= allowed || Task.isCancelled { break }
                runs += 1
                let outcome = await measure(candidate, index: failing.index, schedule: schedule)
                if !Task.isCancelled, outcome.broken.contains(property) {
                    smallest = outcome
                    improved = true
                    break
                }
            }
        }
        return Found(
            property: property, original: failing, shrunk: smallest.drawn, schedule: smallest.schedule,
            traceSend: smallest.traceSend, metrics: smallest.metrics, error: smallest.error, shrinkRuns: runs,
            secondsToFind: (ContinuousClock.now - started).seconds)
    }
}

/// A failure explore found and shrank.
struct Found: Sendable {
    var property: String
    var original: Explorer.Outcome
    var shrunk: ExploreCase
    /// The schedule the shrunk case fails under, and the send its replay traces.
    var schedule: Schedule.Policy
    var traceSend: Int
    /// The shrunk case's metrics (its found file asserts the property's recorded ones).
    var metrics: [String: Double]
    var error: String?
    var shrinkRuns: Int
    /// Wall seconds from the start of the exploration to the end of the shrinking.
    var secondsToFind: Double
    /// The file it was written to, once written.
    var file: String?

    /// Failures are one when they break the same property with the same shape: the kinds of the
    /// plan's rules and the features the shrunk case still has.
    var signature: String {
        var parts = shrunk.rules.map(\.fault.kind).sorted()
        if shrunk.capacity != nil { parts.append("capacity") }
        if shrunk.status != nil { parts.append("status") }
        if shrunk.client.budget != nil { parts.append("budget") }
        if shrunk.client.keyPool != nil { parts.append("keys") }
        if schedule != .fifo { parts.append(Schedule.spelled(schedule)) }
        return property + ":" + parts.joined(separator: "+")
    }

    /// The command that replays the shrunk case from its file: its seed, schedule and first failed send.
    func replayCommand(file: String, broken: BrokenClient?) -> String {
        ScenarioResult.replayCommand(
            file: file, quick: false, seed: shrunk.seed, schedule: schedule, traceSend: traceSend, broken: broken?.name)
    }
}
