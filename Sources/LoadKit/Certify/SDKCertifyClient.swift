import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Swift SDK as a certified client (`frontmail-certify-client`, and in process in the tests):
/// each logical send is one `Frontmail.send` over URLSession, `concurrency` at a time. With a
/// broken client from explore's catalog applied (`--broken NAME`), it is the deliberately wrong
/// client whose planned cases must fail.
package enum SDKCertifyClient {
    /// The policy it runs with, short enough that a case ends in seconds.
    package static let policy = RetryPolicy(maxRetries: 3, baseDelay: 0.1, maxDelay: 1)
    package static let timeout: TimeInterval = 2

    /// What it claims: exactly `policy` and `timeout`, full jitter.
    package static func claim(name: String = "frontmail-swift") -> ClientClaim {
        ClientClaim(
            name: name, maxAttempts: policy.maxAttempts, baseDelay: TimeSpan(seconds: policy.baseDelay),
            maxDelay: TimeSpan(seconds: policy.maxDelay), jitter: .full, timeout: TimeSpan(seconds: timeout),
            statusReads: true)
    }

    /// The broken clients of explore's catalog that behave the same on the real clock (their
    /// defect is in the transport, the draw or the policy, not in virtual time).
    package static let brokenOnRealClock: Set<String> = [
        "duplicating", "key-changing", "key-dropping", "body-changing", "retry-after-blind", "retries-final-answers",
        "no-jitter",
        "equal-jitter", "one-retry-short", "one-retry-extra", "doubled-backoff", "status-token-in-url",
    ]

    /// Runs the request's sends, each to its end (success or error: the server's record is judged).
    package static func run(_ request: CertifyRequest, broken: BrokenClient? = nil) async {
        var seams = TestSeams()
        broken?.apply(to: &seams)
        let configuration = FakeFrontmailHarness.sessionConfiguration(
            FakeFrontmailHarness.SessionOptions(maxConnections: max(8, request.concurrency)))
        let session = URLSession(configuration: configuration)
        defer { session.invalidateAndCancel() }
        let transport =
            seams.wrapsTransport?(URLSessionTransport(session: session)) ?? URLSessionTransport(session: session)
        let retry = seams.policyDefect?(policy) ?? policy
        guard
            let client = try? Frontmail(
                publicKey: request.publicKey, apiURL: request.baseURL, retry: retry, timeout: timeout,
                transport: transport, environment: seams.apply(to: .live))
        else { return }
        let sends = request.bodies.compactMap(Send.init)
        @Sendable func one(_ send: Send) async {
            guard let result = try? await client.send(templateID: send.templateID, params: send.params),
                request.readsStatus
            else { return }
            _ = try? await client.status(messageID: result.messageID, statusToken: result.statusToken)
        }
        // `concurrency` at a time: each send after the first ones waits for one to end.
        await withTaskGroup(of: Void.self) { group in
            for (index, send) in sends.enumerated() {
                if index >= max(1, request.concurrency) { await group.next() }
                group.addTask { await one(send) }
            }
        }
    }

    /// One line of the protocol's sends file, read back into the SDK's call.
    struct Send: Sendable {
        var templateID: String
        var params: [String: FrontmailValue]

        init?(_ body: String) {
            guard let value = try? JSONDecoder().decode(FrontmailValue.self, from: Data(body.utf8)),
                case .object(let object) = value, case .string(let template)? = object["template_id"]
            else { return nil }
            templateID = template
            if case .object(let params)? = object["template_params"] { self.params = params } else { params = [:] }
        }
    }

    /// The request a command-line client reads from the protocol's environment (nil: a variable is
    /// missing or wrong, said in `problem`).
    package static func request(from environment: [String: String]) -> (request: CertifyRequest?, problem: String?) {
        guard let url = environment["FRONTMAIL_URL"].flatMap(URL.init(string:)), url.host != nil else {
            return (nil, "FRONTMAIL_URL is not an http URL")
        }
        guard let key = environment["FRONTMAIL_PUBLIC_KEY"], !key.isEmpty else {
            return (nil, "FRONTMAIL_PUBLIC_KEY is missing")
        }
        guard let path = environment["FRONTMAIL_SENDS"], let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return (nil, "FRONTMAIL_SENDS does not name a readable file") }
        guard let concurrency = environment["FRONTMAIL_CONCURRENCY"].flatMap(Int.init), (1...1000).contains(concurrency)
        else { return (nil, "FRONTMAIL_CONCURRENCY must be 1-1000") }
        let bodies = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        guard bodies.count <= 100_000 else { return (nil, "FRONTMAIL_SENDS holds more than 100000 sends") }
        return (
            CertifyRequest(
                baseURL: url, publicKey: key, bodies: bodies, concurrency: concurrency,
                caseID: environment["FRONTMAIL_CASE"] ?? "", readsStatus: environment["FRONTMAIL_STATUS_READS"] == "1"),
            nil
        )
    }
}
