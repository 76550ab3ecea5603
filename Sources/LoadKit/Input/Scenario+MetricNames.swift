import FakeFrontmail
import Frontmail

/// What the catalog's open-ended names (error codes, cancellation cells, calibration rows) mean for
/// one scenario: which of them it can measure.
extension MetricCatalog {
    /// Error codes a run can count: the API's, the client's, the fake server's own, and any code the
    /// scenario's plan answers with.
    static func errorCodes(in scenario: Scenario) -> Set<String> {
        var codes = Set(FrontmailError.Code.statusTable.keys.map(\.rawValue))
        codes.formUnion(FrontmailError.Code.clientCodes.map(\.rawValue))
        codes.formUnion(["unfinished", "request_timeout"])
        for rule in scenario.plan.rules {
            if let code = rule.action.code { codes.insert(code) }
            if let status = rule.action.status { codes.insert(ServerResponse.defaultCode(for: status)) }
        }
        return codes
    }

    /// Why a name with an open-looking tail (an error code, a cancellation cell) names nothing this
    /// scenario can measure; nil when it can.
    static func unknownPart(of name: String, in scenario: Scenario) -> String? {
        for prefix in ["send.errors.", "attempts.errors."] where name.hasPrefix(prefix) {
            let code = String(name.dropFirst(prefix.count))
            return errorCodes(in: scenario).contains(code)
                ? nil : "no error code '\(code)' (the codes are listed in docs/scenarios.md)"
        }
        let needsCapacity: [MetricKey] = [
            .timeseriesPeakLoad, .timeseriesPeakQueueDepth, .metastabilityPeakLoad, .timeseriesDeadWorkAfterEnd,
            .timeseriesDrain, .timeseriesDrainLimited,
        ]
        if needsCapacity.contains(where: { $0.text == name }), scenario.plan.capacity == nil {
            return "the plan has no capacity model to measure load against"
        }
        let needsBudget: [MetricKey] = [
            .retryBudgetRefused, .retryExactBudgetDecisions, .retryExactBudgetRefusals, .retryExactBudgetViolations,
        ]
        if needsBudget.contains(where: { $0.text == name }), scenario.client.budget == .none {
            return "the client has no retry budget (client.budget)"
        }
        if name.hasPrefix("calibration.") {
            guard let reference = scenario.load.calibratedRate?.of, scenario.experiment == .load else {
                return "this scenario's load is not calibrated (write its rate as {\"fraction\": …, \"of\": …})"
            }
            let known = [
                MetricKey.calibrationThroughput(reference.metricName).text,
                MetricKey.calibrationWindow(reference.metricName).text,
                "calibration.load.fraction", "calibration.load.rate",
            ]
            return known.contains(name) ? nil : "not one of \(known.joined(separator: ", "))"
        }
        guard name.hasPrefix("cancellation."), case .cancellation(let settings) = scenario.experiment else {
            return nil
        }
        return unknownCancellationPart(of: name, settings: settings, crossesNetwork: scenario.transport.crossesNetwork)
    }

    /// `unknownPart` for a cancellation experiment's names: `cancellation.<phase>.<idle|load>.<statistic>`,
    /// the raw URLSession baseline's, the soak's and `live_requests_after`.
    private static func unknownCancellationPart(
        of name: String, settings: CancellationSettings, crossesNetwork: Bool
    ) -> String? {
        let parts = name.dropFirst("cancellation.".count).split(separator: ".", omittingEmptySubsequences: false)
            .map(String.init)
        switch parts.first {
        case "live_requests_after" where parts.count == 1:
            return nil
        case "soak" where parts.count == 2:
            if !MetricCatalog.soakStatistics.contains(parts[1]) {
                return "the soak reports \(MetricCatalog.soakStatistics.sorted().joined(separator: ", "))"
            }
            return settings.soak > 0 ? nil : "this scenario runs no soak (cancellation.soak is 0)"
        default:
            break
        }
        var cell = parts
        var phases = settings.phases.map(\.rawValue)
        var statistics = cancellationStatistics
        if cell.first == "raw_urlsession" {
            guard settings.baseline, crossesNetwork else {
                return "the raw URLSession baseline runs only over sockets with baseline true"
            }
            cell.removeFirst()
            phases = phases.filter { $0 == CancellationPhase.inFlight.rawValue }
            if cell.last?.hasPrefix("reference_") == true {
                return "the reference is measured beside the SDK's cells, not the baseline's"
            }
            statistics = rawCancellationStatistics
        }
        // <phase>.<idle|load>.<statistic>; the statistic p99.9 has a dot of its own.
        guard cell.count >= 3, let phase = cell.first, let load = cell.dropFirst().first else {
            return "write cancellation.<phase>.<idle|load>.<statistic>"
        }
        let statistic = cell.dropFirst(2).joined(separator: ".")
        guard phases.contains(phase) else {
            return "phase '\(phase)' is not measured (measured: \(phases.joined(separator: ", ")))"
        }
        guard load == "idle" || (load == "load" && settings.backgroundLoad > 0) else {
            return settings.backgroundLoad > 0 || load != "load"
                ? "write idle or load after the phase, not '\(load)'" : "backgroundLoad is 0: there is no load cell"
        }
        guard statistics.contains(statistic) else {
            return "no statistic '\(statistic)' (one of \(statistics.sorted().joined(separator: ", ")))"
        }
        if statistic == "server_retries_after_cancel", CancellationPhase(rawValue: phase)?.ledgerJudgesRetries != true {
            let judged = CancellationPhase.allCases.filter(\.ledgerJudgesRetries).map(\.rawValue)
            return "server_retries_after_cancel is measured for \(judged.joined(separator: ", ")) only"
        }
        return nil
    }
}

extension CalibratedRate.Reference {
    /// The metric name of its figures: `calibration.<name>.throughput`.
    public var metricName: String {
        switch self {
        case .rawURLSession: return "raw_urlsession"
        case .inProcessCore: return "in_process_core"
        }
    }
}
