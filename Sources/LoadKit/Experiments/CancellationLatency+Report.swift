extension CancellationLatency {
    /// Summary rows and assertion metrics, named `cancellation.<phase>.<idle|load>.<statistic>`
    /// (the baseline as `cancellation.raw_urlsession.<phase>.…`).
    public static func report(_ results: [Result], scenario: String) -> (rows: [SummaryRow], metrics: [String: Double])
    {
        var recorder = MetricRecorder(scenario: scenario)
        var live = 0.0
        for result in results {
            let prefix =
                result.client == .sdk ? result.phase.rawValue : "\(result.client.rawValue).\(result.phase.rawValue)"
            let name = "\(prefix).\(result.backgroundLoad == 0 ? "idle" : "load")"
            recorder.record(result.latency, as: .cancellation(name), divisor: 1e6)
            // Sends that finished before the cancel landed (possible at random moments) are left out.
            let finished = Double(result.codes["ok"] ?? 0)
            let running = Double(max(1, result.latency.count)) - finished
            let expected = result.client == .sdk ? "aborted" : "cancelled"
            let values: [(CancellationStatistic, Double)] = [
                (.abortedRatio, running > 0 ? Double(result.codes[expected] ?? 0) / running : 1),
                (.finishedBeforeCancel, finished), (.attemptsAfterCancel, Double(result.attemptsAfterCancel)),
                (.arrivalsAfterCancel, Double(result.arrivalsAfterCancel)),
                (.serverRetriesAfterCancel, result.serverRetriesAfterCancel),
                (.serverCloseP50, result.serverClose.count > 0 ? result.serverClose.value(at: 0.5) / 1e6 : .nan),
                (.residentGrowth, result.residentGrowthKiB), (.backgroundLoad, Double(result.backgroundLoad)),
                (.wallSeconds, result.wallSeconds), (.clientCPUSeconds, result.clientCPUSeconds),
                (.serverCPUSeconds, result.serverCPUSeconds), (.connectionsOpened, result.connectionsOpened),
                (.connectionsActive, result.connectionsActive),
            ]
            if result.reference.count > 0 {
                let beside: [(CancellationStatistic, Histogram, Double)] = [
                    (.referenceP50, result.reference, 0.5), (.referenceP99, result.reference, 0.99),
                    (.referenceMax, result.reference, 1.0), (.excessP90, result.excess, 0.9),
                    (.excessMax, result.excess, 1.0),
                ]
                for (statistic, histogram, quantile) in beside {
                    recorder.record(.cancellation(name, statistic), histogram.value(at: quantile) / 1e6)
                }
            }
            for (statistic, value) in values { recorder.record(.cancellation(name, statistic), value) }
            live = max(live, Double(result.liveAfter))
        }
        recorder.record(.cancellationLiveRequestsAfter, live)
        return (recorder.rows, recorder.metrics)
    }
}
