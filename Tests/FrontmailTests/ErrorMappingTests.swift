import Foundation
import Testing

@testable import Frontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("errors: mapping, groups, docs URLs and the code table (§3, §7.18-7.19, §7.22-7.25)")
struct ErrorMappingTests {
    enum Group: String, CaseIterable { case validation, auth, credits, rateLimit, base }

    struct Row: Sendable, CustomTestStringConvertible {
        var status: Int
        var code: String
        var group: Group
        var testDescription: String { "\(status) \(code)" }
    }

    static let rows: [Row] = [
        Row(status: 400, code: "invalid_body", group: .validation),
        Row(status: 401, code: "invalid_public_key", group: .auth),
        Row(status: 402, code: "insufficient_credits", group: .credits),
        Row(status: 403, code: "origin_not_allowed", group: .auth),
        Row(status: 403, code: "private_key_required", group: .auth),
        Row(status: 403, code: "captcha_failed", group: .base),
        Row(status: 403, code: "captcha_not_configured", group: .base),
        Row(status: 404, code: "template_not_found", group: .base),
        Row(status: 409, code: "idempotency_conflict", group: .base),
        Row(status: 413, code: "payload_too_large", group: .base),
        Row(status: 422, code: "invalid_template_params", group: .validation),
        Row(status: 429, code: "rate_limited", group: .rateLimit),
        Row(status: 451, code: "recipient_suppressed", group: .base),
        Row(status: 500, code: "internal_error", group: .base),
        Row(status: 502, code: "provider_error", group: .base),
        Row(status: 503, code: "service_unavailable", group: .base),
    ]

    @Test("each row of §7.18 maps code, status, message, docs_url, details and group", arguments: rows)
    func mapsEveryRow(row: Row) async throws {
        let body = TestClient.errorBody(
            row.code, "message for \(row.code)", docs: "https://docs.example/\(row.code)",
            details: #"{"field":"email"}"#)
        let transport = ScriptedTransport([.respond(status: row.status, body: body)])
        let error = try #require(
            await frontmailError { try await TestClient.make(transport, retry: .disabled).send(templateID: "t") })
        #expect(error.code.rawValue == row.code)
        #expect(error.status == row.status)
        #expect(error.message == "message for \(row.code)")
        #expect(error.docsURL.absoluteString == "https://docs.example/\(row.code)")
        #expect(error.details == ["field": "email"])
        let groups: [Group: Bool] = [
            .validation: error.isValidation, .auth: error.isAuth, .credits: error.isInsufficientCredits,
            .rateLimit: error.isRateLimit,
        ]
        for (group, value) in groups {
            #expect(value == (group == row.group), "group \(group.rawValue)")
        }
        #expect(!error.isNetwork && !error.isCancelled)
    }

