import Foundation
import Frontmail
import Synchronization

/// What a front end must do with a request once its wait is over.
public enum Disposition: Sendable {
    /// Send the response; with `bytesPerSecond`, trickle the body after the headers.
    case respond(ServerResponse, bytesPerSecond: Double?)
    /// Send the headers and the first `keepBytes` of the body, then close.
    case truncate(ServerResponse, keepBytes: Int)
    /// Never answer; wait until the client goes away.
    case hang
    /// Reset the connection (RST).
    case reset
    /// Close the connection (FIN) without an answer.
    case close
}

/// A request between its arrival and its answer.
public struct Ticket: Sendable {
    /// The ledger record.
    public let index: Int
    /// How long the server waits before it completes the request (processing or fault delay).
    public let wait: TimeInterval
    let stage: Stage
    /// Its place on the capacity calendar (nil without a capacity model).
    var booking: CapacityBook.Booking?

    enum Stage: Sendable {
        case ready(Disposition)
        case send(Emulator.SendClaim, then: FaultSteps.Rewrite)
        case other(ServerRequest, then: FaultSteps.Rewrite)
    }
}

/// The transport-agnostic heart of the fake: API emulator + fault plan + attempt ledger.
///
/// A front end calls `arrive` when a request is complete, waits `ticket.wait`, calls `complete`
/// (with `clientGone` when the client left meanwhile: the server still finishes processing), then
/// `finished` when the answer is out or the connection ended.
public final class FakeFrontmailCore: Sendable {
    public let emulator: Emulator
    public let ledger: AttemptLedger
    public let plan: FaultPlan
    let faults: FaultEngine
    /// The server's time source: the system clock, or a simulation's virtual clock.
    package let clock: any FrontmailScheduler
    /// `clock`'s reading at the core's zero.
    private let origin: TimeInterval
    /// The wall-clock time of the clock's zero (to line up clocks of several processes).
    public let wallStart: Date
    /// This server's identity, random per core: a socket front end answers it at `identityPath`
    /// (outside the API and the ledger), so the shards of a run can record which server they sent
    /// to and `merge` can refuse another run's server part.
    public let runID: String
    /// Where a socket front end answers `{"run_id": …}`.
    public static let identityPath = "/__frontmail/run"
    private let connections = Atomic<UInt32>(0)

    /// Sees every send request as it arrives, before anything is decided (a load's payload oracle).
    private let inspectSend: (@Sendable (ServerRequest) -> Void)?

    /// `seriesWidth`: the bucket width in seconds of the capacity model's busy-worker and queue-depth
    /// series (`capacitySeries`); nil records none. `inspectSend` sees every send request as it
    /// arrives.
    package init(
        config: EmulatorConfig = EmulatorConfig(), plan: FaultPlan = .none, seed: UInt64 = 1,
        seriesWidth: Double? = nil, numbering: MessageNumbering = .single,
        clock: any FrontmailScheduler = SystemClock(),
        inspectSend: (@Sendable (ServerRequest) -> Void)? = nil
    ) {
        self.inspectSend = inspectSend
        let origin = clock.now()
        self.clock = clock
        self.origin = origin
        wallStart = clock.wallNow()
        var random = SystemRandomNumberGenerator()
        runID = String(random.next() as UInt64, radix: 16)
        let now: @Sendable () -> TimeInterval = { clock.now() - origin }
        emulator = Emulator(
            config: config, seed: seed, now: now, wallNow: { clock.wallNow() }, numbering: numbering)
        ledger = AttemptLedger()
        self.plan = plan
        faults = FaultEngine(plan: plan, seed: seed, seriesWidth: seriesWidth)
    }

    /// Seconds since the core was made (monotonic).
    public func now() -> TimeInterval {
        clock.now() - origin
    }

    /// A new connection id (the in-process transport uses one per request).
    public func nextConnectionID() -> UInt32 {
        connections.wrappingAdd(1, ordering: .relaxed).newValue
    }

    /// The capacity model's busy-worker and queue-depth integrals per bucket so far (nil without a
    /// capacity model or a series width).
    public var capacitySeries: CapacitySeries? { faults.capacitySeries }

    /// Whether a refuse window is open now.
    public var isRefusing: Bool { faults.isRefusing(at: now()) }

