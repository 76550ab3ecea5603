import FakeFrontmail
import Foundation

/// A run second by second (policy seconds): the server from its ledger and capacity calendar, the
/// client from the history. Written as `timeseries.csv` for every load (docs/csv.md).
struct TimeSeries {
    struct Second: Sendable, Hashable {
        /// Server: requests that arrived, were processed (with a capacity model: whose worker
        /// finished them), shed, dropped unprocessed.
        var arrivals = 0
        var served = 0
        var shed = 0
        var dropped = 0
        /// Processed although the client had gone (dead work).
        var deadWork = 0
        /// Mean requests waiting for a worker, mean busy workers, workers the plan gives (NaN
        /// without a capacity model).
        var queueDepth = Double.nan
        var busyWorkers = Double.nan
        var capacityWorkers = Double.nan
        /// Client: logical sends started, ended ok, ended otherwise, not started (open loop's cap).
        var sendsStarted = 0
        var sendsOK = 0
        var sendsFailed = 0
        var sendsDropped = 0
        /// Attempts the SDK reported starting.
        var attemptsStarted = 0
        /// Mean logical sends in flight.
        var inFlight = 0.0
        /// Requests by how they ended, from the ledger, by arrival: answered 2xx, 429, another 4xx,
        /// 5xx; no answer (reset, close, hang); the client left first (a timeout or a cancel).
        var answeredOK = 0
        var answered429 = 0
        var answered4xx = 0
        var answered5xx = 0
        var noAnswer = 0
        var clientLeft = 0
    }

    /// One entry per policy second from the start of the run's clock.
    private(set) var seconds: [Second]
    /// Requests per policy second the base capacity model serves (NaN without one).
    let capacityRate: Double
    /// Work the server's queue still held when the run ended: processed after the last second,
    /// every request of it after its client had gone (counted until the queue is empty, or
    /// `drainLimit` seconds after the end), and how long the queue took to empty.
    private(set) var deadWorkAfterEnd = 0
    private(set) var drain = 0.0
    /// The queue had not emptied `drainLimit` seconds after the end (work beyond is not counted).
    private(set) var drainLimited = false
    /// Policy seconds after the run's end that dead work is still counted.
    static let drainLimit = 3600

    /// What the series is made from.
    struct Input {
        /// Wall seconds per policy second (the scenario's `timeScale`).
        var width: Double
        var records: [History.Record]
        var ledger: [LedgerRecord]
        var attemptBuckets: [Int]
        var capacity: CapacitySeries?
        /// The plan's capacity model as the server ran it (scaled).
        var model: CapacityModel?
        /// The end of the run on its clock (seconds).
        var end: Double
    }

    init(_ input: Input) {
        let width = input.width
        let count = max(1, min(CapacitySeries.maxBuckets, Int((input.end / width).rounded(.up))))
        var seconds = Array(repeating: Second(), count: count)
        func bucket(_ time: Double) -> Int? {
            guard time.isFinite, time >= 0 else { return nil }
            return min(count - 1, Int(time / width))
        }
        for record in input.ledger {
            if let at = bucket(record.arrival) {
                seconds[at].arrivals += 1
                switch (record.clientGone, record.status) {
                case (true, _): seconds[at].clientLeft += 1
                case (false, 200..<300): seconds[at].answeredOK += 1
                case (false, 429): seconds[at].answered429 += 1
                case (false, 400..<500): seconds[at].answered4xx += 1
                case (false, 500..<600): seconds[at].answered5xx += 1
                default: seconds[at].noAnswer += 1
                }
            }
            switch record.action {
            case .shed: if let at = bucket(record.arrival) { seconds[at].shed += 1 }
            case .dropped: if let at = bucket(record.arrival) { seconds[at].dropped += 1 }
            case .fault(.hang), .fault(.reset), .fault(.close), .fault(.refuse): break
            case .served, .fault:
                guard let at = bucket(record.finished) else { break }
                seconds[at].served += 1
                if record.clientGone { seconds[at].deadWork += 1 }
            }
        }
        for record in input.records {
            if record.outcome == .dropped {
                if let at = bucket(record.intended) { seconds[at].sendsDropped += 1 }
                continue
            }
            if let at = bucket(record.started) { seconds[at].sendsStarted += 1 }
            if let at = bucket(record.ended) {
                if case .ok = record.outcome { seconds[at].sendsOK += 1 } else { seconds[at].sendsFailed += 1 }
            }
            let end = record.ended.isFinite ? record.ended : input.end
            Self.spread(from: record.started, to: end, width: width, into: &seconds) { $0.inFlight += $1 }
        }
        for (index, attempts) in input.attemptBuckets.enumerated() where index < count {
            seconds[index].attemptsStarted = attempts
        }
        if let series = input.capacity, let model = input.model {
            Self.countCapacity(series, model: model, width: width, into: &seconds)
        }
        self.seconds = seconds
        capacityRate = input.model.map { Double($0.workers) / ($0.serviceTime.mean / width) } ?? .nan
        if let series = input.capacity, input.model != nil { countDrain(series, after: count) }
    }

