import FakeFrontmail
import Foundation

/// The files and the printed verdict of a sweep (docs/tune.md): `cells.csv`, `sanity.csv`, the
/// long-form summary rows `compare` gates on, and the recommendation.
package struct TuneReport {
    let tune: TuneFile
    let cells: [TuneCell]
    /// The outage check of every outage cell, computed once (each builds its closed form on a grid).
    let outageChecks: [OutageCheck]
    /// The recommendation rule's decision, with its stability (computed once: it resamples).
    let decision: TuneRule.Decision
    let regret: [Regret]
    let map: MetastabilityMap?
    /// The storms sweeps given with this one, and what they exclude (nil: none given).
    let joint: JointDecision?
    /// Policies the storms exclude under the file's objective.
    let excluded: Set<PolicyPoint>
    /// The decision under the file's objective and under each compared deadline.
    let alternatives: [Alternative]

    /// One objective's decision and the default's regret under it.
    struct Alternative: Sendable {
        var objective: TuneObjective
        var decision: TuneRule.Decision
        var regret: [Regret]

        /// The default against the recommendation, per environment (empty: nothing recommended).
        var againstRecommended: [Regret] { regret.filter { $0.against == .recommended } }

        /// The environment where the default loses most against the recommendation.
        var worstLoss: Regret? { againstRecommended.max { $0.sendsLostPer10k < $1.sendsLostPer10k } }
    }

    /// `report` is called before each long step (deciding, the closed forms) with what it is doing.
    /// An `interrupted` sweep decides under the file's objective only (a signalled run ends soon).
    package init(
        tune: TuneFile, cells: [TuneCell], joint: JointDecision? = nil, interrupted: Bool = false,
        report: (String) -> Void = { _ in }, stop: () -> Bool = { false }
    ) {
        self.tune = tune
        self.joint = joint
        var judged = cells.map { $0.judged(by: tune.objective) }
        Pareto.mark(&judged)
        self.cells = judged
        let measured = judged.filter { !$0.runs.isEmpty }
        report("checking the outage cells against the closed form")
        outageChecks = measured.compactMap {
            OutageCheck($0, scenario: tune.scenario(policy: $0.policy, environment: $0.environment, seed: 0))
        }
        var alternatives: [Alternative] = []
        for objective in interrupted ? [tune.objective] : tune.objective.alternatives {
            // The file's own decision is always made; the compared ones stop at a signal.
            if !alternatives.isEmpty, stop() { break }
            report("deciding under deadline \(objective.deadlineText) (with 200 bootstrap resamples)")
            let cells = measured.map { $0.judged(by: objective) }
            let excluded = joint?.excluded(for: objective) ?? []
            var decision = TuneRule.decide(cells, excluded: excluded, scales: tune.clients, scale: tune.scale(of:))
            if let partial = Self.partial(tune, measured: measured, interrupted: interrupted) {
                decision.outcome = TuneRule.Outcome(winner: nil, tied: [], decidedBy: partial)
            }
            decision.withheld = tune.reduced.map { "a quick sweep is not a decision: \($0)" }
            let regret = Regret.table(
                cells, defaultPolicy: tune.defaultPolicy, recommended: decision.recommended, excluded: excluded)
            alternatives.append(Alternative(objective: objective, decision: decision, regret: regret))
        }
        decision = alternatives[0].decision
        regret = alternatives[0].regret
        // Shown shortest deadline first, no deadline last.
        self.alternatives = alternatives.sorted {
            ($0.objective.deadline?.seconds ?? .infinity) < ($1.objective.deadline?.seconds ?? .infinity)
        }
        excluded = joint?.excluded(for: tune.objective) ?? []
        map = MetastabilityMap(measured)
    }

    /// Why an interrupted sweep recommends nothing: it measured fewer cells, or fewer seeds of
    /// one, than the file plans (a winner over the environments that finished is not the rule's
    /// answer). Nil when the sweep finished, or finished every run before the signal.
    static func partial(_ tune: TuneFile, measured: [TuneCell], interrupted: Bool) -> String? {
        let planned = tune.policies.count * tune.scaledEnvironments.count
        let whole = measured.filter { $0.runs.count >= tune.seeds }.count
        guard interrupted, whole < planned else { return nil }
        return
            "the sweep was interrupted with \(whole) of \(planned) cells measured on every seed; a partial sweep recommends nothing"
    }

    /// The recommended policy's label (nil: no single winner).
    var recommendedLabel: String? { decision.recommended?.label }

    var regretCSV: String { ([Regret.header] + regret.map(\.csvLine)).joined(separator: "\n") + "\n" }

    package var measured: [TuneCell] { cells.filter { !$0.runs.isEmpty } }

    static let cellsHeader = ResultFile.TuneCellColumn.header

    var cellsCSV: String {
        var text = Self.cellsHeader + "\n"
        for cell in measured {
            let interval = cell.successInterval
            let policy = cell.policy
            text +=
                CSV.line([
                    policy.label, cell.environment.name, String(policy.maxRetries),
                    Self.number(policy.baseDelay.seconds),
                    Self.number(policy.maxDelay.seconds), Self.number(policy.timeout.seconds), String(cell.runs.count),
                    Self.number(cell.successRate), Self.number(interval.low), Self.number(interval.high),
                    Self.number(cell.latency(at: 0.99)), Self.number(cell.amplification), Self.number(cell.peakLoad),
                    String(cell.duplicates), String(cell.lost), Self.number(cell.recovery),
                    cell.metastable.map { $0 ? "1" : "0" } ?? "", cell.pareto ? "1" : "0",
                    Self.number(cell.latency(at: 0.5)), Self.number(cell.latency(at: 0.999)), String(cell.sends),
                    String(cell.deadWork), policy == tune.defaultPolicy ? "1" : "0", policy.budget.text,
                    decision.standings[policy]?[cell.environment.name]?.rawValue ?? "excluded",
                    cell.verdict?.rawValue ?? "", Self.number(cell.userSuccess), Self.number(cell.okLatency),
                    tune.objective.deadline.map { Self.number($0.seconds) } ?? "",
                ]) + "\n"
        }
        return text
    }

    /// A figure as CSV: empty when not measured.
    static func number(_ value: Double) -> String { value.isFinite ? SummaryCSV.format(value) : "" }

    var checks: [BrownoutCheck] { measured.compactMap(BrownoutCheck.init) }

    /// outage_check.csv: the closed form of a hard outage against the sweep.
    static let outageColumns: [CSV.Column<OutageCheck>] = [
        .init("environment") { $0.environment }, .init("cell") { $0.policy.label },
        .init("from_s") { number($0.window.from) }, .init("to_s") { number($0.window.to) },
        .init("max_retries") { String($0.policy.maxRetries) }, .init("sends") { String($0.sends) },
        .init("success_measured") { number($0.success.measured) },
        .init("success_analytic") { number($0.success.analytic) }, .init("success_z") { number($0.success.z) },
        .init("agrees") { $0.agrees ? "1" : "0" },
    ]

    var outageCSV: String { CSV.document(Self.outageColumns, rows: outageChecks) }

    /// sanity.csv: the analytic brownout check against the sweep.
    static let sanityColumns: [CSV.Column<BrownoutCheck>] = [
        .init("environment") { $0.environment }, .init("cell") { $0.policy.label },
        .init("probability") { number($0.probability) }, .init("max_retries") { String($0.policy.maxRetries) },
        .init("sends") { String($0.sends) }, .init("success_measured") { number($0.success.measured) },
        .init("success_analytic") { number($0.success.analytic) }, .init("success_z") { number($0.success.z) },
        .init("attempts_measured") { number($0.attempts.measured) },
        .init("attempts_analytic") { number($0.attempts.analytic) }, .init("attempts_z") { number($0.attempts.z) },
        .init("agrees") { $0.agrees ? "1" : "0" },
    ]

    var sanityCSV: String { CSV.document(Self.sanityColumns, rows: checks) }

    /// One summary row per figure per cell (`<tune>/<environment>`, probe `cell`, metric the
    /// policy's label), and the analytic check's counts.
    var rows: [SummaryRow] {
        var rows: [SummaryRow] = []
        for cell in measured {
            var recorder = MetricRecorder(scenario: "\(tune.name)/\(cell.environment.name)")
            let label = cell.policy.label
            let interval = cell.successInterval
            var figures: [(CellStatistic, Double)] = [
                (.successRate, cell.successRate), (.successRateLow, interval.low), (.successRateHigh, interval.high),
                (.latencyP50, cell.latency(at: 0.5)), (.latencyP99, cell.latency(at: 0.99)),
                (.latencyP999, cell.latency(at: 0.999)), (.amplification, cell.amplification),
            ]
            if cell.peakLoad.isFinite { figures.append((.peakLoad, cell.peakLoad)) }
            figures += [
                (.duplicates, Double(cell.duplicates)), (.lost, Double(cell.lost)), (.deadWork, Double(cell.deadWork)),
            ]
            if let metastable = cell.metastable {
                figures += [(.metastable, metastable ? 1 : 0), (.recovery, cell.recovery)]
            }
            figures.append((.sends, Double(cell.sends)))
            for (statistic, value) in figures { recorder.record(.cell(statistic), label: label, value) }
            rows += recorder.rows
        }
        var sanity = MetricRecorder(scenario: tune.name)
        sanity.record(.sanityBrownoutChecks, Double(checks.count))
        sanity.record(.sanityBrownoutDisagreements, Double(checks.filter { !$0.agrees }.count))
        let outage = outageChecks
        if !outage.isEmpty {
            sanity.record(.sanityOutageChecks, Double(outage.count))
            sanity.record(.sanityOutageDisagreements, Double(outage.filter { !$0.agrees }.count))
        }
        sanity.record(.sanityDuplicates, Double(measured.reduce(0) { $0 + $1.duplicates }))
        sanity.record(.sanityLost, Double(measured.reduce(0) { $0 + $1.lost }))
        var rule = MetricRecorder(scenario: tune.name)
        rule.record(.ruleSingleWinner, decision.recommended == nil ? 0 : 1)
        rule.record(.ruleTied, Double(decision.outcome.tied.count))
        if decision.stability.checked {
            rule.record(.ruleBootstrapShare, decision.stability.share)
            rule.record(.ruleLeaveOneOutChanges, Double(decision.stability.leaveOneOut.count))
        }
        var regretRows: [SummaryRow] = []
        for entry in regret {
            var recorder = MetricRecorder(scenario: "\(tune.name)/\(entry.environment)")
            let against = entry.against.rawValue
            let figures: [(RegretStatistic, Double)] = [
                (.sendsLostPer10k, entry.sendsLostPer10k), (.extraP99, entry.extraP99),
                (.extraServerLoad, entry.extraServerLoadPercent), (.extraDeadWorkPer10k, entry.extraDeadWorkPer10k),
            ]
            for (statistic, value) in figures {
                recorder.record(.regret(statistic, against: against), label: tune.defaultPolicy.label, value)
            }
            regretRows += recorder.rows
        }
        return rows + sanity.rows + rule.rows + regretRows
    }
}
