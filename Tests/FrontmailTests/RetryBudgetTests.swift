import Foundation
import FrontmailMutants
import Testing

@testable import Frontmail

@Suite("send: the client-wide retry budget (RetryPolicy.budget)")
struct RetryBudgetTests {
    /// A client with `budget` whose every send sees `steps` in order (the last repeats).
    private static func client(
        _ transport: ScriptedTransport, budget: RetryBudget, maxRetries: Int = 3, clock: ManualClock = ManualClock(),
        timeout: TimeInterval = 15, recorder: EventRecorder? = nil, defect: BrokenBucket? = nil
    ) throws -> Frontmail {
        var environment = SendEnvironment(clock: clock, entropy: { 0 }, observer: recorder)
        if let defect { environment.retryTokens = { defect.tokens($0) } }
        return try Frontmail(
            publicKey: TestClient.key, apiURL: TestClient.base,
            retry: RetryPolicy(maxRetries: maxRetries, baseDelay: 0, maxDelay: 0, budget: budget), timeout: timeout,
            transport: transport, environment: environment)
    }

    @Test("the default policy has no budget, as the guide documents it")
    func defaultHasNoBudget() throws {
        #expect(RetryPolicy.default.budget == nil)
        #expect(RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10) == .default)
        let client = try Frontmail(publicKey: TestClient.key)
        #expect(client.retryBucket == nil)
    }

    @Test(
        "the standard quota, by hand: 503, 503, 202 leaves 495; a first-try success 496; a timeout retry costs 10 and is refunded"
    )
    func standardQuotaSequence() async throws {
        let clock = ManualClock()
        let transport = ScriptedTransport(
            [
                .respond(status: 503), .respond(status: 503), TestClient.accepted,  // send 1
                TestClient.accepted,  // send 2
                .hang(advancing: 1), TestClient.accepted,  // send 3
                .respond(status: 500), .respond(status: 500), .respond(status: 500), .respond(status: 500),  // send 4
            ], clock: clock)
        let client = try Self.client(transport, budget: .standard, clock: clock, timeout: 1)
        let bucket = try #require(client.retryBucket)
        #expect(bucket.level == 500)
        _ = try await client.send(templateID: "t")
        // Two retries took 5 each (490); the success after them refunds the last one's 5.
        #expect(bucket.level == 495)
        _ = try await client.send(templateID: "t")
        #expect(bucket.level == 496)
        _ = try await client.send(templateID: "t")
        // The retry after the timeout took 10 (486); its success gave the 10 back.
        #expect(bucket.level == 496)
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(error?.status == 500)
        // Three retries at 5 each and no success: nothing comes back.
        #expect(bucket.level == 481)
        #expect(transport.count == 10)
    }

    @Test("a bucket too low for a retry refuses it: the send throws its attempt's error and says why")
    func emptyBucketRefusesRetries() async throws {
        let recorder = EventRecorder()
        let transport = ScriptedTransport([.respond(status: 503)])
        let budget = RetryBudget(
            capacity: 12, retryCost: 5, timeoutRetryCost: 10, successReward: 1, refundsRetriedSuccess: true)
        let client = try Self.client(transport, budget: budget, maxRetries: 10, recorder: recorder)
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(error?.status == 503)
        // 12 → 7 → 2: two retries, then 2 < 5.
        #expect(transport.count == 3)
        #expect(client.retryBucket?.level == 2)
        let refused = recorder.all.compactMap { event -> [Int]? in
            if case .retryRefused(_, _, let after, let level, let cost) = event { return [after, level, cost] }
            return nil
        }
        #expect(refused == [[2, 2, 5]])
        // The next failing send makes one attempt only.
        _ = await frontmailError { try await client.send(templateID: "t") }
        #expect(transport.count == 4)
    }