    /// The plan's refuse windows (seconds on `now()`'s clock): a socket front end stops accepting
    /// connections inside them.
    public var refuseWindows: [(from: Double, to: Double)] { faults.refuseWindows }

    /// The request header a load's harness puts a send's bench id in when the body carries none.
    public static let benchIDHeader = "X-Bench-Send-Id"

    /// A bench id header's value: 1-18 ASCII digits, else -1 (nothing is joined by it).
    static func benchID(_ text: String) -> Int64 {
        let utf8 = text.utf8
        guard (1...18).contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return -1 }
        return Int64(text) ?? -1
    }

    /// A complete request arrived: it goes into the ledger, the fault engine says what happens to
    /// it, and (when it is processed) the emulator begins it.
    public func arrive(_ request: ServerRequest, connection: UInt32) -> Ticket {
        let arrival = now()
        let endpoint = request.endpoint
        let key = endpoint == .send ? request.headers["Idempotency-Key"] : nil
        if endpoint == .send { inspectSend?(request) }
        let parsed = endpoint == .send ? emulator.readBody(request.body) : nil
        let fingerprint = Fingerprint.of(request.body)
        let keyFingerprint = key.map { Fingerprint.of($0) }
        let (index, attempt) = enter(
            request, endpoint: endpoint, key: (key, keyFingerprint), benchSendID: parsed?.benchSendID,
            fingerprint: fingerprint, arrival: arrival, connection: connection)
        let identity = keyFingerprint ?? UInt64(index) &* 0x9E37_79B9
        let steps = faults.steps(
            for: FaultEngine.Facts(
                endpoint: endpoint, attempt: attempt, identity: identity, elapsed: arrival, headers: request.headers,
                clock: clock))
        // What the ledger learns here is written once, whichever way the request goes.
        var note = LedgerNote()
        defer { record(note, at: index) }
        if let rule = steps.rule, let action = steps.action {
            note.rule = Int16(clamping: rule)
            note.action = LedgerAction(action.kind)
        }
        func ticket(_ stage: Ticket.Stage) -> Ticket {
            Ticket(index: index, wait: steps.wait, stage: stage, booking: steps.booking)
        }

        let rewrite: FaultSteps.Rewrite
        let commitAtOnce: Bool
        switch steps.next {
        case .answer(let disposition):
            return ticket(.ready(disposition))
        case .shed(let disposition):
            note.action = .shed
            return ticket(.ready(disposition))
        case .process(let processRewrite, let processCommitAtOnce):
            rewrite = processRewrite
            commitAtOnce = processCommitAtOnce
        }
        guard endpoint == .send else { return ticket(.other(request, then: rewrite)) }
        switch emulator.beginSend(request, parsed: parsed, fingerprint: fingerprint, keyFingerprint: keyFingerprint) {
        case .respond(let response):
            return ticket(.ready(.respond(response, bytesPerSecond: nil)))
        case .replay(let response, let message):
            note.message = message
            return ticket(.ready(rewrite.apply(to: response)))
        case .claimed(let claim) where commitAtOnce:
            let (response, message) = emulator.finishSend(claim)
            note.commit(message)
            return ticket(.ready(.respond(response, bytesPerSecond: nil)))
        case .claimed(let claim):
            return ticket(.send(claim, then: rewrite))
        }
    }

    /// The request's record in the ledger, as it arrived: its key, body fingerprint, send number
    /// (from the body, else the bench header) and what it did wrong; its index and attempt number.
    private func enter(
        _ request: ServerRequest, endpoint: Endpoint, key: (text: String?, fingerprint: UInt64?), benchSendID: Int64?,
        fingerprint: UInt64, arrival: Double, connection: UInt32
    ) -> (index: Int, attempt: UInt32) {
        ledger.append(
            { record in
                record.fingerprint = fingerprint
                record.benchSendID = benchSendID ?? -1
                if record.benchSendID < 0, let header = request.headers[Self.benchIDHeader] {
                    record.benchSendID = Self.benchID(header)
                }
                record.defects = Self.defects(request)
            }, key: key.text, keyFingerprint: key.fingerprint, arrival: arrival, connection: connection,
            endpoint: endpoint)
    }

    /// Processes the request (if it still needs it) and says what to send. Returns nil when the
    /// client is gone (processing still happens, as a server that has not noticed would do).
    public func complete(_ ticket: Ticket, clientGone: Bool = false) -> Disposition? {
        let disposition: Disposition
        var note = LedgerNote()
        if clientGone, let booking = ticket.booking, faults.release(booking, at: now()) {
            // The plan drops abandoned work: the request is never processed.
            if case .send(let claim, _) = ticket.stage { emulator.releaseSend(claim) }
            note.action = .dropped
            note.clientGone = true
            record(note, at: ticket.index)
            return nil
        }
        switch ticket.stage {
        case .ready(let ready):
            disposition = ready
        case .send(let claim, let rewrite):
            let (response, message) = emulator.finishSend(claim)
            note.commit(message)
            disposition = rewrite.apply(to: response)
        case .other(let request, let rewrite):
            disposition = rewrite.apply(to: emulator.handle(request))
        }
        note.retryAfter = retryAfterSeconds(disposition)
        note.clientGone = clientGone
        record(note, at: ticket.index)
        return clientGone ? nil : disposition
    }

    /// The wait the answer's Retry-After asks for as the plan meant it, from the fake's clock now.
    private func retryAfterSeconds(_ disposition: Disposition) -> Double? {
        switch disposition {
        case .respond(let response, _), .truncate(let response, _):
            return response.retryAfterMeant?.seconds(at: clock.wallNow())
        case .hang, .reset, .close:
            return nil
        }
    }

    /// The answer is out (`status`), or the connection ended without one (`status` 0).
    public func finished(_ ticket: Ticket, status: Int, clientGone: Bool = false) {
        let at = now()
        ledger.update(ticket.index) {
            $0.finished = at
            $0.status = UInt16(clamping: status)
            if clientGone { $0.clientGone = true }
        }
    }

    /// Ledger fields learned while handling a request, written under one lock.
    private struct LedgerNote {
        var rule: Int16?
        var action: LedgerAction?
        var message: UInt32?
        var effect = false
        var retryAfter: Double?
        var clientGone = false

        /// A new message was committed (nil: nothing was).
        mutating func commit(_ committed: UInt32?) {
            guard let committed else { return }
            message = committed
            effect = true
        }

        var isEmpty: Bool {
            rule == nil && action == nil && message == nil && retryAfter == nil && !clientGone
        }
    }

    private func record(_ note: LedgerNote, at index: Int) {
        guard !note.isEmpty else { return }
        ledger.update(index) { record in
            if let rule = note.rule { record.rule = rule }
            if let action = note.action { record.action = action }
            if let message = note.message { record.message = message }
            if note.effect { record.effect = true }
            if let retryAfter = note.retryAfter { record.retryAfter = retryAfter }
            if note.clientGone { record.clientGone = true }
        }
    }

    static func defects(_ request: ServerRequest) -> LedgerDefects {
        var defects: LedgerDefects = []
        // Only reads carry a status token (and the send path stays free of this work).
        if request.endpoint != .send, Self.tokenInURL(request) { defects.insert(.queryToken) }
        if request.headers["Authorization"] != nil { defects.insert(.authorizationHeader) }
        if request.headers["X-Frontmail-Client"] == nil { defects.insert(.missingClientHeader) }
        if request.headers["X-Frontmail-Public-Key"]?.hasPrefix("sk_") == true { defects.insert(.privateKey) }
        return defects
    }

    /// Whether a status token stands anywhere in the request target, percent-decoded: the token
    /// the request's own header carries, or any string of the shape the fake issues (`stk_` and
    /// 16 hex digits), whatever the parameter or segment is called.
    static func tokenInURL(_ request: ServerRequest) -> Bool {
        let target = request.path + (request.query.map { "?" + $0 } ?? "")
        let decoded = (target.removingPercentEncoding ?? target).lowercased()
        if let token = request.headers["X-Frontmail-Status-Token"], token.utf8.count >= 4,
            decoded.contains(token.lowercased())
        {
            return true
        }
        var rest = decoded[...]
        while let found = rest.range(of: "stk_") {
            let digits = rest[found.upperBound...].prefix(16)
            if digits.count == 16, digits.allSatisfy(\.isHexDigit) { return true }
            rest = rest[found.upperBound...]
        }
        return false
    }
}
