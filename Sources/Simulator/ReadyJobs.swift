/// The jobs of a simulated run that are ready to run, and which one runs next under the run's
/// `Schedule`. Used by the executor's loop under its lock.
struct ReadyJobs {
    private let policy: Schedule.Policy
    private var random: ScheduleRandom
    private var jobs: [UnownedJob] = []
    /// fifo and random: the jobs before `head` have run.
    private var head = 0
    /// pct: each ready job's task (0: a job of no task) and its own priority when it has none.
    private var owners: [UInt64] = []
    private var ownPriorities: [Double] = []
    /// pct: every task's priority, by the runtime's task id.
    private var priorities: [UInt64: Double] = [:]
    /// pct: the steps at which the running task drops, with the low priority it drops to.
    private var changePoints: [Int: Double] = [:]
    private var step = 0
    /// pct: the task of the job running now (0: none, the loop is firing timers).
    private var running: UInt64 = 0

    init(_ schedule: Schedule) {
        policy = schedule.policy
        random = ScheduleRandom(seed: schedule.seed)
        if case .pct(let depth) = schedule.policy {
            // depth - 1 distinct steps in 1...steps; the i-th drops its task to priority i, below
            // every initial priority (they lie in [depth, depth + 1)).
            var chosen: Set<Int> = []
            while chosen.count < min(depth - 1, schedule.steps) {
                chosen.insert(1 + random.below(schedule.steps))
            }
            for (index, point) in chosen.sorted().enumerated() { changePoints[point] = Double(index + 1) }
        }
    }

    var isEmpty: Bool { head == jobs.count }

    mutating func append(_ job: UnownedJob) {
        jobs.append(job)
        guard case .pct(let depth) = policy else { return }
        // A job of no task enqueued while a task runs (the runtime's hop of a `Task.yield()`) is
        // that task's: it keeps the task's priority.
        var owner = Self.taskID(job)
        if owner == 0 { owner = running }
        let initial = Double(depth) + random.unit()
        if owner != 0, priorities[owner] == nil { priorities[owner] = initial }
        owners.append(owner)
        ownPriorities.append(initial)
    }

    /// The job to run now (nil: none is ready).
    mutating func next() -> UnownedJob? {
        guard !isEmpty else { return nil }
        switch policy {
        case .fifo:
            return takeHead()
        case .random:
            let chosen = head + random.below(jobs.count - head)
            jobs.swapAt(head, chosen)
            return takeHead()
        case .pct:
            step += 1
            var chosen = highest()
            if let low = changePoints[step] {
                setPriority(of: chosen, low)
                chosen = highest()
            }
            running = owners.remove(at: chosen)
            ownPriorities.remove(at: chosen)
            return jobs.remove(at: chosen)
        }
    }

    /// Puts the timers due at one instant in the order they fire: as set (fifo), else shuffled.
    /// No job runs while they fire.
    mutating func order<Waiter>(_ due: inout [Waiter]) {
        running = 0
        guard due.count > 1, policy != .fifo else { return }
        for index in stride(from: due.count - 1, to: 0, by: -1) {
            due.swapAt(index, random.below(index + 1))
        }
    }

    private mutating func takeHead() -> UnownedJob {
        let job = jobs[head]
        head += 1
        if head > 4096, head * 2 > jobs.count {
            jobs.removeFirst(head)
            head = 0
        }
        return job
    }

    /// pct: the ready job whose task has the highest priority (the earliest ready among equals).
    private func highest() -> Int {
        var best = 0
        var bestPriority = -Double.infinity
        for index in jobs.indices {
            let priority = priority(of: index)
            if priority > bestPriority {
                best = index
                bestPriority = priority
            }
        }
        return best
    }

    private func priority(of index: Int) -> Double {
        let owner = owners[index]
        return owner == 0 ? ownPriorities[index] : priorities[owner] ?? ownPriorities[index]
    }

    private mutating func setPriority(of index: Int, _ priority: Double) {
        let owner = owners[index]
        if owner == 0 { ownPriorities[index] = priority } else { priorities[owner] = priority }
    }

    /// The runtime's id of the task a job belongs to (0: none), as it describes the job
    /// (`UnownedJob(id: 12)`). Ids are never reused within a run, so first-seen order, not the
    /// value, decides; a job described otherwise counts as a task of its own.
    static func taskID(_ job: UnownedJob) -> UInt64 {
        let text = job.description
        guard let range = text.range(of: "id: ") else { return 0 }
        return UInt64(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
}
