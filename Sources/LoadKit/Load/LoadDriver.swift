import FakeFrontmail
import Foundation
import Frontmail

/// Drives logical sends in a discarding task group (a task per send in an open loop, a worker per
/// slot in a closed one), so memory stays bounded at any size and no task outlives the run. Cancelling the calling Task stops the run:
/// nothing new starts and in-flight sends are cancelled.
enum LoadDriver {
    /// The scenario's loop, closed or open, or the history's shard of it. `send` gets the shard's
    /// local id of each send (`History.number` gives its number in the unsharded run).
    /// The open loop waits on `clock` (a simulation's, or the system's).
    static func run(
        _ load: LoadSettings, history: History, clock: any FrontmailScheduler = SystemClock(),
        send: @escaping @Sendable (Int) async -> Void
    ) async {
        switch load.kind {
        case .closed: await closed(load, history: history, send: send)
        case .open: await open(load, history: history, clock: clock, send: send)
        }
    }

    /// Closed loop: `concurrency` sends in flight; each end lets the next one start. A worker task
    /// per slot runs its sends one after another (not a task per send: a task group removes a
    /// finished child by walking its list of children, and at 10,000 in flight that walk was the
    /// run's largest cost).
    static func closed(
        _ load: LoadSettings, history: History, send: @escaping @Sendable (Int) async -> Void
    ) async {
        let start = history.now()
        let end = load.duration.map { start + $0.seconds } ?? .infinity
        // A shard runs its share of the senders and of the sends.
        let shard = history.shard
        let total = shard.share(of: load.sends ?? LoadSettings.maxSends)
        await withDiscardingTaskGroup { group in
            for _ in 0..<min(shard.share(of: load.concurrency), total) {
                group.addTask {
                    while !Task.isCancelled, history.now() < end, let sendID = history.scheduleNext(limit: total) {
                        await send(sendID)
                    }
                }
            }
        }
    }

    /// Open loop: sends start on a fixed schedule per stage; a send that would exceed
    /// `maxInFlight` is counted as dropped, never delayed. Latency counts from the intended start.
    static func open(
        _ load: LoadSettings, history: History, clock: any FrontmailScheduler = SystemClock(),
        send: @escaping @Sendable (Int) async -> Void
    ) async {
        // A shard walks the whole schedule and starts the sends it owns (every N-th), so the
        // shards' intended times together are the unsharded schedule; it gets its share of the cap.
        let shard = history.shard
        let limiter = InFlightLimiter(limit: shard.share(of: load.maxInFlight))
        let start = history.now()
        await withDiscardingTaskGroup { group in
            var local = 0
            for (number, offset) in OpenSchedule(load) {
                guard shard.owns(number) else { continue }
                let intended = start + offset
                guard await clock.sleepUntil(intended, now: history.now) else { break }
                let sendID = local
                local += 1
                guard limiter.tryAcquire() else {
                    history.schedule(sendID, number: number, intended: intended, dropped: true)
                    continue
                }
                history.schedule(sendID, number: number, intended: intended)
                group.addTask {
                    await send(sendID)
                    limiter.release()
                }
            }
        }
    }
}

/// The open loop's schedule: each send's number and its intended start, in seconds from the load's
/// start: stage by stage, `1 / rate` apart, up to the load's `sends`.
struct OpenSchedule: Sequence, IteratorProtocol {
    private let stages: [LoadSettings.Stage]
    private let total: Int
    private var stage = 0
    private var index = 0
    private var number = 0
    private var stageStart = 0.0

    init(_ load: LoadSettings) {
        stages =
            load.stages.isEmpty
            ? [LoadSettings.Stage(rate: load.rate, duration: load.duration ?? TimeSpan(seconds: 1))] : load.stages
        total = load.sends ?? LoadSettings.maxSends
    }

    mutating func next() -> (number: Int, offset: Double)? {
        while number < total, stage < stages.count {
            let current = stages[stage]
            let offset = stageStart + Double(index) * (1 / current.rate)
            guard offset < stageStart + current.duration.seconds else {
                stageStart += current.duration.seconds
                stage += 1
                index = 0
                continue
            }
            defer {
                number += 1
                index += 1
            }
            return (number, offset)
        }
        return nil
    }
}

extension FrontmailScheduler {
    /// Sleeps until `now()` reaches `instant` (an open loop's next arrival; at most the longest
    /// span an input may give at a time). False when the task was cancelled: the loop stops.
    func sleepUntil(_ instant: Double, now: () -> Double) async -> Bool {
        let wait = instant - now()
        if wait > 0 {
            do {
                try await sleep(seconds: min(wait, InputError.longestSpan))
            } catch {
                return false
            }
        }
        return !Task.isCancelled
    }
}
