import Testing

@testable import Frontmail

@Suite("URLSessionTransport's exchange: resumed exactly once, no task left running for a cancelled caller")
struct ExchangeStateMachineTests {
    typealias Machine = ExchangeStateMachine<String, Int>

    enum Event: CaseIterable {
        /// The continuation exists (`withUnsafeThrowingContinuation`'s body).
        case attach
        /// The transport's queue made the task (only when the exchange still waits, as the transport does).
        case makeTask
        /// The caller's Task was cancelled (`onCancel`).
        case cancel
        /// URLSession called the completion handler (only for a task that was resumed).
        case complete
    }

    /// What the transport would have done, replayed on the machine in one order of events.
    struct Replay {
        var resumes: [String] = []
        var taskMade = false
        var taskResumed = false
        var taskCancelled = false
        var attached = false

        init(_ events: [Event]) {
            var machine = Machine()
            for event in events {
                switch event {
                case .attach:
                    attached = machine.attach("caller")
                    if !attached { resumes.append("cancelled at once") }
                case .makeTask:
                    guard machine.isWaiting else { continue }
                    taskMade = true
                    switch machine.started(1) {
                    case .resume: taskResumed = true
                    case .cancel: taskCancelled = true
                    }
                case .cancel:
                    switch machine.cancel() {
                    case .none: break
                    case .resume(let caller): resumes.append("\(caller) cancelled")
                    case .resumeAndCancel(let caller, let task):
                        #expect(task == 1)
                        resumes.append("\(caller) cancelled")
                        taskCancelled = true
                    }
                case .complete:
                    guard taskResumed else { continue }
                    if let caller = machine.complete() { resumes.append("\(caller) answered") }
                }
            }
        }
    }

    static func orders(_ events: [Event]) -> [[Event]] {
        guard events.count > 1 else { return [events] }
        return events.indices.flatMap { index -> [[Event]] in
            var rest = events
            let first = rest.remove(at: index)
            return orders(rest).map { [first] + $0 }
        }
    }

    @Test("every order of attach, task made, cancel and completion keeps the rules")
    func everyOrder() {
        for order in Self.orders(Event.allCases) {
            let replay = Replay(order)
            let cancelIndex = order.firstIndex(of: .cancel)!
            // The caller is resumed exactly once: all four events happened.
            #expect(replay.resumes.count == 1, "\(order): \(replay.resumes)")
            // A cancel before the answer wins; an answer before the cancel is what the caller gets.
            let answeredFirst = replay.resumes.first == "caller answered"
            if answeredFirst {
                #expect(order.firstIndex(of: .complete)! < cancelIndex, "\(order)")
            }
            // A task made for a cancelled caller is never started; a running one is cancelled.
            if replay.taskMade && !answeredFirst { #expect(replay.taskCancelled, "\(order)") }
            if replay.taskCancelled { #expect(!answeredFirst, "\(order)") }
            // Cancelled before the continuation existed: no task is ever made.
            if cancelIndex < order.firstIndex(of: .attach)! {
                #expect(!replay.attached && !replay.taskMade, "\(order)")
            }
        }
    }

    @Test("the plain path: attach, start, complete resumes once; a late cancel does nothing")
    func plainPath() {
        var machine = Machine()
        let attached = machine.attach("c")
        #expect(attached)
        #expect(machine.isWaiting)
        let start = machine.started(7)
        #expect(start == .resume)
        #expect(!machine.isWaiting)
        let answer = machine.complete()
        #expect(answer == "c")
        let secondAnswer = machine.complete()
        #expect(secondAnswer == nil)
        guard case .none = machine.cancel() else {
            Issue.record("a cancel after the answer acted")
            return
        }
    }

    @Test("cancelled while waiting: resumed at once, and the task made afterwards is cancelled, not started")
    func cancelWhileWaiting() {
        var machine = Machine()
        let attached = machine.attach("c")
        #expect(attached)
        guard case .resume(let caller) = machine.cancel() else {
            Issue.record("not resumed")
            return
        }
        #expect(caller == "c")
        let start = machine.started(7)
        #expect(start == .cancel)
        let lateAnswer = machine.complete()
        #expect(lateAnswer == nil)
    }

    @Test("cancelled while running: resumed and its task cancelled; the completion that follows is dropped")
    func cancelWhileRunning() {
        var machine = Machine()
        let attached = machine.attach("c")
        #expect(attached)
        let start = machine.started(7)
        #expect(start == .resume)
        guard case .resumeAndCancel(let caller, let task) = machine.cancel() else {
            Issue.record("not resumed and cancelled")
            return
        }
        #expect(caller == "c" && task == 7)
        let lateAnswer = machine.complete()
        #expect(lateAnswer == nil)
    }
}
