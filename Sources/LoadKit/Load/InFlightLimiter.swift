import Synchronization

/// At most `limit` sends in flight: `acquire` waits for a slot, `tryAcquire` does not.
final class InFlightLimiter: Sendable {
    private struct State {
        var available: Int
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextID: UInt64 = 0
    }

    private let state: Mutex<State>

    init(limit: Int) {
        state = Mutex(State(available: limit))
    }

    func tryAcquire() -> Bool {
        state.withLock { state in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
    }

    /// False when the Task was cancelled while waiting.
    func acquire() async -> Bool {
        if tryAcquire() { return true }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let granted = state.withLock { state -> Bool? in
                    if Task.isCancelled { return false }
                    if state.available > 0 {
                        state.available -= 1
                        return true
                    }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let granted { continuation.resume(returning: granted) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: false)
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst().continuation
        }
        waiter?.resume(returning: true)
    }
}
