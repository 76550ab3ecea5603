import Foundation

/// Cancellable sleeps on one shared Dispatch timer.
///
/// `Task.sleep` keeps a cancelled sleep's timer (and its memory) until the original deadline
/// (swiftlang/swift#60441), so every attempt that ends before its deadline would leave a timer
/// pending for the whole timeout. Here every sleep is an entry in an indexed min-heap: a cancelled
/// sleep is removed at once (memory stays flat) and its Task resumes from the cancellation handler;
/// one `DispatchSourceTimer` is re-armed only when the earliest deadline changes, so a busy client
/// pays a heap insert and removal per attempt, not a timer of its own.
// @unchecked Sendable: all mutable state is guarded by `lock`; the Dispatch source is thread-safe.
final class SleepScheduler: @unchecked Sendable {
    static let shared = SleepScheduler()

    private struct Entry {
        var deadline: UInt64
        var id: UInt64
    }

    private let lock = NSLock()
    private var heap: [Entry] = []
    private var positions: [UInt64: Int] = [:]
    private var waiters: [UInt64: UnsafeContinuation<Void, any Error>] = [:]
    /// Sleeps cancelled before their continuation was registered.
    private var cancelledEarly: Set<UInt64> = []
    private var nextID: UInt64 = 0
    private var armed: UInt64 = .max
    private let queue = DispatchQueue(label: "dev.frontmail.timers", qos: .userInitiated)
    private let source: any DispatchSourceTimer

    /// The shared instance is what the SDK uses; tests make their own.
    init() {
        source = DispatchSource.makeTimerSource(queue: queue)
        source.setEventHandler { [unowned self] in fire() }
        source.schedule(deadline: .distantFuture)
        source.resume()
    }

    /// Live sleeps (0 when nothing waits).
    var pending: Int {
        lock.lock()
        defer { lock.unlock() }
        return waiters.count
    }

    func sleep(nanoseconds: UInt64) async throws {
        let now = DispatchTime.now().uptimeNanoseconds
        let deadline = nanoseconds >= UInt64.max - now ? UInt64.max - 1 : now + nanoseconds
        let id = lock.withLock {
            nextID &+= 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                lock.lock()
                if cancelledEarly.remove(id) != nil {
                    lock.unlock()
                    continuation.resume(throwing: CancellationError())
                    return
                }
                waiters[id] = continuation
                insert(Entry(deadline: deadline, id: id))
                // Re-armed under the lock, so two sleepers cannot leave the later deadline armed.
                if deadline < armed {
                    armed = deadline
                    arm(deadline)
                }
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            let continuation = waiters.removeValue(forKey: id)
            if continuation == nil {
                cancelledEarly.insert(id)
            } else {
                remove(id)
            }
            lock.unlock()
            continuation?.resume(throwing: CancellationError())
        }
    }

    private func arm(_ deadline: UInt64) {
        source.schedule(deadline: DispatchTime(uptimeNanoseconds: deadline), leeway: .microseconds(50))
    }

    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        var due: [UnsafeContinuation<Void, any Error>] = []
        lock.lock()
        while let first = heap.first, first.deadline <= now {
            remove(first.id)
            if let continuation = waiters.removeValue(forKey: first.id) { due.append(continuation) }
        }
        armed = heap.first?.deadline ?? .max
        if armed != .max {
            arm(armed)
        } else {
            source.schedule(deadline: .distantFuture)
        }
        lock.unlock()
        for continuation in due { continuation.resume() }
    }

    // MARK: Indexed binary heap (earliest deadline first); called under `lock`.

    private func insert(_ entry: Entry) {
        heap.append(entry)
        positions[entry.id] = heap.count - 1
        siftUp(heap.count - 1)
    }

    private func remove(_ id: UInt64) {
        guard let index = positions.removeValue(forKey: id) else { return }
        let last = heap.removeLast()
        guard index < heap.count else { return }
        heap[index] = last
        positions[last.id] = index
        siftDown(siftUp(index))
    }

    @discardableResult
    private func siftUp(_ start: Int) -> Int {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].deadline < heap[parent].deadline else { break }
            swapEntries(child, parent)
            child = parent
        }
        return child
    }

    private func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count && heap[left].deadline < heap[smallest].deadline { smallest = left }
            if right < heap.count && heap[right].deadline < heap[smallest].deadline { smallest = right }
            guard smallest != parent else { return }
            swapEntries(parent, smallest)
            parent = smallest
        }
    }

    private func swapEntries(_ a: Int, _ b: Int) {
        heap.swapAt(a, b)
        positions[heap[a].id] = a
        positions[heap[b].id] = b
    }
}

/// Sleeps like `Task.sleep`, but releases its timer as soon as the Task is cancelled.
package func cancellableSleep(seconds: Double) async throws {
    guard seconds > 0 else {
        try Task.checkCancellation()
        return
    }
    let nanoseconds = seconds * 1e9
    try await SleepScheduler.shared.sleep(nanoseconds: nanoseconds >= Double(UInt64.max) ? .max : UInt64(nanoseconds))
}

/// Suspends until the calling Task is cancelled, then throws `CancellationError`. No timer.
package func waitUntilCancelled() async throws -> Never {
    let waiter = Lock<(cancelled: Bool, continuation: UnsafeContinuation<Void, Never>?)>((false, nil))
    await withTaskCancellationHandler {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let resumeNow = waiter.withLock { state -> Bool in
                if state.cancelled { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
    } onCancel: {
        let continuation = waiter.withLock { state -> UnsafeContinuation<Void, Never>? in
            state.cancelled = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
    throw CancellationError()
}
