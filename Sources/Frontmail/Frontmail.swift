import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The Frontmail client: sends template emails with a public key and reads their status.
///
/// Create it once; it is immutable and safe to share across tasks.
public final class Frontmail: Sendable {
    /// The version in the `X-Frontmail-Client` header of every request.
    public static let version = "0.1.0"

    /// The default API base URL.
    public static let defaultAPIURL = URL(string: "https://api.frontmail.dev")!

    public let publicKey: String
    /// The API base URL, trailing slashes removed.
    public let apiURL: URL
    public let retry: RetryPolicy
    /// Seconds per attempt, the whole response included.
    public let timeout: TimeInterval
    public let transport: any FrontmailTransport
    let environment: SendEnvironment
    /// The tokens of `retry.budget`, shared by every request of this client (nil without a budget).
    let retryBucket: (any RetryTokens)?
    let baseURLString: String
    /// `<base>/v1/send`, made once.
    let sendURL: URL

    /// - Throws: `FrontmailError` with code `private_key_in_browser` for an `sk_` key, and
    ///   `invalid_public_key` for an empty key or one without the `pk_` prefix.
    public convenience init(
        publicKey: String,
        apiURL: URL = Frontmail.defaultAPIURL,
        retry: RetryPolicy = RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10),
        timeout: TimeInterval = 15,
        session: URLSession = .shared
    ) throws {
        try self.init(
            publicKey: publicKey, apiURL: apiURL, retry: retry, timeout: timeout,
            transport: URLSessionTransport(session: session), environment: .live)
    }

    /// A client that sends through `transport` instead of a `URLSession`.
    public convenience init(
        publicKey: String,
        apiURL: URL = Frontmail.defaultAPIURL,
        retry: RetryPolicy = RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10),
        timeout: TimeInterval = 15,
        transport: some FrontmailTransport
    ) throws {
        try self.init(
            publicKey: publicKey, apiURL: apiURL, retry: retry, timeout: timeout, transport: transport,
            environment: .live)
    }

    /// A client with an injected clock, random source and observer (tests and the load suite).
    package init(
        publicKey: String,
        apiURL: URL = Frontmail.defaultAPIURL,
        retry: RetryPolicy = .default,
        timeout: TimeInterval = 15,
        transport: any FrontmailTransport,
        environment: SendEnvironment
    ) throws {
        try Self.validate(publicKey: publicKey)
        self.publicKey = publicKey
        let base = Self.normalizedBase(apiURL)
        self.baseURLString = base
        self.apiURL = URL(string: base) ?? apiURL
        self.sendURL = URL(string: base + "/v1/send") ?? apiURL
        self.retry = retry
        self.timeout = timeout.isNaN || timeout <= 0 ? 15 : timeout
        self.transport = transport
        self.environment = environment
        self.retryBucket = retry.budget.map { environment.retryTokens?($0) ?? RetryBucket($0) }
    }

    static let clientHeaderValue = "frontmail-swift/\(Frontmail.version)"

    static func validate(publicKey: String) throws(FrontmailError) {
        if publicKey.hasPrefix("sk_") {
            throw .client(
                .privateKeyInBrowser,
                "A private key (sk_…) must never be put into an app. Use your public key (pk_…) instead.")
        }
        guard !publicKey.isEmpty else {
            throw .client(.invalidPublicKey, "The public key is empty. Pass your public key (pk_…).")
        }
        guard publicKey.hasPrefix("pk_") else {
            throw .client(.invalidPublicKey, "A public key starts with pk_. Pass your public key (pk_…).")
        }
    }

    /// The base URL as a string without trailing slashes.
    static func normalizedBase(_ url: URL) -> String {
        var text = url.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return text
    }

    func endpoint(_ path: String) -> URL {
        URL(string: baseURLString + path)!
    }
}
