import Foundation

/// The capacity model's calendar: which worker serves a request, from when to when, decided at
/// arrival in the core's time (no threads involved). A value-type state machine; the fault engine
/// keeps it under its lock.
///
/// A request takes the worker that can start it first: `max(arrival, when the worker is free)`,
/// moved on past any schedule window in which that worker does not exist. Queued work is served in
/// arrival order (each request books behind the ones before it). With `abandoned: drop`, a request
/// whose client leaves before its start gives its reserved time back (`release`): requests booked
/// after it keep their times, and the time goes to the next arrivals.
struct CapacityBook {
    let model: CapacityModel
    /// When each worker is next free (seconds since start); as many as the most workers any window has.
    private(set) var freeAt: [Double]
    /// Start times of booked requests that may still be waiting (kept only with `maxQueue`).
    private var pendingStarts: [Double] = []
    /// Times at which the number of workers changes, in order.
    private let edges: [Double]
    /// Busy workers and waiting requests integrated per bucket (nil: not recorded).
    private(set) var series: CapacitySeries?

    /// One request's place on the calendar.
    struct Booking: Sendable, Hashable {
        var worker: Int
        var arrival: Double
        var start: Double
        var finish: Double
    }

    enum Admission: Sendable, Hashable {
        /// Processing starts at `booking.start` and ends at `booking.finish`.
        case proceed(Booking)
        case shed
    }

    init(model: CapacityModel, seriesWidth: Double?) {
        self.model = model
        let most = model.schedule.map { $0.workers(base: model.workers) }.max() ?? 0
        freeAt = Array(repeating: 0, count: max(model.workers, most))
        edges = model.schedule.flatMap { [$0.from.seconds, $0.to.seconds] }
        series = seriesWidth.map { CapacitySeries(width: $0) }
    }

    /// Books a worker for a request arriving at `elapsed` that needs `service` seconds.
    mutating func admit(at elapsed: Double, service: Double) -> Admission {
        var best: (worker: Int, start: Double)?
        for worker in freeAt.indices {
            guard let start = earliestStart(worker, from: max(elapsed, freeAt[worker])) else { continue }
            if best == nil || start < best!.start { best = (worker, start) }
            if start == elapsed { break }
        }
        // Worker 0 exists outside every window, so some worker always can start it eventually.
        guard let best else { return .shed }
        if best.start > elapsed {
            switch model.mode {
            case .shed:
                return .shed
            case .queue:
                if let limit = model.maxQueue {
                    pendingStarts.removeAll { $0 <= elapsed }
                    if pendingStarts.count >= limit { return .shed }
                    pendingStarts.append(best.start)
                }
            }
        }
        let booking = Booking(worker: best.worker, arrival: elapsed, start: best.start, finish: best.start + service)
        freeAt[best.worker] = booking.finish
        series?.add(waiting: booking.arrival..<booking.start, busy: booking.start..<booking.finish, sign: 1)
        series?.count(served: booking.finish, sign: 1)
        return .proceed(booking)
    }

    /// The client of `booking` left at `now`. With `abandoned: drop` and the request still waiting
    /// for its turn, its reserved time is given back and true returned (the request must not be
    /// processed); otherwise the calendar stays and the work still to do counts as dead work.
    mutating func release(_ booking: Booking, at now: Double) -> Bool {
        guard model.abandoned == .drop, now < booking.start else {
            if now < booking.finish { series?.count(dead: booking.finish) }
            return false
        }
        freeAt[booking.worker] = max(now, freeAt[booking.worker] - (booking.finish - booking.start))
        if model.maxQueue != nil, let index = pendingStarts.firstIndex(of: booking.start) {
            pendingStarts.remove(at: index)
        }
        series?.add(waiting: now..<booking.start, busy: booking.start..<booking.finish, sign: -1)
        series?.count(served: booking.finish, sign: -1)
        return true
    }

    /// The first time from `candidate` on at which `worker` exists; nil if it never does again.
    private func earliestStart(_ worker: Int, from candidate: Double) -> Double? {
        if worker < model.workers(at: candidate) { return candidate }
        for edge in edges where edge > candidate && worker < model.workers(at: edge) { return edge }
        return nil
    }
}

/// Per-bucket integrals of the capacity model: worker-seconds busy and request-seconds waiting
/// (divided by the width: the mean busy workers and the mean queue depth of each bucket), and the
/// requests whose service ends in each bucket (served; dead: their client had gone by then).
public struct CapacitySeries: Sendable {
    public let width: Double
    public private(set) var busy: [Double] = []
    public private(set) var waiting: [Double] = []
    public private(set) var served: [Int] = []
    public private(set) var dead: [Int] = []
    /// A run that goes on longer keeps its first buckets only (a day at one-second buckets).
    public static let maxBuckets = 1 << 17

    init(width: Double) { self.width = width }

    /// A series kept elsewhere (a shard's, read back), or the sum of several servers' series.
    public init(width: Double, busy: [Double], waiting: [Double], served: [Int], dead: [Int]) {
        self.width = width
        self.busy = busy
        self.waiting = waiting
        self.served = served
        self.dead = dead
    }

    mutating func add(waiting span: Range<Double>, busy work: Range<Double>, sign: Double) {
        Self.integrate(&waiting, span, sign, width)
        Self.integrate(&busy, work, sign, width)
    }

    mutating func count(served at: Double, sign: Int) { Self.bump(&served, at, sign, width) }

    mutating func count(dead at: Double) { Self.bump(&dead, at, 1, width) }

    private static func bump(_ buckets: inout [Int], _ time: Double, _ sign: Int, _ width: Double) {
        guard time >= 0, time.isFinite, width > 0 else { return }
        let bucket = min(Int(time / width), maxBuckets - 1)
        if buckets.count <= bucket { buckets.append(contentsOf: repeatElement(0, count: bucket + 1 - buckets.count)) }
        buckets[bucket] += sign
    }

    private static func integrate(_ buckets: inout [Double], _ span: Range<Double>, _ sign: Double, _ width: Double) {
        guard span.upperBound > span.lowerBound, span.lowerBound >= 0, width > 0 else { return }
        let first = Int(span.lowerBound / width)
        let last = min(Int(span.upperBound / width), maxBuckets - 1)
        guard first <= last else { return }
        if buckets.count <= last { buckets.append(contentsOf: repeatElement(0, count: last + 1 - buckets.count)) }
        for bucket in first...last {
            let low = max(span.lowerBound, Double(bucket) * width)
            let high = min(span.upperBound, Double(bucket + 1) * width)
            if high > low { buckets[bucket] += sign * (high - low) }
        }
    }
}
