import Dispatch

/// A task executor with a thread of its own: a serial dispatch queue, which always gets a thread,
/// outside Swift's cooperative pool. A task that prefers it (`withTaskExecutorPreference`) runs its
/// nonisolated code there, child tasks included (not `Task {}`, which starts on the global pool).
/// For CPU-bound work of seconds that must not hold one of the pool's threads (one per core, two
/// here), such as a fuzz test's loop beside tests whose clients wait on the real clock: it then
/// competes for the cores under the operating system's fair scheduling, not for the pool.
public final class DedicatedExecutor: TaskExecutor {
    private let queue: DispatchQueue

    private static let labelKey = DispatchSpecificKey<String>()

    public init(label: String) {
        queue = DispatchQueue(label: label)
        queue.setSpecific(key: Self.labelKey, value: label)
    }

    /// The label of the dedicated executor the caller runs on; nil off every one of them.
    public static var currentLabel: String? { DispatchQueue.getSpecific(key: labelKey) }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
