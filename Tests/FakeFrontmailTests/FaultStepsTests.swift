import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

/// The fault engine's steps for one request, as a pure decision (no emulator, no front end).
@Suite("fault steps: what the plan does to one request")
struct FaultStepsTests {
    static func steps(_ plan: String, attempt: UInt32 = 1, elapsed: Double = 0) throws -> FaultSteps {
        let engine = FaultEngine(plan: try FaultPlan.decode(Data(plan.utf8)), seed: 1)
        return engine.steps(
            for: FaultEngine.Facts(endpoint: .send, attempt: attempt, identity: 9, elapsed: elapsed, headers: [:]))
    }

    @Test("no rule: processed as is, at once")
    func noRule() throws {
        let steps = try Self.steps(#"{"rules": []}"#)
        #expect(steps.rule == nil && steps.wait == 0)
        guard case .process(let rewrite, let commitAtOnce) = steps.next else {
            Issue.record("not processed: \(steps.next)")
            return
        }
        #expect(!commitAtOnce && rewrite.status == nil && !rewrite.drop && rewrite.truncateKeep == nil)
    }

    @Test("an answer that does not process the request is fixed at arrival, with its delay")
    func fixedAnswer() throws {
        let steps = try Self.steps(
            #"{"rules": [{"match": {"attempt": 2}, "action": {"type": "hang"}}, {"action": {"type": "respond", "status": 503, "retryAfter": 2, "delay": "50ms"}}]}"#
        )
        #expect(steps.rule == 1)
        #expect(abs(steps.wait - 0.05) < 1e-12)
        guard case .answer(.respond(let response, nil)) = steps.next else {
            Issue.record("not a fixed answer: \(steps.next)")
            return
        }
        #expect(response.status == 503 && response.headers["Retry-After"] == "2")
        guard case .answer(.hang) = try Self.steps(#"{"rules": [{"action": {"type": "hang"}}]}"#).next else {
            Issue.record("hang is not a fixed answer")
            return
        }
    }

    @Test("rewrites of processed answers: 2xx status, truncation, commit-then-drop, commit-then-delay")
    func rewrites() throws {
        let accepted = ServerResponse(status: 202, body: Array(repeating: 0x41, count: 10))
        let respond = try Self.steps(#"{"rules": [{"action": {"type": "respond", "status": 200}}]}"#)
        guard case .process(let status, false) = respond.next,
            case .respond(let changed, nil) = status.apply(to: accepted)
        else {
            Issue.record("a 2xx respond rule does not process")
            return
        }
        #expect(changed.status == 200)
        guard
            case .process(let truncate, false) = try Self.steps(#"{"rules": [{"action": {"type": "truncate"}}]}"#).next,
            case .truncate(_, let keep) = truncate.apply(to: accepted)
        else {
            Issue.record("truncate does not process")
            return
        }
        #expect(keep == 5)
        guard
            case .process(let drop, false) = try Self.steps(#"{"rules": [{"action": {"type": "commitThenDrop"}}]}"#)
                .next,
            case .close = drop.apply(to: accepted)
        else {
            Issue.record("commitThenDrop does not close after processing")
            return
        }
        guard
            case .process(_, true) = try Self.steps(
                #"{"rules": [{"action": {"type": "commitThenDelay", "delay": "1s"}}]}"#
            ).next
        else {
            Issue.record("commitThenDelay does not commit at once")
            return
        }
    }

    @Test("capacity: a busy worker queues the next request or sheds it with the plan's Retry-After")
    func capacity() throws {
        for (mode, shed) in [("queue", false), ("shed", true)] {
            let engine = FaultEngine(
                plan: try FaultPlan.decode(
                    Data(
                        #"{"capacity": {"workers": 1, "serviceTime": "1s", "mode": "\#(mode)", "shedRetryAfter": 7}}"#
                            .utf8)), seed: 1)
            func facts(_ identity: UInt64) -> FaultEngine.Facts {
                FaultEngine.Facts(endpoint: .send, attempt: 1, identity: identity, elapsed: 0, headers: [:])
            }
            let first = engine.steps(for: facts(1))
            #expect(abs(first.wait - 1) < 1e-9)
            let second = engine.steps(for: facts(2))
            switch second.next {
            case .shed(.respond(let response, _)):
                #expect(shed && response.status == 503 && response.headers["Retry-After"] == "7")
                #expect(second.wait == 0)
            case .process:
                #expect(!shed && abs(second.wait - 2) < 1e-9, "queued behind the first")
            default:
                Issue.record("unexpected \(second.next)")
            }
        }
    }
}
