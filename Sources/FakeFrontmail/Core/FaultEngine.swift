import Foundation
import Frontmail
import Synchronization

/// Applies a `FaultPlan`: which rule matches a request, what it samples, and the capacity model.
final class FaultEngine: Sendable {
    let plan: FaultPlan
    let seed: UInt64
    /// Refuse windows (seconds since start), from the plan's refuse rules.
    let refuseWindows: [(from: Double, to: Double)]

    private struct State {
        var nthCounters: [Int]
        /// How often each rule has applied (for `limit`).
        var applied: [Int]
        /// The capacity model's calendar (nil without a capacity model).
        var book: CapacityBook?
    }

    private let state: Mutex<State>

    /// `seriesWidth`: the bucket width (seconds) of the capacity model's busy and queue series.
    init(plan: FaultPlan, seed: UInt64, seriesWidth: Double? = nil) {
        self.plan = plan
        self.seed = seed
        self.refuseWindows = plan.rules.filter { $0.action.kind == .refuse }.map {
            ($0.match.from?.seconds ?? 0, $0.match.to?.seconds ?? .infinity)
        }
        self.state = Mutex(
            State(
                nthCounters: Array(repeating: 0, count: plan.rules.count),
                applied: Array(repeating: 0, count: plan.rules.count),
                book: plan.capacity.map { CapacityBook(model: $0, seriesWidth: seriesWidth) }))
    }

    func isRefusing(at elapsed: Double) -> Bool {
        refuseWindows.contains { elapsed >= $0.from && elapsed < $0.to }
    }

    struct Facts {
        var endpoint: Endpoint
        var attempt: UInt32
        /// Stable per logical request: the key's hash, or the request index without a key.
        var identity: UInt64
        var elapsed: Double
        var headers: FrontmailHTTPHeaders
        /// The server's clock (HTTP-date Retry-After values count from its wall time at arrival;
        /// read only when one is written).
        var clock: any FrontmailScheduler = SystemClock()
    }

    /// The first rule that matches, with a generator for its samples.
    func decide(_ facts: Facts) -> (rule: Int, action: FaultAction, random: SeededRandom)? {
        for (index, rule) in plan.rules.enumerated() where rule.action.kind != .refuse {
            let match = rule.match
            if let endpoint = match.endpoint, endpoint != facts.endpoint { continue }
            if let attempt = match.attempt, !attempt.contains(Int(facts.attempt)) { continue }
            if let from = match.from, facts.elapsed < from.seconds { continue }
            if let to = match.to, facts.elapsed >= to.seconds { continue }
            if let header = match.header, !header.matches(facts.headers) { continue }
            var random = SeededRandom(seed: seed, mixing: facts.identity, UInt64(facts.attempt), UInt64(index))
            if let probability = match.probability, random.unit() >= probability { continue }
            if match.everyNth != nil || rule.limit != nil {
                let applies = state.withLock { state -> Bool in
                    if let nth = match.everyNth {
                        state.nthCounters[index] += 1
                        if state.nthCounters[index] % nth != 0 { return false }
                    }
                    if let limit = rule.limit {
                        guard state.applied[index] < limit else { return false }
                        state.applied[index] += 1
                    }
                    return true
                }
                if !applies { continue }
            }
            return (index, rule.action, random)
        }
        return nil
    }

    enum Admission {
        /// Processing starts after `wait` (queueing plus service time); `booking` is its place on
        /// the capacity calendar (nil without a capacity model).
        case proceed(wait: Double, booking: CapacityBook.Booking?)
        case shed
    }

    /// Books a worker for a request arriving at `elapsed` (virtual time, no threads involved).
    func admit(at elapsed: Double, identity: UInt64, attempt: UInt32) -> Admission {
        guard let capacity = plan.capacity else { return .proceed(wait: 0, booking: nil) }
        var random = SeededRandom(seed: seed ^ 0xC0FF_EE00, mixing: identity, UInt64(attempt))
        let service = capacity.serviceTime.sample(&random)
        return state.withLock { state -> Admission in
            switch state.book?.admit(at: elapsed, service: service) {
            case .proceed(let booking)?: return .proceed(wait: booking.finish - elapsed, booking: booking)
            case .shed?, nil: return .shed
            }
        }
    }

    /// The client of a booked request left at `now`: true when the plan drops it unprocessed.
    func release(_ booking: CapacityBook.Booking, at now: Double) -> Bool {
        state.withLock { $0.book?.release(booking, at: now) ?? false }
    }

    /// The capacity model's series so far (nil without a capacity model or a series width).
    var capacitySeries: CapacitySeries? { state.withLock { $0.book?.series } }
}