    /// Each second's served and dead work, busy workers, queue and capacity from the capacity model's
    /// own series.
    private static func countCapacity(
        _ series: CapacitySeries, model: CapacityModel, width: Double, into seconds: inout [Second]
    ) {
        // With a capacity model, work is counted when its worker finishes it (the ledger's
        // finish of an abandoned request is when its client left).
        for index in seconds.indices {
            seconds[index].served = index < series.served.count ? series.served[index] : 0
            seconds[index].deadWork = index < series.dead.count ? series.dead[index] : 0
            let busy = index < series.busy.count ? series.busy[index] : 0
            let waiting = index < series.waiting.count ? series.waiting[index] : 0
            seconds[index].busyWorkers = busy / series.width
            seconds[index].queueDepth = waiting / series.width
            seconds[index].capacityWorkers = Self.meanWorkers(model, from: Double(index) * width, width: width)
        }
    }

    /// Adds each bucket's share of `span` (as a fraction of the bucket) with `add`.
    /// Adds the part of `[start, end)` each second holds. The bounds come from records (a merged
    /// shard's among them): a bound that is not a finite time, or an end before the start, adds
    /// nothing, and no range is made of them before they are checked.
    private static func spread(
        from start: Double, to end: Double, width: Double, into seconds: inout [Second],
        _ add: (inout Second, Double) -> Void
    ) {
        guard start.isFinite, start >= 0, end > start, !seconds.isEmpty else { return }
        let first = Int(start / width)
        let last = min(seconds.count - 1, end.isFinite ? Int(end / width) : seconds.count - 1)
        guard first <= last else { return }
        for index in first...last {
            let low = max(start, Double(index) * width)
            let high = min(end, Double(index + 1) * width)
            if high > low { add(&seconds[index], (high - low) / width) }
        }
    }

    /// The mean number of workers the plan gives over one bucket.
    private static func meanWorkers(_ model: CapacityModel, from start: Double, width: Double) -> Double {
        let steps = 16
        var total = 0
        for step in 0..<steps { total += model.workers(at: start + (Double(step) + 0.5) * width / Double(steps)) }
        return Double(total) / Double(steps)
    }

    /// The queue's work after the run's last second (`count` buckets): the calendar booked every
    /// request at its arrival, so when each one finishes, and whether its client had gone, is known.
    private mutating func countDrain(_ series: CapacitySeries, after count: Int) {
        let last = series.served.lastIndex { $0 != 0 }.map { $0 + 1 } ?? 0
        let limit = count + Self.drainLimit
        drainLimited = last > limit
        drain = Double(max(0, min(last, limit) - count))
        if series.dead.count > count {
            deadWorkAfterEnd = series.dead[count..<min(series.dead.count, limit)].reduce(0, +)
        }
    }

    // MARK: Figures

    /// Sends ended ok in each second.
    var goodput: [Double] { seconds.map { Double($0.sendsOK) } }

