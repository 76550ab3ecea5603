import Foundation

/// Runs CPU-bound synchronous work of seconds on a thread of its own and waits for it without
/// holding a thread of Swift's cooperative pool. The pool has one thread per core (two here); a
/// judging of a large run held one for over a minute in a debug build, and what ran beside it on
/// the real clock (a client's timeout, a send past its hold, a deadline's timer task) waited that
/// long. `work` takes `input` by value and is its only user: the values cross threads once, each
/// way, and are never shared (hence the unchecked box).
func offThePool<Input, Output>(_ input: consuming Input, _ work: @escaping (consuming Input) -> Output) async -> Output
{
    let handoff = Handoff(input: input, work: work)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Handoff<Input, Output>, Never>) in
        Thread.detachNewThread {
            handoff.run()
            continuation.resume(returning: handoff)
        }
    }.take()
}

/// The values one `offThePool` call moves to its thread and back.
// @unchecked Sendable: written by one thread at a time, the continuation ordering the hand-overs.
private final class Handoff<Input, Output>: @unchecked Sendable {
    private var input: Input?
    private var output: Output?
    private let work: (consuming Input) -> Output

    init(input: consuming Input, work: @escaping (consuming Input) -> Output) {
        self.input = input
        self.work = work
    }

    func run() {
        guard let input = input.take() else { return }
        output = work(input)
    }

    func take() -> Output { output.take()! }
}
