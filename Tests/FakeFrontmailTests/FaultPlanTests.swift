import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

@Suite("fault plans: decoding, validation, determinism")
struct FaultPlanTests {
    @Test("a plan with every action kind decodes")
    func decodesEverything() throws {
        let json = """
            {"rules": [
              {"name": "brownout", "match": {"endpoint": "send", "probability": 0.3, "from": "1s", "to": "2m"},
               "action": {"type": "respond", "status": 503, "retryAfter": 1.5, "delay": {"type": "uniform", "min": "1ms", "max": "5ms"}}},
              {"match": {"attempt": {"min": 2, "max": 3}}, "action": {"type": "respond", "status": 429, "retryAfter": {"httpDateIn": "10s"}}},
              {"match": {"attempt": 1, "everyNth": 10}, "action": {"type": "commitThenDrop"}},
              {"match": {"header": {"name": "X-Chaos", "value": "1"}}, "action": {"type": "hang"}},
              {"action": {"type": "delay", "delay": {"type": "logNormal", "median": "20ms", "sigma": 0.5, "cap": "1s"}}},
              {"action": {"type": "delay", "delay": {"type": "exponential", "mean": "10ms"}}},
              {"action": {"type": "slowBody", "bytesPerSecond": 100}},
              {"action": {"type": "truncate", "keepBytes": 3}},
              {"action": {"type": "commitThenDelay", "delay": "3s"}},
              {"action": {"type": "reset"}}, {"action": {"type": "close", "delay": 0.25}},
              {"action": {"type": "respond", "status": 200, "body": "noMessageID"}},
              {"action": {"type": "respond", "status": 504, "body": {"raw": "<h1>x</h1>"}, "retryAfter": "soon"}},
              {"match": {"from": "10s", "to": "12s"}, "action": {"type": "refuse"}}
            ],
            "capacity": {"workers": 4, "serviceTime": "5ms", "mode": "shed", "shedRetryAfter": 1}}
            """
        let plan = try FaultPlan.decode(Data(json.utf8))
        #expect(plan.rules.count == 14)
        #expect(plan.rules[0].match.probability == 0.3)
        #expect(plan.rules[0].match.to == TimeSpan(seconds: 120))
        #expect(plan.rules[1].match.attempt == AttemptRange(min: 2, max: 3))
        #expect(plan.rules[8].action.delay == .fixed(TimeSpan(seconds: 3)))
        #expect(plan.capacity?.mode == .shed)
        // Round trip through its own encoding.
        let again = try FaultPlan.decode(JSONEncoder().encode(plan))
        #expect(again == plan)
    }