    /// The busiest second's server arrivals ÷ the base capacity (requests per second).
    var peakLoad: Double { Double(seconds.map(\.arrivals).max() ?? 0) / capacityRate }

    /// Requests processed after their client had gone, until the server's queue was empty.
    var deadWork: Int { seconds.reduce(0) { $0 + $1.deadWork } + deadWorkAfterEnd }

    /// The `timeseries.*` summary rows and metrics.
    func summary(scenario: String) -> (rows: [SummaryRow], metrics: [String: Double]) {
        var recorder = MetricRecorder(scenario: scenario)
        recorder.record(.timeseriesSeconds, Double(seconds.count))
        recorder.record(.timeseriesPeakArrivals, Double(seconds.map(\.arrivals).max() ?? 0))
        if capacityRate.isFinite {
            recorder.record(.timeseriesPeakLoad, peakLoad)
            recorder.record(.timeseriesPeakQueueDepth, seconds.map(\.queueDepth).max() ?? 0)
        }
        recorder.record(.timeseriesDeadWork, Double(deadWork))
        if capacityRate.isFinite {
            recorder.record(.timeseriesDeadWorkAfterEnd, Double(deadWorkAfterEnd))
            recorder.record(.timeseriesDrain, drain)
            recorder.record(.timeseriesDrainLimited, drainLimited ? 1 : 0)
        }
        recorder.record(.timeseriesDroppedUnprocessed, Double(seconds.reduce(0) { $0 + $1.dropped }))
        return (recorder.rows, recorder.metrics)
    }

    static let header = ResultFile.TimeseriesColumn.header

    var csv: String {
        var text = Self.header + "\n"
        for (index, second) in seconds.enumerated() {
            text +=
                CSV.line(
                    [String(index)]
                        + [second.arrivals, second.served, second.shed, second.dropped, second.deadWork].map {
                            String($0)
                        }
                        + [second.queueDepth, second.busyWorkers, second.capacityWorkers].map {
                            $0.isFinite ? SummaryCSV.format($0) : ""
                        }
                        + [
                            second.sendsStarted, second.sendsOK, second.sendsFailed, second.sendsDropped,
                            second.attemptsStarted,
                        ].map { String($0) } + [SummaryCSV.format(second.inFlight)]
                        + [
                            second.answeredOK, second.answered429, second.answered4xx, second.answered5xx,
                            second.noAnswer, second.clientLeft,
                        ].map { String($0) }) + "\n"
        }
        return text
    }
}

extension TimeSeries {
    /// The `metastability.*` figures: the verdict (1: metastable), the recovery time (the window's
    /// length when it never recovered), goodput before and after, and the peak load and dead work
    /// from the trigger to the end of the window.
    func metastability(_ settings: MetastabilitySettings, trigger: Double, restore: Double) -> [(MetricKey, Double)] {
        let window = settings.window.seconds
        let verdict = MetastabilityVerdict(
            goodput: goodput, trigger: trigger, restore: restore, window: window, smooth: settings.smooth.seconds,
            threshold: settings.threshold)
        // A run stopped before its trigger (interrupted) has no second of the window: nothing to
        // judge in it, never a range whose start is past its end.
        let upper = min(seconds.count, Int((restore + window).rounded(.up)))
        let span = min(max(0, Int(trigger)), max(0, upper))..<max(0, upper)
        let during = span.isEmpty ? [] : Array(seconds[span])
        var figures: [(MetricKey, Double)] = [
            (.metastabilityVerdict, verdict.metastable ? 1 : 0), (.metastabilityRecovery, verdict.recovery ?? window),
            (.metastabilityGoodputBefore, verdict.baseline), (.metastabilityGoodputAfter, verdict.after),
            (.metastabilityDeadWork, Double(during.reduce(0) { $0 + $1.deadWork })),
            (.metastabilityTrigger, trigger), (.metastabilityRestore, restore),
        ]
        if capacityRate.isFinite {
            figures.append((.metastabilityPeakLoad, Double(during.map(\.arrivals).max() ?? 0) / capacityRate))
        }
        return figures
    }
}
