import Foundation
// The guide's snippets, as an app would write them: only the public API (no @testable).
import Frontmail
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The guide's own code, compiled unchanged against the package and run against a transport double.
@Suite("the guide's snippets compile and behave")
struct GuideSnippetTests {
    struct Contact: Encodable {
        let email: String
        let message: String
    }

    final class Canned: FrontmailTransport {
        func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse {
            if request.method == "GET" {
                return FrontmailHTTPResponse(
                    status: 200,
                    body: Data(
                        #"{"message_id":"msg_1","status":"sent","created_at":"2026-11-30T08:00:00Z","events":[{"type":"accepted","at":"2026-11-30T08:00:00Z"},{"type":"sent","at":"2026-11-30T08:00:01Z"}]}"#
                            .utf8))
            }
            if request.body.map({ String(decoding: $0, as: UTF8.self).contains("tpl_limited") }) == true {
                return FrontmailHTTPResponse(
                    status: 429, headers: ["Retry-After": "120"],
                    body: Data(#"{"error":{"code":"rate_limited","message":"Slow down"}}"#.utf8))
            }
            return FrontmailHTTPResponse(
                status: 202, body: Data(#"{"message_id":"msg_1","status":"held","status_token":"tok_1"}"#.utf8))
        }
    }

    @Test("creating the client with every documented option")
    func initializers() throws {
        let plain = try Frontmail(publicKey: "pk_4f2a…")
        let full = try Frontmail(
            publicKey: "pk_4f2a…",
            apiURL: URL(string: "https://api.frontmail.dev")!,  // default
            retry: RetryPolicy(maxRetries: 3, baseDelay: 0.3, maxDelay: 10),  // default; .disabled = no retries
            timeout: 15,  // seconds per attempt (default)
            session: .shared  // URLSession (default)
        )
        #expect(plain.retry == full.retry && plain.timeout == full.timeout && plain.apiURL == full.apiURL)
        let noRetries = try Frontmail(publicKey: "pk_x", retry: .disabled)
        #expect(noRetries.retry.maxRetries == 0)
    }

    @Test("send, Encodable params, options with attachments and locale, status, errors")
    func sendingSnippets() async throws {
        let frontmail = try Frontmail(publicKey: "pk_4f2a…", transport: Canned())
        let email = "jan@example.com"
        let message = "Hello!"
        let token = "turnstile-token"
        let pdfData = Data("%PDF-1.7".utf8)

        let result = try await frontmail.send(
            templateID: "tpl_contact",
            params: ["email": "jan@example.com", "message": "Hello!", "qty": 2, "items": [["sku": "A-1"]]],
            serviceID: "svc_01J9…"  // optional – nil uses the template's default service
        )
        var held = false
        if result.status == .held {
            held = true
        }
        #expect(held)

        let params: [String: FrontmailValue] = ["email": .string(email), "message": .string(message)]
        try await frontmail.send(templateID: "tpl_contact", params: Contact(email: email, message: message))

        try await frontmail.send(
            templateID: "tpl_order",
            params: ["order": "1042"],
            options: SendOptions(
                turnstileToken: token,
                attachments: [
                    .data(pdfData, filename: "invoice.pdf", contentType: "application/pdf"),
                    .upload(id: "upl_…"),  // uploaded earlier via POST /v1/uploads
                ]
            )
        )
        let localized = try await frontmail.send(
            templateID: "tpl_contact", params: params, options: SendOptions(locale: "de-AT"))
        #expect(localized.locale == nil)

        let status = try await frontmail.status(messageID: result.messageID, statusToken: result.statusToken)
        #expect("\(status.status)" == "sent")
        #expect(status.events.map(\.type) == ["accepted", "sent"])

        var shown = ""
        func show(_ text: String) { shown = text }
        do {
            try await frontmail.send(templateID: "tpl_limited", params: params)
        } catch let error as FrontmailError where error.isRateLimit {
            show("Too many messages – try again in \(Int(error.retryAfter ?? 60)) s.")
        } catch let error as FrontmailError where error.code == .originNotAllowed {
            show("Turn on Security → Mobile apps → Allow mobile apps in the dashboard.")
        } catch let error as FrontmailError {
            show(error.message)
        }
        #expect(shown == "Too many messages – try again in 120 s.")
    }

    @Test("the Turnstile pieces of the SwiftUI example")
    func turnstileSnippets() async throws {
        let widget = Turnstile.Widget.custom(
            siteKey: "YOUR_TURNSTILE_SITE_KEY", baseURL: URL(string: "https://example.com")!)
        let theme: Turnstile.Theme = .auto
        let size: Turnstile.Size = .normal
        let page = Turnstile.html(siteKey: widget.siteKey, theme: theme, size: size)
        #expect(page.contains("YOUR_TURNSTILE_SITE_KEY"))
        #expect(Turnstile.Size.flexible.recommendedHeight == 70)
        #expect(!Turnstile.resetScript.isEmpty && Turnstile.messageHandlerName == "frontmailTurnstile")

        let body: Any = #"{"source":"frontmail-turnstile","type":"token","token":"t1"}"#
        var token: String?
        var info = ""
        if Turnstile.isTrustedMessageOrigin(URL(string: "https://example.com/"), baseURL: widget.baseURL),
            let parsed = Turnstile.parseMessage(body)
        {
            switch parsed {
            case let .token(t): token = t
            case .expired: token = nil
            case let .error(code): info = "Turnstile error \(code ?? "")"
            }
        }
        #expect(token == "t1" && info.isEmpty)

        var opened: URL?
        switch Turnstile.navigationAction(
            url: URL(string: "https://www.cloudflare.com/privacypolicy/"), baseURL: widget.baseURL, isTopFrame: nil)
        {
        case .allow: break
        case .cancel: break
        case let .openExternally(url): opened = url
        }
        #expect(opened?.host == "www.cloudflare.com")

        let options = SendOptions(turnstileToken: token, turnstileKey: widget.turnstileKey)
        #expect(options.turnstileKey == .org)
    }
}

@Suite("privacy manifest")
struct PrivacyManifestTests {
    @Test("PrivacyInfo.xcprivacy ships with the library and declares no tracking, data or reason APIs")
    func manifest() throws {
        let url = try #require(frontmailResourceBundle().url(forResource: "PrivacyInfo", withExtension: "xcprivacy"))
        let plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil)
        let dictionary = try #require(plist as? [String: Any])
        #expect(dictionary["NSPrivacyTracking"] as? Bool == false)
        #expect((dictionary["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true)
        #expect((dictionary["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true)
        #expect((dictionary["NSPrivacyAccessedAPITypes"] as? [Any])?.isEmpty == true)
    }
}
