import Foundation
import Frontmail

/// What the fault plan does to one request, decided once at arrival; the core only runs it.
struct FaultSteps: Sendable {
    /// The rule that matched (nil: none) and its action, for the ledger.
    var rule: Int?
    var action: FaultAction?
    /// Seconds before the request completes: the fault's delay plus capacity queueing and service.
    var wait: Double
    var next: Next
    /// The request's place on the capacity calendar (nil without a capacity model or when shed).
    var booking: CapacityBook.Booking?

    enum Next: Sendable {
        /// Answer this without processing the request.
        case answer(Disposition)
        /// Over capacity: answer this 503 without processing (the ledger says `shed`).
        case shed(Disposition)
        /// Process the request through the emulator, then rewrite its answer. With `commitAtOnce`
        /// a send commits at arrival and only its answer waits (`commitThenDelay`).
        case process(Rewrite, commitAtOnce: Bool)
    }

    /// How a fault changes a processed answer.
    struct Rewrite: Sendable {
        /// Replaces a 2xx status.
        var status: Int?
        /// Trickles the body after the headers.
        var bytesPerSecond: Double?
        /// Cuts the body after this many bytes (-1: half of it).
        var truncateKeep: Int?
        /// Closes the connection instead of answering (the effect stays).
        var drop = false

        init(_ action: FaultAction?) {
            switch action?.kind {
            case .respond?: status = action?.status
            case .slowBody?: bytesPerSecond = action?.bytesPerSecond
            case .truncate?: truncateKeep = action?.keepBytes ?? -1
            case .commitThenDrop?: drop = true
            default: break
            }
        }

        func apply(to response: ServerResponse) -> Disposition {
            var response = response
            if let status, (200..<300).contains(response.status) { response.status = status }
            if drop { return .close }
            if let truncateKeep {
                let keep = truncateKeep >= 0 ? min(truncateKeep, response.body.count) : response.body.count / 2
                return .truncate(response, keepBytes: keep)
            }
            return .respond(response, bytesPerSecond: bytesPerSecond)
        }
    }
}

extension FaultEngine {
    /// The steps for one request: the matching rule, its sampled delay, then either a fixed answer
    /// or the capacity model's admission and the rewrite of the processed answer.
    func steps(for facts: Facts) -> FaultSteps {
        let decision = decide(facts)
        var random = decision?.random ?? SeededRandom(seed: 0)
        let action = decision?.action
        let wait = action?.delay?.sample(&random) ?? 0
        var steps = FaultSteps(rule: decision?.rule, action: action, wait: wait, next: .answer(.hang))
        if let action, !action.processes {
            steps.next = .answer(Self.fixedAnswer(action, clock: facts.clock))
            return steps
        }
        switch admit(at: facts.elapsed, identity: facts.identity, attempt: facts.attempt) {
        case .shed:
            let now = facts.clock.wallNow()
            let spec = plan.capacity?.shedRetryAfter ?? .seconds(1)
            var response = ServerResponse.error(503, "service_unavailable", "The server is over capacity.")
            response.setRetryAfter(spec.headerValue(now: now), meaning: spec.meaning(now: now))
            steps.wait = 0
            steps.next = .shed(.respond(response, bytesPerSecond: nil))
        case .proceed(let capacityWait, let booking):
            steps.wait += capacityWait
            steps.booking = booking
            steps.next = .process(FaultSteps.Rewrite(action), commitAtOnce: action?.kind == .commitThenDelay)
        }
        return steps
    }

    /// The answer of an action that does not process the request.
    static func fixedAnswer(_ action: FaultAction, clock: any FrontmailScheduler = SystemClock()) -> Disposition {
        switch action.kind {
        case .hang: return .hang
        case .reset: return .reset
        case .close, .refuse: return .close
        default: break
        }
        let status = action.status ?? 500
        var response: ServerResponse
        if let body = action.body {
            response = ServerResponse(status: status, headers: ["Content-Type": body.contentType], body: body.bytes)
        } else {
            let code = action.code ?? ServerResponse.defaultCode(for: status)
            response = .error(status, code, action.message ?? "Injected fault: \(status) \(code).")
        }
        if let retryAfter = action.retryAfter {
            let now = clock.wallNow()
            response.setRetryAfter(retryAfter.headerValue(now: now), meaning: retryAfter.meaning(now: now))
        }
        for (name, value) in action.headers ?? [:] {
            response.headers.set(name: name, value: value)
            // A Retry-After the plan spells itself (any case) means what the fake's own reading says.
            if name.lowercased() == "retry-after" {
                response.retryAfterMeant = RetryAfterMeant.reading(value, now: clock.wallNow())
            }
        }
        return .respond(response, bytesPerSecond: nil)
    }
}
