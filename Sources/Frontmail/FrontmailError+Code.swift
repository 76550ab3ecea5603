import Foundation

extension FrontmailError {
    /// An error code: one of the API's codes, a client code, or an unknown code kept as it came.
    public struct Code: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        public var description: String { rawValue }

        /// `https://docs.frontmail.dev/reference/errors/#` + the code with `_` replaced by `-`.
        public var docsURL: URL {
            // Known codes are looked up: an error is made on every failed attempt, and building
            // the URL (replace, percent-encode, parse) was most of its cost.
            if let known = Self.knownDocsURLs[self] { return known }
            return makeDocsURL()
        }

        private static let knownDocsURLs: [Code: URL] = {
            var urls: [Code: URL] = [:]
            for code in clientCodes.union(statusTable.keys) { urls[code] = code.makeDocsURL() }
            return urls
        }()

        private func makeDocsURL() -> URL {
            let anchor = rawValue.replacingOccurrences(of: "_", with: "-")
            let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
            let encoded = anchor.addingPercentEncoding(withAllowedCharacters: allowed) ?? anchor
            return URL(string: FrontmailError.docsBaseURL + encoded)!
        }

        /// The HTTP status the API answers with this code, or nil for client codes and unknown ones.
        public var httpStatus: Int? { Self.statusTable[self] }

        /// Whether the client itself produces this code (it never comes from the server).
        public var isClientCode: Bool { Self.clientCodes.contains(self) }

        // MARK: Client codes (status nil)

        /// No HTTP response: connection refused or reset, DNS failure, offline.
        public static let networkError: Code = "network_error"
        /// The per-attempt deadline fired before the whole response arrived.
        public static let timeout: Code = "timeout"
        /// The calling Task was cancelled.
        public static let aborted: Code = "aborted"
        /// A 2xx answer without the expected shape (not JSON, no `message_id`, …).
        public static let invalidResponse: Code = "invalid_response"
        /// Params that cannot be sent: not a JSON object, or a number that is not finite.
        public static let invalidParams: Code = "invalid_params"
        // `private_key_in_browser` is both an API code (403) and the initializer's client code.

        // MARK: 400
        public static let badRequest: Code = "bad_request"
        public static let invalidBody: Code = "invalid_body"
        public static let invalidIdempotencyKey: Code = "invalid_idempotency_key"
        // MARK: 401
        public static let unauthorized: Code = "unauthorized"
        public static let invalidPublicKey: Code = "invalid_public_key"
        public static let invalidPrivateKey: Code = "invalid_private_key"
        // MARK: 402
        public static let insufficientCredits: Code = "insufficient_credits"
        // MARK: 403
        public static let forbidden: Code = "forbidden"
        public static let originNotAllowed: Code = "origin_not_allowed"
        public static let captchaRequired: Code = "captcha_required"
        public static let captchaFailed: Code = "captcha_failed"
        public static let captchaNotConfigured: Code = "captcha_not_configured"
        public static let headlessBlocked: Code = "headless_blocked"
        public static let recipientBlocked: Code = "recipient_blocked"
        public static let privateKeyRequired: Code = "private_key_required"
        public static let privateKeyInBrowser: Code = "private_key_in_browser"
        public static let emailNotVerified: Code = "email_not_verified"
        public static let organizationSuspended: Code = "organization_suspended"
        public static let planLimitReached: Code = "plan_limit_reached"
        public static let dynamicRecipientNotAllowed: Code = "dynamic_recipient_not_allowed"
        public static let dynamicRecipientRequiresCaptcha: Code = "dynamic_recipient_requires_captcha"
        public static let dynamicFieldNotAllowed: Code = "dynamic_field_not_allowed"
        public static let linkNotAllowed: Code = "link_not_allowed"
        public static let attachmentsNotAllowed: Code = "attachments_not_allowed"
        // MARK: 404
        public static let notFound: Code = "not_found"
        public static let serviceNotFound: Code = "service_not_found"
        public static let templateNotFound: Code = "template_not_found"
        public static let messageNotFound: Code = "message_not_found"
        // MARK: 409
        public static let conflict: Code = "conflict"
        public static let idempotencyConflict: Code = "idempotency_conflict"
        // MARK: 413
        public static let payloadTooLarge: Code = "payload_too_large"
        public static let attachmentTooLarge: Code = "attachment_too_large"
        // MARK: 422
        public static let invalidTemplateParams: Code = "invalid_template_params"
        public static let translationNotConfigured: Code = "translation_not_configured"
        public static let translationInvalid: Code = "translation_invalid"
        public static let translationProviderAuth: Code = "translation_provider_auth"
        public static let templateRenderFailed: Code = "template_render_failed"
        public static let invalidRecipient: Code = "invalid_recipient"
        public static let serviceUnavailableForTemplate: Code = "service_unavailable_for_template"
        public static let senderNotConfigured: Code = "sender_not_configured"
        // MARK: 429
        public static let rateLimited: Code = "rate_limited"
        public static let testSendLimit: Code = "test_send_limit"
        // MARK: 451
        public static let recipientSuppressed: Code = "recipient_suppressed"
        // MARK: 5xx
        public static let internalError: Code = "internal_error"
        public static let providerError: Code = "provider_error"
        public static let translationProviderError: Code = "translation_provider_error"
        public static let serviceUnavailable: Code = "service_unavailable"

        /// The codes the client produces itself.
        public static let clientCodes: Set<Code> = [
            .networkError, .timeout, .aborted, .invalidResponse, .invalidParams, .privateKeyInBrowser,
        ]

        /// Every API code with the HTTP status the API answers it with (wire contract §3.3).
        public static let statusTable: [Code: Int] = {
            let groups: [(Int, [Code])] = [
                (400, [.badRequest, .invalidBody, .invalidIdempotencyKey]),
                (401, [.unauthorized, .invalidPublicKey, .invalidPrivateKey]),
                (402, [.insufficientCredits]),
                (
                    403,
                    [
                        .forbidden, .originNotAllowed, .captchaRequired, .captchaFailed, .captchaNotConfigured,
                        .headlessBlocked, .recipientBlocked, .privateKeyRequired, .privateKeyInBrowser,
                        .emailNotVerified, .organizationSuspended, .planLimitReached, .dynamicRecipientNotAllowed,
                        .dynamicRecipientRequiresCaptcha, .dynamicFieldNotAllowed, .linkNotAllowed,
                        .attachmentsNotAllowed,
                    ]
                ),
                (404, [.notFound, .serviceNotFound, .templateNotFound, .messageNotFound]),
                (409, [.conflict, .idempotencyConflict]),
                (413, [.payloadTooLarge, .attachmentTooLarge]),
                (
                    422,
                    [
                        .invalidTemplateParams, .translationNotConfigured, .translationInvalid,
                        .translationProviderAuth, .templateRenderFailed, .invalidRecipient,
                        .serviceUnavailableForTemplate, .senderNotConfigured,
                    ]
                ),
                (429, [.rateLimited, .testSendLimit]),
                (451, [.recipientSuppressed]),
                (500, [.internalError]),
                (502, [.providerError, .translationProviderError]),
                (503, [.serviceUnavailable]),
            ]
            var table: [Code: Int] = [:]
            for (status, codes) in groups {
                for code in codes { table[code] = status }
            }
            return table
        }()
    }
}
