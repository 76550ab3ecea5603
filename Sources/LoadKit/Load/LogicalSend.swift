import Foundation
import Frontmail

/// One logical send of a load: its payload and key from the scenario, the SDK call, and its
/// start and outcome in the history (the SDK's own events are matched to it by a task-local id).
struct LogicalSend: Sendable {
    /// The load's `Frontmail` instances: send number `n` goes through instance `n % count`.
    let clients: [Frontmail]
    let history: History
    let factory: PayloadFactory
    let explicitKeys: ClientSettings.ExplicitKeys?
    let scenario: Scenario
    /// The status reads after each successful send (a `status` section).
    let reader: StatusReader?

    /// `clock` is the client's (the one the SDK reports its attempts on).
    init(scenario: Scenario, clients: [Frontmail], history: History, clock: any FrontmailScheduler = SystemClock()) {
        self.clients = clients
        self.history = history
        self.factory = PayloadFactory(scenario.payload)
        self.explicitKeys = scenario.client.explicitKeys
        self.scenario = scenario
        self.reader = scenario.status.map {
            StatusReader(
                client: clients[0], book: history.statusReads, settings: $0, clock: clock,
                timeScale: scenario.timeScale,
                seed: scenario.seed)
        }
    }

    /// The idempotency key and body variant of send `sendID` (nil key: the SDK makes one).
    static func key(_ sendID: Int, _ explicitKeys: ClientSettings.ExplicitKeys?) -> (key: String?, variant: Int) {
        guard let explicitKeys else { return (nil, 0) }
        return ("bench-key-\(sendID % explicitKeys.pool)", explicitKeys.sameBody ? 0 : sendID / explicitKeys.pool)
    }

    /// Makes the shard's `sendID`-th send (its number in the unsharded run decides its key and body).
    func callAsFunction(_ sendID: Int) async {
        let number = history.number(sendID)
        let client = clients[number % clients.count]
        let fidelity = factory.profile == .fidelity ? FidelityPayload.send(sendID: scenario.benchID(number)) : nil
        var options = fidelity?.options ?? SendOptions(attachments: factory.attachments)
        if let turnstile = scenario.client.turnstile {
            options.turnstileToken = turnstile.token(number)
            options.turnstileKey = turnstile.key
        }
        let (key, variant) = Self.key(number, explicitKeys)
        options.idempotencyKey = key
        let params = fidelity?.params ?? factory.params(sendID: scenario.benchID(number), variant: variant)
        let serviceID = fidelity?.serviceID
        history.started(sendID)
        let (outcome, result) = await OpenSends.counting {
            await History.$currentSendID.withValue(sendID) { () async -> (History.Outcome, SendResult?) in
                do {
                    let result: SendResult
                    switch params {
                    case .values(let values):
                        result = try await client.send(
                            templateID: "tpl_bench", params: values, serviceID: serviceID, options: options)
                    case .encodable(let order):
                        result = try await client.send(templateID: "tpl_bench", params: order, options: options)
                    case .fidelity(let record):
                        result = try await client.send(
                            templateID: "tpl_bench", params: record, serviceID: serviceID, options: options)
                    }
                    return (.ok(messageID: result.messageID), result)
                } catch let error as FrontmailError {
                    return (.failed(code: error.code, status: error.status), nil)
                } catch {
                    return (.failed(code: .networkError, status: nil), nil)
                }
            }
        }
        history.finished(sendID, outcome)
        // Outside the send's task-local: the reads are not the send's attempts.
        if let reader, let result, !Task.isCancelled { await reader(number: number, result: result) }
    }
}
