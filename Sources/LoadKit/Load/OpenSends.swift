import Synchronization

/// Logical sends of this process that started and have not ended (the load's and the cancellation
/// experiments'): what a run that does not end was waiting for (`HangWatch`).
enum OpenSends {
    static let count = Atomic<Int>(0)

    /// Runs `send`, counted while it runs.
    static func counting<T>(_ send: () async -> T) async -> T {
        count.add(1, ordering: .relaxed)
        defer { count.subtract(1, ordering: .relaxed) }
        return await send()
    }
}
