import Foundation

/// N workers with a service time; above capacity requests queue (latency grows) or are shed with
/// 503 + Retry-After. A `schedule` changes the number of workers over time (a capacity drop), and
/// `abandoned` says whether queued work whose client has gone is still served.
public struct CapacityModel: Sendable, Hashable, Codable {
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable, InputChoice { case queue, shed }

    /// What the server does with a queued request whose client has gone before its turn.
    public enum Abandoned: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
        /// It still takes its worker for its service time (dead work: the sustaining effect of
        /// most metastable failures).
        case serve
        /// It is dropped unprocessed, and the worker time it had reserved is given back.
        case drop
    }

    public var workers: Int
    public var serviceTime: Distribution
    public var mode: Mode
    /// With `queue`: requests waiting beyond this many are shed too.
    public var maxQueue: Int?
    public var shedRetryAfter: RetryAfterSpec?
    /// Windows with another number of workers (time since the server started).
    public var schedule: [CapacityChange]
    public var abandoned: Abandoned

    public init(
        workers: Int, serviceTime: Distribution, mode: Mode = .queue, maxQueue: Int? = nil,
        shedRetryAfter: RetryAfterSpec? = nil, schedule: [CapacityChange] = [], abandoned: Abandoned = .serve
    ) {
        self.workers = workers
        self.serviceTime = serviceTime
        self.mode = mode
        self.maxQueue = maxQueue
        self.shedRetryAfter = shedRetryAfter
        self.schedule = schedule
        self.abandoned = abandoned
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case workers, serviceTime, mode, maxQueue, shedRetryAfter, schedule, abandoned
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        workers = try container.requiredInteger(Int.self, .workers)
        serviceTime = try container.decode(Distribution.self, forKey: .serviceTime)
        mode = try container.decodeIfPresent(Mode.self, forKey: .mode) ?? .queue
        maxQueue = try container.integer(Int.self, .maxQueue)
        shedRetryAfter = try container.decodeIfPresent(RetryAfterSpec.self, forKey: .shedRetryAfter)
        schedule = try container.decodeIfPresent([CapacityChange].self, forKey: .schedule) ?? []
        abandoned = try container.decodeIfPresent(Abandoned.self, forKey: .abandoned) ?? .serve
    }

    func validate(path: String) throws(InputError) {
        try InputError.check(workers, in: 1...100_000, path + ".workers")
        if let maxQueue { try InputError.check(maxQueue, in: 0...10_000_000, path + ".maxQueue") }
        try serviceTime.validate(path: path + ".serviceTime")
        // A worker that takes no time is no limit: nothing would queue, and a run's load (arrivals
        // over capacity) would have no value to judge.
        guard serviceTime.mean > 0 else {
            throw InputError(
                path: path + ".serviceTime", reason: "must take time on average (a mean of 0 s is no capacity limit)")
        }
        try shedRetryAfter?.validate(path: path + ".shedRetryAfter")
        try InputError.check(schedule.count, in: 0...1000, path + ".schedule", unit: " windows")
        for (index, change) in schedule.enumerated() {
            let item = path + ".schedule[\(index)]"
            try change.validate(path: item)
            if index > 0, change.from < schedule[index - 1].to {
                throw InputError(
                    path: item + ".from",
                    reason:
                        "windows must be in order and not overlap (the one before ends at \(schedule[index - 1].to))")
            }
        }
    }

    func scaled(by factor: Double) -> CapacityModel {
        var copy = self
        copy.serviceTime = serviceTime.scaled(by: factor)
        copy.shedRetryAfter = shedRetryAfter?.scaled(by: factor)
        copy.schedule = schedule.map { $0.scaled(by: factor) }
        return copy
    }

    /// The number of workers at `elapsed` seconds since the server started.
    public func workers(at elapsed: Double) -> Int {
        for change in schedule where elapsed >= change.from.seconds && elapsed < change.to.seconds {
            return change.workers(base: workers)
        }
        return workers
    }
}

/// `{"from": "20s", "to": "30s", "workers": 2}` or `{"from": …, "to": …, "factor": 0.2}`: from
/// (inclusive) to (exclusive) the server has that many workers (a factor of the base, rounded down).
/// Work in progress when capacity drops is finished; waiting work waits for a worker that exists.
public struct CapacityChange: Sendable, Hashable, Codable {
    public var from: TimeSpan
    public var to: TimeSpan
    public var workers: Int?
    public var factor: Double?

    public init(from: TimeSpan, to: TimeSpan, workers: Int? = nil, factor: Double? = nil) {
        self.from = from
        self.to = to
        self.workers = workers
        self.factor = factor
    }

    private enum CodingKeys: String, CodingKey, CaseIterable { case from, to, workers, factor }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        from = try container.decode(TimeSpan.self, forKey: .from)
        to = try container.decode(TimeSpan.self, forKey: .to)
        workers = try container.integer(Int.self, .workers)
        factor = try container.decodeIfPresent(Double.self, forKey: .factor)
    }

    func validate(path: String) throws(InputError) {
        try InputError.check(from, path + ".from")
        try InputError.check(to, path + ".to", positive: true)
        if to <= from { throw InputError(path: path + ".to", reason: "must be after from (\(from))") }
        switch (workers, factor) {
        case (let workers?, nil):
            try InputError.check(workers, in: 0...100_000, path + ".workers")
        case (nil, let factor?):
            guard factor.isFinite, (0...100).contains(factor) else {
                throw InputError(path: path + ".factor", reason: "must be 0-100 (a multiple of the base workers)")
            }
        default:
            throw InputError(path: path, reason: "give either workers or factor (exactly one)")
        }
    }

    /// The workers in the window, for a model of `base` workers.
    public func workers(base: Int) -> Int {
        if let workers { return workers }
        return min(100_000, Int((Double(base) * (factor ?? 1)).rounded(.down)))
    }

    func scaled(by factor: Double) -> CapacityChange {
        CapacityChange(from: from.scaled(by: factor), to: to.scaled(by: factor), workers: workers, factor: self.factor)
    }
}
