import FakeFrontmail
import Foundation

/// The retry budget judged from the server's ledger alone (virtual time): the documented bucket
/// arithmetic (docs/tune.md, "Retry budgets") replayed over the attempts the server saw, one bucket
/// per client instance, and every retry the client made and every retry it did not make checked
/// against what the bucket allowed at that instant. Nothing here reads what the SDK reported, nor
/// calls its budget code.
///
/// What the server sees of each send, attempt by attempt: a complete 2xx answer is a success (a
/// first-try success adds the reward; a success after retries refunds what its last retry took,
/// where the budget refunds); any other answer a retry could follow (5xx, 429, a reset, a
/// truncated body, an attempt the client abandoned at its deadline) is a decision, made at the
/// instant the attempt ended: the next attempt arrived (a retry, which took its cost: the timeout
/// cost after an abandoned attempt) or none did (a refusal). Answers that end a send whatever the
/// bucket holds (other 4xx, a Retry-After over the limit, the last attempt the policy allows) are
/// not decisions.
///
/// Events at one instant may have run in any order in the client: a retry is a violation only
/// when no order of its instant's events leaves enough tokens for it, a refusal only when every
/// order does; the bucket is tracked as the interval of levels those orders can leave.
struct BudgetReplay {
    /// A budget's documented figures, from the scenario's setting (never from the SDK's budget).
    struct Model: Equatable {
        var capacity: Int
        var retryCost: Int
        var timeoutCost: Int
        var reward: Int
        var refunds: Bool

        /// `quota`: AWS's standard retry quota; `N%`: a reserve of 100 retries of 1,000 tokens
        /// each, and N % of 1,000 tokens per first-try success, no refunds.
        init?(_ setting: BudgetSetting) {
            switch setting {
            case .none: return nil
            case .quota: self.init(capacity: 500, retryCost: 5, timeoutCost: 10, reward: 1, refunds: true)
            case .percent(let tenths):
                self.init(capacity: 100_000, retryCost: 1_000, timeoutCost: 1_000, reward: tenths, refunds: false)
            // Its unsent attempts never reach the ledger: the replay runs only without them.
            case .unsentCharged(let free): self.init(free)
            }
        }

        init(capacity: Int, retryCost: Int, timeoutCost: Int, reward: Int, refunds: Bool) {
            self.capacity = capacity
            self.retryCost = retryCost
            self.timeoutCost = timeoutCost
            self.reward = reward
            self.refunds = refunds
        }
    }

    enum Event: Equatable {
        case credit(Int)
        case retry(cost: Int)
        case refusal(cost: Int)
    }

    /// Whether the ledger holds every charge of the bucket, in an order it can replay: a client with a
    /// budget on virtual time, whose sends are told apart (no explicit keys shared by sends), with no
    /// status reads (their retries draw on the same bucket) and no refuse window (a refused
    /// connection never reaches the ledger).
    static func applies(to scenario: Scenario) -> Bool {
        scenario.client.budget != .none && scenario.clock == .virtual && scenario.client.explicitKeys == nil
            && scenario.status == nil && RefuseWindows(scenario).isEmpty
    }

    /// Decisions checked, refusals among them, and violations.
    private(set) var decisions = 0
    private(set) var refusals = 0
    private(set) var violations = 0
    /// The first violation: its send and what the bucket allowed.
    private(set) var firstViolation: String?

    init(scenario: Scenario, ledger: LedgerIndex) {
        guard let model = Model(scenario.client.budget) else { return }
        let limit = scenario.client.maxRetryAfter.seconds * scenario.timeScale
        let instances = max(1, scenario.client.instances)
        var timelines = Array(repeating: [(at: Double, send: Int, event: Event)](), count: instances)
        for sendID in ledger.bySend.keys.sorted() {
            let events = Self.events(
                ledger.attempts(sendID: sendID), model: model, maxRetries: scenario.client.maxRetries, limit: limit)
            timelines[sendID % instances] += events.map { ($0.at, sendID, $0.event) }
        }
        for timeline in timelines { replay(timeline, model) }
    }

    /// The bucket events of one send's attempts, in attempt order.
    static func events(_ attempts: [LedgerRecord], model: Model, maxRetries: Int, limit: Double) -> [(
        at: Double, event: Event
    )] {
        var events: [(at: Double, event: Event)] = []
        var lastRetryCost: Int?
        for (index, attempt) in attempts.enumerated() {
            let answered = !attempt.clientGone && attempt.status != 0
            let whole = answered && attempt.action != .fault(.truncate) && attempt.action != .fault(.commitThenDrop)
            if whole, (200..<300).contains(attempt.status) {
                if let lastRetryCost {
                    if model.refunds { events.append((attempt.finished, .credit(lastRetryCost))) }
                } else {
                    events.append((attempt.finished, .credit(model.reward)))
                }
                break
            }
            // A whole answer that is neither retryable nor a success ends the send, as one asking
            // for more than the limit does (the ledger's Retry-After read back within a millionth).
            if whole,
                ContractAnswer.endsTheSend(
                    status: Int(attempt.status), retryAfter: Double(attempt.retryAfter), limit: limit * 1.000_001)
            {
                break
            }
            guard index < maxRetries, attempt.finished.isFinite else { break }
            let cost = attempt.clientGone ? model.timeoutCost : model.retryCost
            if index + 1 < attempts.count {
                events.append((attempt.finished, .retry(cost: cost)))
                lastRetryCost = cost
            } else {
                events.append((attempt.finished, .refusal(cost: cost)))
            }
        }
        return events
    }

    private mutating func replay(_ timeline: [(at: Double, send: Int, event: Event)], _ model: Model) {
        let sorted = timeline.sorted { $0.at < $1.at }
        var low = model.capacity
        var high = model.capacity
        var start = 0
        while start < sorted.count {
            var end = start
            while end < sorted.count, sorted[end].at == sorted[start].at { end += 1 }
            let group = sorted[start..<end]
            var credits = 0
            var debits = 0
            for item in group {
                switch item.event {
                case .credit(let amount): credits += amount
                case .retry(let cost): debits += cost
                case .refusal: break
                }
            }
            for item in group {
                switch item.event {
                case .credit: break
                case .retry(let cost):
                    decisions += 1
                    // The most this retry could have found: after every credit of its instant.
                    let most = min(model.capacity, high + credits)
                    if most < cost {
                        violate(item.send, item.at, "a retry costing \(cost) with at most \(most) tokens")
                    }
                case .refusal(let cost):
                    decisions += 1
                    refusals += 1
                    // The least it could have found: after every retry of its instant.
                    let least = max(0, low - debits)
                    if least >= cost {
                        violate(item.send, item.at, "a refusal with at least \(least) tokens for a cost of \(cost)")
                    }
                }
            }
            low = max(0, min(model.capacity, low + credits) - debits)
            high = min(model.capacity, max(0, high - debits) + credits)
            start = end
        }
    }

    private mutating func violate(_ send: Int, _ at: Double, _ what: String) {
        violations += 1
        if firstViolation == nil { firstViolation = "send \(send) at \(at) s: \(what)" }
    }

    func record(into recorder: inout MetricRecorder) {
        recorder.record(.retryExactBudgetDecisions, Double(decisions))
        recorder.record(.retryExactBudgetRefusals, Double(refusals))
        recorder.record(.retryExactBudgetViolations, Double(violations))
    }
}
