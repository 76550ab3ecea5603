import FakeFrontmail
import Frontmail

/// Under the SDK, adds the send's bench id to each of its requests as `X-Bench-Send-Id` (the
/// `identical` payload: bodies carry nothing that tells sends apart, so the server's ledger joins
/// them to the history by this header). The send is the one whose task made the request
/// (`History.currentSendID`, inherited by the attempt's task).
struct BenchIDHeaderTransport: FrontmailTransport {
    let inner: any FrontmailTransport
    /// The bench id of a shard-local send id.
    let benchID: @Sendable (Int) -> Int

    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
        guard let sendID = History.currentSendID else { return try await inner.send(request) }
        var tagged = request
        tagged.headers.set(name: FakeFrontmailCore.benchIDHeader, value: String(benchID(sendID)))
        return try await inner.send(tagged)
    }
}