    @Test(
        "attempts that never reached the server: free by default (gRFC A6), charged when the budget says so (AWS); a lost connection or a timeout costs either way"
    )
    func unsentAttempts() async throws {
        let refused = ScriptedTransport.Step.fail(URLError(.cannotConnectToHost))
        let steps: [ScriptedTransport.Step] = [
            refused, .fail(URLError(.cannotFindHost)), .fail(URLError(.notConnectedToInternet)), TestClient.accepted,
            // Sent, and maybe processed: a lost connection, then a 503.
            .fail(URLError(.networkConnectionLost)), .respond(status: 503), TestClient.accepted,
        ]
        let free = RetryBudget(
            capacity: 100, retryCost: 5, timeoutRetryCost: 10, successReward: 1, refundsRetriedSuccess: false)
        #expect(!free.chargesUnsentAttempts && !RetryBudget.standard.chargesUnsentAttempts)
        #expect(!RetryBudget.fraction(0.2).chargesUnsentAttempts)
        var budget = free
        budget.chargesUnsentAttempts = true
        let charged = try Self.client(ScriptedTransport(steps), budget: budget)
        _ = try await charged.send(templateID: "a")
        #expect(charged.retryBucket?.level == 85)
        _ = try await charged.send(templateID: "b")
        #expect(charged.retryBucket?.level == 75)

        let transport = ScriptedTransport(steps)
        let sparing = try Self.client(transport, budget: free)
        _ = try await sparing.send(templateID: "a")
        // Three retries after refused, unresolved and offline attempts took nothing.
        #expect(sparing.retryBucket?.level == 100)
        _ = try await sparing.send(templateID: "b")
        #expect(sparing.retryBucket?.level == 90)
        #expect(transport.count == 7)

        // An empty bucket still retries a refused connection for free, up to maxRetries.
        var empty = free
        empty.capacity = 0
        let refusing = ScriptedTransport([refused])
        let client = try Self.client(refusing, budget: empty)
        _ = await frontmailError { try await client.send(templateID: "c") }
        #expect(refusing.count == 4)
        // A timeout is not known to be unsent: it costs 10.
        let error = FrontmailError(code: .timeout, message: "t", underlyingError: URLError(.timedOut))
        #expect(RetryBucket(free).cost(after: error) == 10)
        let unsent = FrontmailError(code: .networkError, message: "r", underlyingError: URLError(.cannotConnectToHost))
        #expect(unsent.neverReachedServer && !error.neverReachedServer)
        #expect(RetryBucket(free).cost(after: unsent) == 0 && RetryBucket(budget).cost(after: unsent) == 5)
    }

    @Test("the bucket is shared by every send of one client, and not by another client")
    func sharedPerClient() async throws {
        let budget = RetryBudget(
            capacity: 5, retryCost: 5, timeoutRetryCost: 5, successReward: 1, refundsRetriedSuccess: false)
        let failing = ScriptedTransport([.respond(status: 503)])
        let one = try Self.client(failing, budget: budget)
        _ = await frontmailError { try await one.send(templateID: "a") }
        _ = await frontmailError { try await one.send(templateID: "b") }
        // The first send's one retry spent the bucket; the second send retried nothing.
        #expect(failing.count == 3)
        let other = ScriptedTransport([.respond(status: 503)])
        let two = try Self.client(other, budget: budget)
        _ = await frontmailError { try await two.send(templateID: "a") }
        #expect(other.count == 2)
    }

