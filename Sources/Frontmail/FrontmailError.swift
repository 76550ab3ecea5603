import Foundation

/// The one error type the SDK throws.
///
/// `code` is an open set: the API's codes, the client's own codes and any code a newer server
/// sends all survive as they came. `status` is nil for errors that had no HTTP response.
/// Two errors are equal when their code, message, status, docs URL, details and Retry-After are;
/// what caused them (`underlyingError`) is not compared.
public struct FrontmailError: Error, Sendable, Hashable {
    public var code: Code
    public var message: String
    /// The HTTP status of the response, or nil for client-side errors.
    public var status: Int?
    /// Where this code is documented (the server's `docs_url` when it sent one).
    public var docsURL: URL
    /// The `details` member of the error body, passed through unchanged.
    public var details: FrontmailValue?
    /// Seconds from the response's Retry-After header (negative values become 0).
    public var retryAfter: TimeInterval?
    /// What the transport threw, when a `network_error` or `timeout` came from it: over
    /// URLSession a `URLError`, whose code tells a refused connection from a lost one or a DNS
    /// failure. Nil for every other error (the API's answers, the SDK's own checks).
    public var underlyingError: (any Error)?

    public init(
        code: Code, message: String, status: Int? = nil, docsURL: URL? = nil, details: FrontmailValue? = nil,
        retryAfter: TimeInterval? = nil, underlyingError: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.status = status
        self.docsURL = docsURL ?? code.docsURL
        self.details = details
        self.retryAfter = retryAfter
        self.underlyingError = underlyingError
    }

    public static func == (lhs: FrontmailError, rhs: FrontmailError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.status == rhs.status && lhs.docsURL == rhs.docsURL
            && lhs.details == rhs.details && lhs.retryAfter == rhs.retryAfter
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(status)
        hasher.combine(docsURL)
        hasher.combine(details)
        hasher.combine(retryAfter)
    }

    /// 401, or a 403 whose code means the key or origin was refused (and a refused `sk_` key).
    public var isAuth: Bool {
        if status == 401 { return true }
        if status == 403 || status == nil {
            return Self.authCodes.contains(code)
        }
        return false
    }

    /// 400 or 422: the request itself was wrong (and the client-side `invalid_params`).
    public var isValidation: Bool {
        if let status { return status == 400 || status == 422 }
        return code == .invalidParams
    }

    /// 429 (`rate_limited`, `test_send_limit`).
    public var isRateLimit: Bool {
        status == 429 || (status == nil && (code == .rateLimited || code == .testSendLimit))
    }

    /// 402: the organisation is in reject mode and has no credits.
    public var isInsufficientCredits: Bool {
        status == 402 || (status == nil && code == .insufficientCredits)
    }

    /// No usable response: `network_error` or `timeout`.
    public var isNetwork: Bool { code == .networkError || code == .timeout }

    /// The attempt never reached the server: the transport could not connect (refused), find the
    /// host, or reach a network. A connection lost or a timeout may have reached it.
    package var neverReachedServer: Bool {
        guard code == .networkError, let error = underlyingError as? URLError else { return false }
        return Self.unsentCodes.contains(error.code)
    }

    private static let unsentCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
    ]

    /// The calling Task was cancelled: `aborted`.
    public var isCancelled: Bool { code == .aborted }

    private static let authCodes: Set<Code> = [
        .forbidden, .originNotAllowed, .privateKeyRequired, .privateKeyInBrowser,
    ]
}

extension FrontmailError: LocalizedError {
    public var errorDescription: String? { message }
}

extension FrontmailError: CustomStringConvertible {
    public var description: String {
        var text = "FrontmailError(\(code.rawValue)"
        if let status { text += ", status \(status)" }
        text += "): \(message)"
        if let retryAfter { text += " [retry after \(retryAfter) s]" }
        return text
    }
}

extension FrontmailError {
    /// The documentation page of every error code.
    public static let docsBaseURL = "https://docs.frontmail.dev/reference/errors/#"

    static func client(
        _ code: Code, _ message: String, details: FrontmailValue? = nil, underlying: (any Error)? = nil
    ) -> FrontmailError {
        FrontmailError(code: code, message: message, details: details, underlyingError: underlying)
    }

    static let aborted = FrontmailError.client(.aborted, "The request was cancelled.")
}
