import Foundation
import Frontmail
import Synchronization

@testable import FakeFrontmail
@testable import LoadKit

/// A clock a test moves by hand (seconds).
final class TestClock: Sendable {
    private let seconds = Mutex(0.0)
    var now: Double { seconds.withLock { $0 } }
    func set(_ value: Double) { seconds.withLock { $0 = value } }
}

/// Builds a client history by hand: what the load driver and the SDK's events would have written.
struct HistoryBuilder {
    let clock = TestClock()
    let history: History

    init() {
        let clock = clock
        history = History(now: { clock.now })
    }

    /// One send: scheduled and started at `start`, its attempts (status per attempt, nil for no
    /// answer), its backoffs, then its outcome at `end`.
    func send(
        _ sendID: Int, start: Double = 0, end: Double = 1, key: String = "k", keys: [String]? = nil,
        statuses: [Int?] = [202], backoffs: [(delay: Double, cause: BackoffCause)] = [],
        outcome: History.Outcome
    ) {
        clock.set(start)
        history.schedule(sendID, number: sendID, intended: start)
        history.started(sendID)
        History.$currentSendID.withValue(sendID) {
            for (attempt, status) in statuses.enumerated() {
                let attemptKey = keys?[attempt] ?? key
                history.record(.attemptStarted(operation: .send, key: attemptKey, attempt: attempt, at: start))
                let code: FrontmailError.Code? =
                    status.map { $0 >= 400 ? FrontmailError.Code(rawValue: ServerResponse.defaultCode(for: $0)) : nil }
                    ?? .networkError
                history.record(
                    .attemptFinished(
                        operation: .send, key: attemptKey, attempt: attempt, status: status, code: code, duration: 0))
                if attempt < backoffs.count {
                    let backoff = backoffs[attempt]
                    history.record(
                        .backoffScheduled(
                            operation: .send, key: attemptKey, afterAttempt: attempt, delay: backoff.delay,
                            cause: backoff.cause))
                }
            }
        }
        clock.set(end)
        history.finished(sendID, outcome)
    }

    func dropped(_ sendID: Int, at intended: Double) {
        history.schedule(sendID, number: sendID, intended: intended, dropped: true)
    }
}

/// Builds a server ledger by hand: one request per call, as the core would record it.
struct LedgerBuilder {
    let ledger = AttemptLedger()

    @discardableResult
    func request(
        sendID: Int64, key: String? = "k", arrival: Double = 0, finished: Double = 0.001, status: UInt16 = 202,
        effect: Bool = false, message: UInt32 = 0, retryAfter: Double = .nan, fingerprint: UInt64 = 1,
        endpoint: Endpoint = .send, defects: LedgerDefects = [], rule: Int16 = -1, action: LedgerAction = .served
    ) -> Int {
        let (index, _) = ledger.append(
            { record in
                record.benchSendID = sendID
                record.fingerprint = fingerprint
                record.defects = defects
            }, key: key, arrival: arrival, connection: 1, endpoint: endpoint)
        ledger.update(index) { record in
            record.finished = finished
            record.status = status
            record.effect = effect
            record.message = message
            record.retryAfter = retryAfter
            record.rule = rule
            record.action = action
        }
        return index
    }

    var index: LedgerIndex { LedgerIndex(ledger) }
}

/// A scenario decoded from JSON and validated, as a scenario file would be.
func makeScenario(_ json: String) throws -> Scenario {
    var scenario = try InputError.decode(Scenario.self, from: Data(json.utf8))
    try scenario.validate()
    scenario.file = "test.json"
    return scenario
}