    @Test("a 20 % budget: one retry per five first-try successes once the reserve is spent")
    func fractionBudget() async throws {
        let budget = RetryBudget.fraction(0.2, burst: 1)
        #expect(
            budget
                == RetryBudget(
                    capacity: 1_000, retryCost: 1_000, timeoutRetryCost: 1_000, successReward: 200,
                    refundsRetriedSuccess: false))
        let transport = ScriptedTransport(
            [
                .respond(status: 503), TestClient.accepted,  // retried: the reserve is spent, no refund
                .respond(status: 503),  // refused: one attempt
                TestClient.accepted, TestClient.accepted, TestClient.accepted, TestClient.accepted,
                TestClient.accepted,  // five successes: 1,000 again
                .respond(status: 503), TestClient.accepted,  // retried
            ])
        let client = try Self.client(transport, budget: budget)
        let bucket = try #require(client.retryBucket)
        _ = try await client.send(templateID: "t")
        #expect(bucket.level == 0)
        let refused = await frontmailError { try await client.send(templateID: "t") }
        #expect(refused?.status == 503)
        #expect(transport.count == 3)
        for _ in 0..<5 { _ = try await client.send(templateID: "t") }
        #expect(bucket.level == 1_000)
        _ = try await client.send(templateID: "t")
        #expect(transport.count == 10)
        #expect(bucket.level == 0)
    }

    @Test("the bucket never passes its capacity")
    func capped() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try Self.client(transport, budget: .standard)
        for _ in 0..<3 { _ = try await client.send(templateID: "t") }
        #expect(client.retryBucket?.level == 500)
    }

    @Test("a Retry-After longer than maxRetryAfter throws before the budget is charged")
    func longRetryAfterChargesNothing() async throws {
        let transport = ScriptedTransport([
            .respond(status: 429, headers: ["Retry-After": "120"], body: TestClient.errorBody("rate_limited"))
        ])
        let client = try Self.client(transport, budget: .standard)
        let error = await frontmailError { try await client.send(templateID: "t") }
        #expect(error?.code == .rateLimited)
        #expect(client.retryBucket?.level == 500)
    }

    @Test("figures out of range are clamped: negative counts are 0, a NaN fraction is 0 %")
    func clamped() {
        let budget = RetryBudget(
            capacity: -1, retryCost: -5, timeoutRetryCost: -1, successReward: -1, refundsRetriedSuccess: true)
        #expect(budget.capacity == 0 && budget.retryCost == 0 && budget.timeoutRetryCost == 0)
        #expect(RetryBudget.fraction(.nan).successReward == 0)
        #expect(RetryBudget.fraction(0.2, burst: Int.max).capacity == Int.max / 1_000 * 1_000)
        #expect(RetryBudget.fraction(-3).successReward == 0)
    }

    @Test(
        "a bucket broken on purpose, handed through the bucket seam, behaves as its name says (the suite's broken clients rest on it)",
        arguments: [BrokenBucket.neverCharged, .neverRefilled])
    func defects(defect: BrokenBucket) async throws {
        let budget = RetryBudget(
            capacity: 5, retryCost: 5, timeoutRetryCost: 5, successReward: 5, refundsRetriedSuccess: false)
        let transport = ScriptedTransport([
            .respond(status: 503), TestClient.accepted, TestClient.accepted,
            .respond(status: 503), TestClient.accepted,
        ])
        let client = try Self.client(transport, budget: budget, defect: defect)
        _ = try await client.send(templateID: "t")  // one retry: spends the 5 (unless never charged)
        _ = try await client.send(templateID: "t")  // a first-try success: 5 back (unless never refilled)
        let last = await frontmailError { try await client.send(templateID: "t") }
        switch defect {
        case .neverCharged:
            #expect(last == nil)
            #expect(client.retryBucket?.level == 5)
        case .neverRefilled:
            #expect(last?.status == 503)
            #expect(client.retryBucket?.level == 0)
        default:
            Issue.record("not a case of this test: \(defect)")
        }
    }

    @Test(
        "the other broken buckets: no refund, a charged first attempt, every success rewarded, a cheap timeout, one shared bucket"
    )
    func moreDefects() {
        let budget = RetryBudget(
            capacity: 100, retryCost: 5, timeoutRetryCost: 10, successReward: 1, refundsRetriedSuccess: true)
        let timeout = FrontmailError.client(.timeout, "t")
        let correct = RetryBucket(budget)
        #expect(correct.acquire(after: timeout) == 10)
        correct.succeeded(lastRetryCost: 10)
        correct.firstAttempt()
        #expect(correct.level == 100)
        let noRefund = BrokenBucket.neverRefunds.tokens(budget)
        _ = noRefund.acquire(after: .client(.networkError, "n"))
        noRefund.succeeded(lastRetryCost: 5)
        #expect(noRefund.level == 95)
        let chargesFirst = BrokenBucket.chargesFirstAttempt.tokens(budget)
        chargesFirst.firstAttempt()
        #expect(chargesFirst.level == 95)
        let rewardsAll = BrokenBucket.rewardsEverySuccess.tokens(budget)
        _ = rewardsAll.acquire(after: .client(.networkError, "n"))
        _ = rewardsAll.acquire(after: .client(.networkError, "n"))
        rewardsAll.succeeded(lastRetryCost: 5)
        #expect(rewardsAll.level == 96)
        #expect(BrokenBucket.timeoutAtRetryCost.tokens(budget).acquire(after: timeout) == 5)
        let odd = RetryBudget(
            capacity: 7, retryCost: 3, timeoutRetryCost: 3, successReward: 0, refundsRetriedSuccess: false)
        #expect(BrokenBucket.sharedStatic.tokens(odd) === BrokenBucket.sharedStatic.tokens(odd))
    }

    @Test("each client keeps a bucket of its own, unless its environment hands it another")
    func bucketPerClient() throws {
        let budget = RetryBudget(
            capacity: 7, retryCost: 3, timeoutRetryCost: 3, successReward: 0, refundsRetriedSuccess: false)
        let first = try Self.client(ScriptedTransport([TestClient.accepted]), budget: budget)
        let second = try Self.client(ScriptedTransport([TestClient.accepted]), budget: budget)
        #expect(first.retryBucket != nil && first.retryBucket !== second.retryBucket)
        #expect(first.retryBucket is RetryBucket)
        let shared = RetryBucket(budget)
        var environment = SendEnvironment(clock: ManualClock(), entropy: { 0 })
        environment.retryTokens = { _ in shared }
        let handed = try Frontmail(
            publicKey: TestClient.key, apiURL: TestClient.base,
            retry: RetryPolicy(maxRetries: 1, baseDelay: 0, maxDelay: 0, budget: budget),
            transport: ScriptedTransport([TestClient.accepted]), environment: environment)
        #expect(handed.retryBucket === shared)
    }
}
