/// A CSV results file's columns, each named once beside its file: the writer writes the header
/// from them (`header`), and the report and its charts find their data by them, so a renamed
/// column is renamed for both or is a compile error.
package protocol CSVColumns: CaseIterable, RawRepresentable where RawValue == String, AllCases == [Self] {}

extension CSVColumns {
    /// The header line (without its line break), the columns in their declared order.
    package static var header: String { allCases.map(\.rawValue).joined(separator: ",") }
}

extension Array where Element == String {
    /// Where `column` is in a header row; nil when the file has no such column.
    package func index<Column: CSVColumns>(of column: Column) -> Int? { firstIndex(of: column.rawValue) }
}

extension ResultFile {
    /// `history.csv`: one row per logical send (docs/csv.md).
    package enum HistoryColumn: String, CSVColumns {
        case sendID = "send_id"
        case intended = "intended_s"
        case started = "started_s"
        case ended = "ended_s"
        case verdict
        case code
        case status
        case messageID = "message_id"
        case attempts
        case keyChanged = "key_changed"
        case effects
    }

    /// `timeseries.csv`: one row per second of the run.
    package enum TimeseriesColumn: String, CSVColumns {
        case second
        case arrivals
        case served
        case shed
        case dropped
        case deadWork = "dead_work"
        case queueDepth = "queue_depth"
        case busyWorkers = "busy_workers"
        case capacityWorkers = "capacity_workers"
        case sendsStarted = "sends_started"
        case sendsOk = "sends_ok"
        case sendsFailed = "sends_failed"
        case sendsDropped = "sends_dropped"
        case attemptsStarted = "attempts_started"
        case inFlight = "in_flight"
        case answered2xx = "answered_2xx"
        case answered429 = "answered_429"
        case answered4xx = "answered_4xx"
        case answered5xx = "answered_5xx"
        case noAnswer = "no_answer"
        case clientLeft = "client_left"
    }

    /// `jitter_samples.csv`: one row per wait before a retry.
    package enum JitterSampleColumn: String, CSVColumns {
        case sendID = "send_id"
        case afterAttempt = "after_attempt"
        case cause
        case delay = "delay_s"
        case cap = "cap_s"
        case normalized
        case serverRetryAfter = "server_retry_after_s"
        case realizedGap = "realized_gap_s"
        case expectedCap = "expected_cap_s"
    }

    /// A sweep's `cells.csv`: one row per policy and environment.
    package enum TuneCellColumn: String, CSVColumns {
        case cell
        case environment
        case maxRetries = "max_retries"
        case baseDelay = "base_delay_s"
        case maxDelay = "max_delay_s"
        case timeout = "timeout_s"
        case seeds
        case successRate = "success_rate"
        case successRateLow = "success_rate_low"
        case successRateHigh = "success_rate_high"
        case latencyP99 = "latency_p99_policy_ms"
        case amplification
        case peakLoad = "peak_load"
        case duplicates
        case lost
        case recovery = "recovery_s"
        case metastable
        case pareto
        case latencyP50 = "latency_p50_policy_ms"
        case latencyP999 = "latency_p999_policy_ms"
        case sends
        case deadWork = "dead_work"
        case isDefault = "default"
        case budget
        case standing
        case verdict
        case okInDeadline = "success_in_deadline"
        case okLatencyQuantile = "ok_latency_quantile_policy_ms"
        case deadline = "deadline_s"
    }

    /// A sweep's `metastability.csv`: the storm map, one row per policy, load and drop.
    package enum MetastabilityColumn: String, CSVColumns {
        case policy
        case budget
        case load
        case drop = "drop_s"
        case environment
        case metastable
        case recovery = "recovery_s"
        case successRate = "success_rate"
        case amplification
        case deadWorkPer10k = "dead_work_per_10k"
        case verdict
        case goodputBeforeShare = "goodput_before_share"
        /// The client instances sharing the server (empty: the sweep's base, one scale).
        case clients
    }
}