    @Test(
        "errors name the field and the reason",
        arguments: [
            (#"{"rules": [{"action": {"type": "respond"}}]}"#, "rules[0].action.status", "required"),
            (#"{"rules": [{"action": {"type": "respond", "status": 1000}}]}"#, "rules[0].action.status", "100-999"),
            (#"{"rules": [{"action": {"type": "respond", "status": 99}}]}"#, "rules[0].action.status", "100-999"),
            (#"{"rules": [{"action": {"type": "explode"}}]}"#, "rules[0].action.type", "not an action"),
            (#"{"rules": [{"action": {"type": "hang", "status": 500}}]}"#, "rules[0].action.status", "unknown field"),
            (
                #"{"rules": [{"match": {"probabilty": 0.5}, "action": {"type": "hang"}}]}"#,
                "rules[0].match.probabilty", "unknown field"
            ),
            (
                #"{"rules": [{"match": {"probability": 2}, "action": {"type": "hang"}}]}"#,
                "rules[0].match.probability", "between 0 and 1"
            ),
            (
                #"{"rules": [{"match": {"from": "2s", "to": "1s"}, "action": {"type": "hang"}}]}"#, "rules[0].match.to",
                "after from"
            ),
            (#"{"rules": [{"action": {"type": "delay", "delay": "fast"}}]}"#, "rules[0].action.delay", "duration"),
            (#"{"rules": [{"action": {"type": "refuse"}}]}"#, "rules[0].match", "time window"),
            (
                #"{"rules": [{"action": {"type": "slowBody", "bytesPerSecond": 0}}]}"#,
                "rules[0].action.bytesPerSecond", "more than 0 and at most 1e9"
            ),
            (#"{"capacity": {"workers": 0, "serviceTime": "1ms"}}"#, "capacity.workers", "1-100000"),
            (#"{"rules": [], "extra": 1}"#, "extra", "unknown field"),
            (#"{"rules": [{"action": {"type": "hang"}, "limit": 0}]}"#, "rules[0].limit", "1-1000000000"),
            (
                #"{"rules": [{"match": {"attempt": 0}, "action": {"type": "hang"}}]}"#, "rules[0].match.attempt",
                "from 1"
            ),
            (
                #"{"rules": [{"action": {"type": "respond", "status": 503, "body": "weird"}}]}"#,
                "rules[0].action.body", "not a body"
            ),
        ])
    func errorsNameTheField(json: String, path: String, reason: String) {
        do {
            _ = try FaultPlan.decode(Data(json.utf8))
            Issue.record("accepted")
        } catch {
            #expect(error.path == path)
            #expect(error.reason.contains(reason), "\(error.reason)")
        }
    }

    @Test(
        "durations parse in every unit",
        arguments: [
            ("250ms", 0.25), ("2s", 2.0), ("1m", 60.0), ("1.5s", 1.5), ("100us", 0.0001), ("-10s", -10.0),
            ("1h", 3600.0),
        ])
    func durations(text: String, seconds: Double) throws {
        let span = try #require(TimeSpan(parsing: text))
        #expect(abs(span.seconds - seconds) < 1e-12)
    }

    @Test(
        "a sub-second duration is the number of seconds its decimal spelling names, to the last bit",
        arguments: [("13861000us", "13.861"), ("13861ms", "13.861"), ("1500000000ns", "1.5"), ("700ms", "0.7")])
    func exactDurations(text: String, decimal: String) throws {
        let span = try #require(TimeSpan(parsing: text))
        #expect(span.seconds == Double(decimal))
    }

    @Test("bad durations are rejected", arguments: ["", "ms", "2", "2 s", "two s", "1e3s", "5d"])
    func badDurations(text: String) {
        #expect(TimeSpan(parsing: text) == nil)
    }

    @Test("the same plan and seed give the same faults whatever the arrival order")
    func deterministic() {
        let plan = FaultPlan.on(nil, FaultAction(.respond, status: 503))
        var probabilistic = plan
        probabilistic.rules[0].match.probability = 0.5
        func decisions(order: [Int]) -> [Int: Bool] {
            let core = FakeFrontmailCore(plan: probabilistic, seed: 11)
            var result: [Int: Bool] = [:]
            for index in order {
                let (_, disposition) = serve(core, Requests.send(key: "key-\(index)"))
                result[index] = response(disposition)?.status == 503
            }
            return result
        }
        let forward = decisions(order: Array(0..<200))
        let backward = decisions(order: Array((0..<200).reversed()))
        #expect(forward == backward)
        let hits = forward.values.filter { $0 }.count
        #expect(hits > 60 && hits < 140)
        let otherSeed = FakeFrontmailCore(plan: probabilistic, seed: 12)
        let differs = (0..<200).contains { index in
            (response(serve(otherSeed, Requests.send(key: "key-\(index)")).1)?.status == 503) != forward[index]
        }
        #expect(differs)
    }

    @Test("attempt matching counts per idempotency key; everyNth counts matching requests")
    func attemptsAndNth() {
        let core = FakeFrontmailCore(plan: .sequence([.respond(503), .respond(502)]))
        let statuses = (0..<3).map { _ in response(serve(core, Requests.send(key: "k")).1)?.status }
        #expect(statuses == [503, 502, 202])
        let limited = FakeFrontmailCore(
            plan: FaultPlan(rules: [FaultRule(action: .respond(503), limit: 2)]))
        let limitedStatuses = (0..<4).map { response(serve(limited, Requests.send(key: "l\($0)")).1)?.status }
        #expect(limitedStatuses == [503, 503, 202, 202])
        let nth = FakeFrontmailCore(
            plan: FaultPlan(rules: [FaultRule(match: FaultMatch(everyNth: 3), action: .respond(500))]))
        let pattern = (0..<6).map { response(serve(nth, Requests.send(key: "n\($0)")).1)?.status }
        #expect(pattern == [202, 202, 500, 202, 202, 500])
    }

    @Test("scaling multiplies every duration")
    func scaling() {
        let plan = FaultPlan(
            rules: [
                FaultRule(
                    match: FaultMatch(from: TimeSpan(seconds: 10), to: TimeSpan(seconds: 20)),
                    action: .respond(
                        429, retryAfter: .seconds(2), delay: .uniform(min: .milliseconds(100), max: .milliseconds(300)))
                )
            ], capacity: CapacityModel(workers: 2, serviceTime: .exponential(mean: .milliseconds(50), cap: nil)))
        let scaled = plan.scaled(by: 0.01)
        #expect(scaled.rules[0].match.from == TimeSpan(seconds: 0.1))
        #expect(scaled.rules[0].action.retryAfter == .seconds(0.02))
        #expect(scaled.rules[0].action.delay == .uniform(min: .milliseconds(1), max: .milliseconds(3)))
        #expect(scaled.capacity?.serviceTime == .exponential(mean: TimeSpan(seconds: 0.0005), cap: nil))
    }

    @Test("distributions sample within their bounds and around their centre")
    func distributions() {
        var random = SeededRandom(seed: 3)
        let uniform = (0..<2000).map { _ in
            Distribution.uniform(min: .milliseconds(10), max: .milliseconds(20)).sample(&random)
        }
        #expect(uniform.allSatisfy { $0 >= 0.01 && $0 <= 0.02 })
        let exponential = (0..<20_000).map { _ in
            Distribution.exponential(mean: .milliseconds(10), cap: nil).sample(&random)
        }
        let mean = exponential.reduce(0, +) / Double(exponential.count)
        #expect(abs(mean - 0.01) < 0.0005)
        let logNormal = (0..<20_000).map { _ in
            Distribution.logNormal(median: .milliseconds(40), sigma: 0.5, cap: .milliseconds(100)).sample(&random)
        }.sorted()
        #expect(abs(logNormal[logNormal.count / 2] - 0.04) < 0.002)
        #expect(logNormal.last! <= 0.1)
    }

    @Test(
        "a distribution's exact mean agrees with 200,000 of its own draws (a cap included), and the closed forms' values",
        arguments: [
            Distribution.fixed(.milliseconds(50)), .uniform(min: .milliseconds(10), max: .milliseconds(30)),
            .exponential(mean: .milliseconds(50), cap: nil),
            .exponential(mean: .milliseconds(50), cap: .milliseconds(500)),
            .exponential(mean: .milliseconds(50), cap: .milliseconds(40)),
            .logNormal(median: .milliseconds(40), sigma: 0.5, cap: nil),
            .logNormal(median: .milliseconds(40), sigma: 1.2, cap: .milliseconds(100)),
            .logNormal(median: .milliseconds(40), sigma: 0, cap: .milliseconds(30)),
        ])
    func exactMean(_ distribution: Distribution) {
        var random = SeededRandom(seed: 11)
        let draws = 200_000
        var sum = 0.0
        var squares = 0.0
        for _ in 0..<draws {
            let value = distribution.sample(&random)
            sum += value
            squares += value * value
        }
        let sample = sum / Double(draws)
        let error = ((squares / Double(draws) - sample * sample) / Double(draws)).squareRoot()
        #expect(abs(sample - distribution.mean) <= max(5 * error, 1e-12), "\(distribution): \(sample)")
    }

    @Test("the exact means by hand: a capped exponential is m(1 − e^(−c/m)), a capped log-normal sits below its cap")
    func exactMeanValues() {
        #expect(Distribution.uniform(min: .milliseconds(10), max: .milliseconds(30)).mean == 0.02)
        let capped = Distribution.exponential(mean: .milliseconds(50), cap: .milliseconds(500)).mean
        #expect(abs(capped - 0.05 * (1 - exp(-10))) < 1e-15)
        #expect(Distribution.logNormal(median: .milliseconds(40), sigma: 0, cap: .milliseconds(30)).mean == 0.03)
        let logNormal = Distribution.logNormal(median: .milliseconds(40), sigma: 3, cap: .milliseconds(100)).mean
        #expect(logNormal < 0.1 && logNormal > 0.04)
    }

    @Test("capacity: queue mode delays by the backlog; shed mode refuses beyond the workers")
    func capacity() {
        let model = CapacityModel(workers: 2, serviceTime: .fixed(.milliseconds(100)))
        let queued = FaultEngine(plan: FaultPlan(capacity: model), seed: 1)
        let waits = (0..<4).map { index -> Double in
            if case .proceed(let wait, _) = queued.admit(at: 0, identity: UInt64(index), attempt: 1) { return wait }
            return -1
        }
        #expect(waits.map { ($0 * 1000).rounded() } == [100, 100, 200, 200])
        var shedModel = model
        shedModel.mode = .shed
        let shedding = FaultEngine(plan: FaultPlan(capacity: shedModel), seed: 1)
        let outcomes = (0..<3).map { index -> String in
            if case .shed = shedding.admit(at: 0, identity: UInt64(index), attempt: 1) { return "shed" }
            return "ok"
        }
        #expect(outcomes == ["ok", "ok", "shed"])
        var limited = model
        limited.maxQueue = 1
        let bounded = FaultEngine(plan: FaultPlan(capacity: limited), seed: 1)
        let boundedOutcomes = (0..<4).map { index -> String in
            if case .shed = bounded.admit(at: 0, identity: UInt64(index), attempt: 1) { return "shed" }
            return "ok"
        }
        #expect(boundedOutcomes == ["ok", "ok", "ok", "shed"])
    }
}