    @Test("a 504 with an HTML body is internal_error with the built docs URL")
    func htmlGatewayTimeout() async throws {
        let transport = ScriptedTransport([.respond(status: 504, body: "<html><body>Gateway Timeout</body></html>")])
        let error = try #require(
            await frontmailError { try await TestClient.make(transport, retry: .disabled).send(templateID: "t") })
        #expect(error.code == .internalError)
        #expect(error.status == 504)
        #expect(error.message == "Request failed with status 504")
        #expect(error.docsURL.absoluteString == "https://docs.frontmail.dev/reference/errors/#internal-error")
    }

    @Test("a 4xx without an error code is bad_request; an unknown code survives as it came")
    func fallbackAndUnknownCodes() async throws {
        let transport = ScriptedTransport([
            .respond(status: 418, body: "{}"), .respond(status: 400, body: TestClient.errorBody("brand_new_code")),
        ])
        let client = try TestClient.make(transport, retry: .disabled)
        let first = await frontmailError { try await client.send(templateID: "t") }
        let second = await frontmailError { try await client.send(templateID: "t") }
        #expect(first?.code == .badRequest)
        #expect(first?.message == "Request failed with status 418")
        #expect(second?.code.rawValue == "brand_new_code")
        #expect(second?.code.httpStatus == nil)
        #expect(second?.docsURL.absoluteString == "https://docs.frontmail.dev/reference/errors/#brand-new-code")
    }

    struct Unplugged: Error, Equatable {
        var socket: Int32
    }

    @Test(
        "a transport's error is kept as the cause of network_error and timeout; an answer of the API has none",
        arguments: [
            (URLError(.timedOut) as any Error, FrontmailError.Code.timeout),
            (URLError(.networkConnectionLost), .networkError), (URLError(.cancelled), .networkError),
            (Unplugged(socket: 7), .networkError), (CancellationError(), .networkError),
        ])
    func underlyingError(thrown: any Error, code: FrontmailError.Code) async throws {
        let transport = ScriptedTransport([.fail(thrown)])
        let error = try #require(
            await frontmailError { try await TestClient.make(transport, retry: .disabled).send(templateID: "t") })
        #expect(error.code == code)
        let cause = try #require(error.underlyingError)
        #expect(type(of: cause) == type(of: thrown))
        #expect((cause as? URLError)?.code == (thrown as? URLError)?.code)
        #expect((cause as? Unplugged) == (thrown as? Unplugged))
        // The cause is not part of equality: the same error from another cause is equal.
        var other = error
        other.underlyingError = nil
        #expect(other == error && other.hashValue == error.hashValue)

        let answered = ScriptedTransport([.respond(status: 503, body: TestClient.errorBody("service_unavailable"))])
        let fromServer = await frontmailError {
            try await TestClient.make(answered, retry: .disabled).send(templateID: "t")
        }
        #expect(fromServer?.code == .serviceUnavailable && fromServer?.underlyingError == nil)
    }

    @Test("the docs URL replaces every _ with -")
    func docsURL() {
        #expect(FrontmailError.Code.invalidTemplateParams.docsURL.absoluteString.hasSuffix("#invalid-template-params"))
        #expect(
            FrontmailError(code: .timeout, message: "x").docsURL.absoluteString
                == "https://docs.frontmail.dev/reference/errors/#timeout")
    }

    /// Wire contract §3.3, written out independently of the SDK's own table.
    static let contractTable: [Int: [String]] = [
        400: ["bad_request", "invalid_body", "invalid_idempotency_key"],
        401: ["unauthorized", "invalid_public_key", "invalid_private_key"],
        402: ["insufficient_credits"],
        403: [
            "forbidden", "origin_not_allowed", "captcha_required", "captcha_failed", "captcha_not_configured",
            "headless_blocked", "recipient_blocked", "private_key_required", "private_key_in_browser",
            "email_not_verified", "organization_suspended", "plan_limit_reached", "dynamic_recipient_not_allowed",
            "dynamic_recipient_requires_captcha", "dynamic_field_not_allowed", "link_not_allowed",
            "attachments_not_allowed",
        ],
        404: ["not_found", "service_not_found", "template_not_found", "message_not_found"],
        409: ["conflict", "idempotency_conflict"],
        413: ["payload_too_large", "attachment_too_large"],
        422: [
            "invalid_template_params", "translation_not_configured", "translation_invalid", "translation_provider_auth",
            "template_render_failed", "invalid_recipient", "service_unavailable_for_template", "sender_not_configured",
        ],
        429: ["rate_limited", "test_send_limit"],
        451: ["recipient_suppressed"],
        500: ["internal_error"],
        502: ["provider_error", "translation_provider_error"],
        503: ["service_unavailable"],
    ]

    @Test("the client's code → status table equals §3.3 (47 codes)")
    func statusTableMatchesContract() {
        var expected: [String: Int] = [:]
        for (status, codes) in Self.contractTable {
            for code in codes { expected[code] = status }
        }
        let actual = Dictionary(
            uniqueKeysWithValues: FrontmailError.Code.statusTable.map { ($0.key.rawValue, $0.value) })
        #expect(expected.count == 47)
        #expect(actual == expected)
    }

    @Test("every API code has a lowerCamelCase constant")
    func constantsSpellTheirCodes() {
        let constants: [FrontmailError.Code] = [
            .badRequest, .invalidBody, .invalidIdempotencyKey, .unauthorized, .invalidPublicKey, .invalidPrivateKey,
            .insufficientCredits, .forbidden, .originNotAllowed, .captchaRequired, .captchaFailed,
            .captchaNotConfigured,
            .headlessBlocked, .recipientBlocked, .privateKeyRequired, .privateKeyInBrowser, .emailNotVerified,
            .organizationSuspended, .planLimitReached, .dynamicRecipientNotAllowed, .dynamicRecipientRequiresCaptcha,
            .dynamicFieldNotAllowed, .linkNotAllowed, .attachmentsNotAllowed, .notFound, .serviceNotFound,
            .templateNotFound, .messageNotFound, .conflict, .idempotencyConflict, .payloadTooLarge, .attachmentTooLarge,
            .invalidTemplateParams, .translationNotConfigured, .translationInvalid, .translationProviderAuth,
            .templateRenderFailed, .invalidRecipient, .serviceUnavailableForTemplate, .senderNotConfigured,
            .rateLimited, .testSendLimit, .recipientSuppressed, .internalError, .providerError,
            .translationProviderError, .serviceUnavailable,
        ]
        #expect(Set(constants).count == 47)
        #expect(Set(constants) == Set(FrontmailError.Code.statusTable.keys))
        let clientCodes: [FrontmailError.Code] = [.networkError, .timeout, .aborted, .invalidResponse]
        #expect(clientCodes.map(\.rawValue) == ["network_error", "timeout", "aborted", "invalid_response"])
        #expect(clientCodes.allSatisfy { $0.isClientCode && $0.httpStatus == nil })
    }

    @Test("an sk_ key is refused before any request: private_key_in_browser, status nil")
    func privateKeyRefused() throws {
        let transport = ScriptedTransport([TestClient.accepted])
        #expect {
            _ = try Frontmail(publicKey: "sk_live_1", transport: transport)
        } throws: { error in
            guard let error = error as? FrontmailError else { return false }
            return error.code == .privateKeyInBrowser && error.status == nil && error.isAuth
        }
        #expect(transport.count == 0)
    }

    @Test("an empty key or one without pk_ is a clear client error", arguments: ["", "abc", "PK_x", " pk_x"])
    func badPublicKeys(key: String) {
        #expect {
            _ = try Frontmail(publicKey: key)
        } throws: { error in
            guard let error = error as? FrontmailError else { return false }
            return error.code == .invalidPublicKey && error.status == nil && error.message.contains("pk_")
        }
    }

    @Test("the client's defaults are the guide's")
    func defaults() throws {
        let client = try Frontmail(publicKey: "pk_x")
        #expect(client.apiURL.absoluteString == "https://api.frontmail.dev")
        #expect(client.retry == RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10))
        #expect(client.retry.maxRetryAfter == 60)
        #expect(client.timeout == 15)
        #expect((client.transport as? URLSessionTransport)?.session === URLSession.shared)
    }
}
