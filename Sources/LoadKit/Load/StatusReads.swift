import FakeFrontmail
import Foundation
import Frontmail
import Synchronization

/// The client's truth about a load's status reads (a scenario's `status` section): one record per
/// `status(messageID:statusToken:)` call, filled in by the reader and by the SDK's observer events
/// of `.status` operations (matched to a read through a task-local read id). Times are on the
/// client's clock, the one the SDK reports its attempts' starts on.
public final class StatusReadBook: Sendable {
    public enum Kind: UInt8, Sendable {
        /// A message a send of the load created, with its token.
        case known
        /// A message the server does not know, or a known one with another message's token: a 404.
        case unknown
    }

    public enum Outcome: Sendable, Hashable {
        case pending
        /// A status came back; `matches` is whether it is the message asked for.
        case ok(matches: Bool)
        case failed(code: FrontmailError.Code, status: Int?)
    }

    public struct Record: Sendable {
        public var kind: Kind
        public var started: Double
        public var ended = Double.nan
        /// When the reader cancelled the read (NaN: it did not, or the read had ended).
        public var cancelled = Double.nan
        public var outcome = Outcome.pending
        public var attempts = 0
        /// Attempts the SDK reported starting after the cancel.
        public var attemptsAfterCancel = 0
        /// The status of the last attempt's answer (0: none reached the client).
        public var lastStatus = 0
        /// When the last answer the transport handed the SDK arrived (NaN: none did), on the
        /// reader's clock: the harness's own observation under the SDK, not the SDK's account.
        public var answered = Double.nan
    }

    /// The read the current task makes (its place in `records`).
    @TaskLocal static var current: Int?

    private struct State {
        var records: [Record] = []
        /// Attempts that ended in an error, by code (every attempt, not just a read's last).
        var attemptErrors: [String: Int] = [:]
    }

    private let state = Mutex(State())

    init() {}

    func start(_ kind: Kind, at time: Double) -> Int {
        state.withLock { state in
            state.records.append(Record(kind: kind, started: time))
            return state.records.count - 1
        }
    }

    func cancelled(_ read: Int, at time: Double) {
        state.withLock { $0.records[read].cancelled = time }
    }

    func answered(_ read: Int, at time: Double) {
        state.withLock { $0.records[read].answered = time }
    }

    func finished(_ read: Int, _ outcome: Outcome, at time: Double) {
        state.withLock { state in
            state.records[read].ended = time
            state.records[read].outcome = outcome
        }
    }

    /// The SDK's event of a `.status` operation.
    func record(_ event: SendEvent) {
        guard let read = Self.current else { return }
        switch event {
        case .attemptStarted(_, _, _, let at):
            state.withLock { state in
                state.records[read].attempts += 1
                if at > state.records[read].cancelled { state.records[read].attemptsAfterCancel += 1 }
            }
        case .attemptFinished(_, _, _, let status, let code, _):
            state.withLock { state in
                state.records[read].lastStatus = status ?? 0
                if let code { state.attemptErrors[code.rawValue, default: 0] += 1 }
            }
        case .backoffScheduled, .retryRefused: break
        }
    }

    public var records: [Record] { state.withLock { $0.records } }
    public var attemptErrors: [String: Int] { state.withLock { $0.attemptErrors } }
}

/// The status reads that follow a successful send: `reads` of its message (some cancelled at a
/// seeded moment), and for some sends one read of a message the server does not know.
struct StatusReader: Sendable {
    let client: Frontmail
    let book: StatusReadBook
    let settings: StatusSettings
    /// The client's clock (the SDK's own, or a simulation's).
    let clock: any FrontmailScheduler
    let timeScale: Double
    let seed: UInt64

    /// The id of a message no fake server ever makes.
    static let unknownID = MessageID.string(UInt32.max)

    /// The reads after send `number` created `result`.
    func callAsFunction(number: Int, result: SendResult) async {
        for index in 0..<settings.reads {
            let cancelAt = StatusSettings.draw(settings.cancel, seed: seed, number: number, salt: index).map {
                $0 * settings.cancelWithin.seconds * timeScale
            }
            await read(.known, result.messageID, token: result.statusToken, cancelAfter: cancelAt)
        }
        if StatusSettings.draw(settings.unknown, seed: seed, number: number, salt: -1) != nil {
            // Alternately an id nobody made and the right id with another message's token.
            let unknownID = number.isMultiple(of: 2)
            await read(
                .unknown, unknownID ? Self.unknownID : result.messageID,
                token: unknownID ? result.statusToken : "not-" + result.statusToken, cancelAfter: nil)
        }
    }

    private func read(
        _ kind: StatusReadBook.Kind, _ messageID: String, token: String, cancelAfter: Double?
    ) async {
        let index = book.start(kind, at: clock.now())
        let outcome = await StatusReadBook.$current.withValue(index) { () async -> StatusReadBook.Outcome in
            guard let cancelAfter else { return await call(messageID, token) }
            return await withTaskGroup(of: StatusReadBook.Outcome?.self) { group in
                group.addTask { await call(messageID, token) }
                group.addTask {
                    try? await clock.sleep(seconds: cancelAfter)
                    return nil
                }
                while let next = await group.next() {
                    if let outcome = next {
                        group.cancelAll()
                        return outcome
                    }
                    // The moment is read after the cancel: an attempt the SDK reports starting
                    // later read its start after the cancel, so it should have seen it.
                    group.cancelAll()
                    book.cancelled(index, at: clock.now())
                }
                return .pending
            }
        }
        book.finished(index, outcome, at: clock.now())
    }

    private func call(_ messageID: String, _ token: String) async -> StatusReadBook.Outcome {
        do {
            let status = try await client.status(messageID: messageID, statusToken: token)
            // The fake only ever answers with statuses the guide names.
            if case .unknown = status.status { return .ok(matches: false) }
            return .ok(matches: status.messageID == messageID)
        } catch let error as FrontmailError {
            return .failed(code: error.code, status: error.status)
        } catch {
            return .failed(code: .networkError, status: nil)
        }
    }
}

/// Under the SDK, adds the status read's number to each of its requests as `X-Bench-Send-Id`, so
/// the server's ledger holds each read's requests (its status records carry the read's number;
/// the send records' numbers are the sends').
/// It also notes when each answer came back (`Record.answered`), so a read whose answer was in the
/// client's hands before the cancel is not judged as one that ignored it.
struct StatusReadTagTransport: FrontmailTransport {
    let inner: any FrontmailTransport
    let book: StatusReadBook
    let clock: any FrontmailScheduler

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let read = StatusReadBook.current else { return try await inner.send(request) }
        var tagged = request
        tagged.headers.set(name: FakeFrontmailCore.benchIDHeader, value: String(read))
        let response = try await inner.send(tagged)
        book.answered(read, at: clock.now())
        return response
    }
}
