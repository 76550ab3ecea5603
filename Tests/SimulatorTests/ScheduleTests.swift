import Foundation
import Synchronization
import Testing

@testable import Simulator

/// The schedules: fifo keeps today's order; random and pct explore other orders of the same
/// instant from a seed, reproducibly, and find an ordering bug fifo never shows.
@Suite("simulation: explored schedules (fifo, random, pct)")
struct ScheduleTests {
    final class Trace: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// Three tasks that each take four steps at time 0, and three timers set for one instant.
    static func interleavings(_ clock: VirtualClock) async -> [String] {
        let trace = Trace()
        await withTaskGroup(of: Void.self) { group in
            for name in ["a", "b", "c"] {
                group.addTask {
                    for step in 0..<4 {
                        trace.add("\(name)\(step)")
                        await Task.yield()
                    }
                }
            }
            for name in ["x", "y", "z"] {
                group.addTask {
                    try? await clock.sleep(seconds: 1)
                    trace.add(name)
                }
            }
        }
        return trace.all
    }

    static func run(_ schedule: Schedule) async throws -> [String] {
        try await Simulation.run(schedule: schedule) { await interleavings($0) }.value
    }

    @Test("fifo runs jobs as they became ready and fires same-instant timers in the order they were set")
    func fifoOrder() async throws {
        let trace = try await Self.run(.fifo)
        #expect(trace == ["a0", "b0", "c0", "a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3", "x", "y", "z"])
        // fifo draws nothing: its seed changes nothing.
        #expect(try await Self.run(Schedule(policy: .fifo, seed: 99)) == trace)
    }

    @Test("random and pct give the same order for the same seed, other orders for other seeds")
    func seededAndReproducible() async throws {
        for policy in [Schedule.Policy.random, .pct(depth: 3)] {
            var distinct: Set<[String]> = []
            for seed in UInt64(1)...12 {
                let schedule = Schedule(policy: policy, seed: seed, steps: 16)
                let first = try await Self.run(schedule)
                #expect(try await Self.run(schedule) == first, "\(schedule)")
                // Every schedule runs every step, each task's steps in its own order.
                #expect(first.count == 15)
                for name in ["a", "b", "c"] {
                    #expect(first.filter { $0.hasPrefix(name) } == (0..<4).map { "\(name)\($0)" })
                }
                // Virtual time still orders what is not at one instant.
                #expect(Set(first.suffix(3)) == ["x", "y", "z"])
                distinct.insert(first)
            }
            #expect(distinct.count >= 6, "\(policy): \(distinct.count) orders in 12 seeds")
        }
    }

    @Test("random reorders timers due at one instant")
    func randomTimers() async throws {
        var orders: Set<[String]> = []
        for seed in UInt64(1)...12 {
            orders.insert(Array(try await Self.run(Schedule(policy: .random, seed: seed)).suffix(3)))
        }
        #expect(orders.count >= 3)
    }

    @Test("pct without change points runs the highest task to its end before the next: it knows tasks, not only jobs")
    func pctKeepsTasks() async throws {
        for seed in UInt64(1)...20 {
            let trace = try await Self.run(Schedule(policy: .pct(depth: 1), seed: seed))
            let tasks = trace.prefix(12).map { String($0.prefix(1)) }
            let runs = zip(tasks, tasks.dropFirst()).filter { $0 != $1 }.count + 1
            #expect(runs == 3, "seed \(seed): \(trace)")
        }
    }

    // MARK: An ordering bug fifo never shows

    /// A cache filled by whichever of two tasks finds it empty: A and B wake at the same instant;
    /// B takes one more hop (a lookup) before it looks. `broken` checks, awaits, then acts (a
    /// check-then-act across an `await`); the right one acts in the step it checked. Returns how
    /// many times the cache was filled (right: 1).
    static func cacheProgram(_ clock: VirtualClock, broken: Bool) async -> Int {
        let cache = Cache()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                try? await clock.sleep(seconds: 1)
                await cache.fill("A", broken: broken)
            }
            group.addTask {
                try? await clock.sleep(seconds: 1)
                await Task.yield()  // the lookup
                await cache.fill("B", broken: broken)
            }
        }
        return cache.fills.withLock { $0 }
    }

    final class Cache: Sendable {
        let value = Mutex<String?>(nil)
        let fills = Mutex(0)

        func fill(_ name: String, broken: Bool) async {
            if broken {
                guard value.withLock({ $0 }) == nil else { return }
                await Task.yield()  // computing the value
                value.withLock { $0 = name }
                fills.withLock { $0 += 1 }
            } else {
                let claimed = value.withLock { value -> Bool in
                    guard value == nil else { return false }
                    value = name
                    return true
                }
                guard claimed else { return }
                await Task.yield()
                fills.withLock { $0 += 1 }
            }
        }
    }

    /// The first seed of 1...200 whose schedule fills the cache twice (nil: none).
    static func firstDoubleFill(_ policy: Schedule.Policy, broken: Bool) async throws -> UInt64? {
        for seed in UInt64(1)...200 {
            let schedule = Schedule(policy: policy, seed: seed, steps: 12)
            let fills = try await Simulation.run(schedule: schedule) { await cacheProgram($0, broken: broken) }.value
            if fills != 1 { return seed }
        }
        return nil
    }

    @Test("a check-then-act across an await: fifo never shows it, random and pct find it within 10 seeds")
    func plantedOrderingBug() async throws {
        #expect(try await Self.firstDoubleFill(.fifo, broken: true) == nil)
        let random = try #require(try await Self.firstDoubleFill(.random, broken: true))
        #expect(random <= 10)
        let pct = try #require(try await Self.firstDoubleFill(.pct(depth: 2), broken: true))
        #expect(pct <= 10)
    }

    @Test("the same cache filled in the step that checked it passes under every schedule and seed")
    func rightCachePasses() async throws {
        for policy in [Schedule.Policy.fifo, .random, .pct(depth: 2), .pct(depth: 3)] {
            #expect(try await Self.firstDoubleFill(policy, broken: false) == nil, "\(policy)")
        }
    }

    // MARK: The spelling

    @Test("schedule names parse and spell back; anything else is refused")
    func parsing() {
        for policy in [Schedule.Policy.fifo, .random, .pct(depth: 1), .pct(depth: 3), .pct(depth: 20)] {
            #expect(Schedule.policy(parsing: Schedule.spelled(policy)) == policy)
        }
        #expect(Schedule.policy(parsing: "pct") == .pct(depth: Schedule.defaultDepth))
        for bad in ["", "FIFO", "pct:", "pct:0", "pct:21", "pct:03", "pct:+3", "pct:-1", "pct:3 ", "random2", "pct:１"] {
            #expect(Schedule.policy(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test("fuzz: random text never parses to a depth out of range and never traps")
    func parsingFuzz() {
        var random = ScheduleRandom(seed: 42)
        let alphabet = Array("pct:fiorandm0123456789-+ .１")
        for _ in 0..<20_000 {
            let length = random.below(9)
            let text = String((0..<length).map { _ in alphabet[random.below(alphabet.count)] })
            guard let policy = Schedule.policy(parsing: text) else { continue }
            if case .pct(let depth) = policy { #expect(Schedule.depths.contains(depth)) }
            #expect(Schedule.spelled(policy) == text || text == "pct")
        }
        #expect(Schedule(policy: .pct(depth: 3), steps: 0).steps == 1)
        #expect(Schedule(policy: .pct(depth: 3), steps: .max).steps == Schedule.stepCounts.upperBound)
    }
}
