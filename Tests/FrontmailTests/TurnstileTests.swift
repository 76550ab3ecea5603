import Foundation
import Testing

@testable import Frontmail

@Suite("Turnstile helpers (§5, §7.27-7.28)")
struct TurnstileTests {
    static let base = URL(string: "https://Example.com/form")!

    @Test("the widget page embeds site key, theme, size, language, handler and script URL")
    func page() {
        let html = Turnstile.html(
            siteKey: "0x4AAA", theme: .dark, size: .compact, action: "contact_form", language: "de")
        #expect(html.contains(#"<meta charset="utf-8">"#))
        #expect(html.contains("width=device-width"))
        #expect(html.contains("user-scalable=no"))
        #expect(html.contains("background: transparent"))
        #expect(
            html.contains(
                "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit&onload=__frontmailTurnstileRender"
            ))
        #expect(html.contains(#""sitekey":"0x4AAA""#))
        #expect(html.contains(#""theme":"dark""#))
        #expect(html.contains(#""size":"compact""#))
        #expect(html.contains(#""language":"de""#))
        #expect(html.contains(#""action":"contact_form""#))
        #expect(html.contains(#""frontmailTurnstile""#))
        #expect(html.contains("__frontmailTurnstileWidgetId"))
        #expect(html.contains("script_load_failed"))
        #expect(html.contains(#""frontmail-turnstile""#))
    }

    @Test("defaults: theme auto, size normal, language auto, no action")
    func pageDefaults() {
        let html = Turnstile.html(siteKey: "k")
        #expect(html.contains(#""theme":"auto""#))
        #expect(html.contains(#""size":"normal""#))
        #expect(html.contains(#""language":"auto""#))
        #expect(!html.contains(#""action""#))
    }

    @Test("a site key cannot close the script element: <, U+2028 and U+2029 are escaped")
    func pageEscaping() {
        let html = Turnstile.html(siteKey: "</script><script>alert(1)</script>\u{2028}\u{2029}")
        #expect(!html.contains("</script><script>alert"))
        #expect(html.contains(#"\u003c/script\u003e"#))
        #expect(html.contains(#"\u2028\u2029"#))
        #expect(!html.contains("\u{2028}"))
        let scriptCloses = html.components(separatedBy: "</script>").count - 1
        #expect(scriptCloses == 2)
    }

    @Test("the reset script resets the stored widget id")
    func resetScript() {
        #expect(Turnstile.resetScript.contains("turnstile.reset(window.__frontmailTurnstileWidgetId)"))
        #expect(Turnstile.messageHandlerName == "frontmailTurnstile")
    }

    @Test(
        "messages that parse",
        arguments: [
            (#"{"source":"frontmail-turnstile","type":"token","token":"abc"}"#, Turnstile.Message.token("abc")),
            (#"{"source":"frontmail-turnstile","type":"expired"}"#, .expired),
            (#"{"source":"frontmail-turnstile","type":"error","code":"110200"}"#, .error(code: "110200")),
            (#"{"source":"frontmail-turnstile","type":"error","code":""}"#, .error(code: nil)),
            (#"{"source":"frontmail-turnstile","type":"error"}"#, .error(code: nil)),
            (
                #"{"source":"frontmail-turnstile","type":"token","token":"\#(String(repeating: "t", count: 4096))"}"#,
                .token(String(repeating: "t", count: 4096))
            ),
        ])
    func validMessages(text: String, expected: Turnstile.Message) {
        #expect(Turnstile.parseMessage(text) == expected)
        #expect(Turnstile.parseMessage(NSString(string: text)) == expected)
    }

    @Test(
        "messages that are dropped",
        arguments: [
            "not json", "[]", "null", "42", #"{"type":"token","token":"abc"}"#,
            #"{"source":"other","type":"token","token":"abc"}"#, #"{"source":"frontmail-turnstile","type":"mystery"}"#,
            #"{"source":"frontmail-turnstile","type":"token"}"#,
            #"{"source":"frontmail-turnstile","type":"token","token":""}"#,
            #"{"source":"frontmail-turnstile","type":"token","token":5}"#,
            #"{"source":"frontmail-turnstile","type":"token","token":"\#(String(repeating: "t", count: 4097))"}"#,
            #"{"source":"frontmail-turnstile","type":"error","code":7}"#,
            #"{"source":"frontmail-turnstile","type":"error","code":"\#(String(repeating: "c", count: 65))"}"#,
            #"{"source":"Frontmail-Turnstile","type":"expired"}"#,
        ])
    func droppedMessages(text: String) {
        #expect(Turnstile.parseMessage(text) == nil)
    }

    @Test("a body that is not a string is dropped")
    func nonStringBody() {
        #expect(Turnstile.parseMessage(["source": "frontmail-turnstile", "type": "expired"]) == nil)
        #expect(Turnstile.parseMessage(42) == nil)
    }

    @Test(
        "navigation vectors of §5.4",
        arguments: [
            ("https://example.com/form", true as Bool?, Turnstile.NavigationAction.allow),
            ("https://challenges.cloudflare.com/cdn-cgi/challenge-platform/x", true, .allow),
            ("https://evil.example/anything", false, .allow),
            ("about:blank", true, .allow),
            ("about:srcdoc", true, .allow),
            (
                "https://www.cloudflare.com/privacypolicy/", true,
                .openExternally(URL(string: "https://www.cloudflare.com/privacypolicy/")!)
            ),
            (
                "HTTPS://www.cloudflare.com/terms", nil,
                .openExternally(URL(string: "HTTPS://www.cloudflare.com/terms")!)
            ),
            ("javascript:alert(1)", true, .cancel),
            ("intent://x", true, .cancel),
            ("http://example.com/form", true, .cancel),
            ("data:text/html,hi", nil, .cancel),
            ("https://example.com:8443/form", true, .openExternally(URL(string: "https://example.com:8443/form")!)),
        ])
    func navigation(url: String, isTopFrame: Bool?, expected: Turnstile.NavigationAction) {
        #expect(
            Turnstile.navigationAction(url: URL(string: url), baseURL: Self.base, isTopFrame: isTopFrame) == expected)
    }

    @Test("a nil URL in the top frame is cancelled")
    func nilNavigation() {
        #expect(Turnstile.navigationAction(url: nil, baseURL: Self.base, isTopFrame: true) == .cancel)
    }

    @Test(
        "trusted message origins",
        arguments: [
            ("https://example.com/form", true), ("https://EXAMPLE.com/other?x", true),
            ("https://example.com:443/", true),
            ("https://example.com:444/", false), ("http://example.com/form", false),
            ("https://sub.example.com/", false),
            ("about:blank", false), ("javascript:alert(1)", false), ("https://user@example.com/", true),
        ])
    func trustedOrigins(url: String, trusted: Bool) {
        #expect(Turnstile.isTrustedMessageOrigin(URL(string: url), baseURL: Self.base) == trusted)
        #expect(Turnstile.isTrustedMessageOrigin(nil, baseURL: Self.base) == false)
    }

    @Test("sizes, themes and the custom widget")
    func valuesAndCustomWidget() {
        #expect(Turnstile.Size.allCases.map(\.recommendedHeight) == [70, 70, 140])
        #expect(Turnstile.Theme.allCases.map(\.rawValue) == ["auto", "light", "dark"])
        let widget = Turnstile.Widget.custom(siteKey: "k", baseURL: URL(string: "https://example.com")!)
        #expect(widget.turnstileKey == .org)
        #expect(SendOptions(turnstileToken: "t", turnstileKey: widget.turnstileKey).turnstileKey == .org)
    }
}

@Suite("Turnstile.widget(client:) and the public config cache (§2.4, §7.26)")
struct TurnstileWidgetTests {
    static let config = #"{"turnstile":{"mobileSiteKey":"0xSHARED","mobileBaseUrl":"https://mobile.frontmail.dev"}}"#

    /// Every test uses its own host: the cache lives for the whole process, per base URL.
    private func makeClient(_ transport: ScriptedTransport, host: String) throws -> Frontmail {
        try TestClient.make(transport, base: URL(string: "https://\(host).test/")!)
    }

    @Test("two concurrent calls plus a later one make one GET; another base URL makes its own")
    func sharedAndCached() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: Self.config)])
        let client = try makeClient(transport, host: "cache-shared")
        async let first = Turnstile.widget(client: client)
        async let second = Turnstile.widget(client: client)
        let (a, b) = try await (first, second)
        let c = try await Turnstile.widget(client: client)
        #expect(a == b && b == c)
        #expect(a.siteKey == "0xSHARED")
        #expect(a.baseURL.absoluteString == "https://mobile.frontmail.dev")
        #expect(a.turnstileKey == nil)
        #expect(transport.count == 1)
        let request = try #require(transport.requests.first?.request)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://cache-shared.test/v1/public-config")
        #expect(request.headers["X-Frontmail-Client"] != nil)
        #expect(request.headers["Content-Type"] == nil)

        // The trailing slash is normalised: same cache entry.
        let sameBase = try TestClient.make(transport, base: URL(string: "https://cache-shared.test")!)
        _ = try await Turnstile.widget(client: sameBase)
        #expect(transport.count == 1)

        let other = ScriptedTransport([.respond(status: 200, body: Self.config)])
        _ = try await Turnstile.widget(client: try makeClient(other, host: "cache-other"))
        #expect(other.count == 1)
    }

    @Test("failures are not cached: network error, 503, {} then a cached success (five calls, four requests)")
    func failuresNotCached() async throws {
        let transport = ScriptedTransport([
            .fail(URLError(.notConnectedToInternet)),
            .respond(status: 503, body: TestClient.errorBody("service_unavailable")),
            .respond(status: 200, body: "{}"),
            .respond(status: 200, body: Self.config),
        ])
        let client = try makeClient(transport, host: "cache-failures")
        var codes: [FrontmailError.Code?] = []
        for _ in 0..<3 {
            codes.append(await frontmailError { _ = try await Turnstile.widget(client: client) }?.code)
        }
        #expect(codes == [.networkError, .serviceUnavailable, .invalidResponse])
        _ = try await Turnstile.widget(client: client)
        _ = try await Turnstile.widget(client: client)
        #expect(transport.count == 4)
    }

    @Test("the public config request is not retried")
    func notRetried() async throws {
        let transport = ScriptedTransport([.respond(status: 503)])
        let client = try makeClient(transport, host: "cache-no-retry")
        _ = await frontmailError { _ = try await Turnstile.widget(client: client) }
        #expect(transport.count == 1)
    }

    @Test(
        "a missing mobileBaseUrl or site key is captcha_failed with reason not_configured",
        arguments: [
            #"{"turnstile":{"mobileSiteKey":"k","mobileBaseUrl":null}}"#, #"{"turnstile":{"mobileSiteKey":null}}"#,
            #"{"turnstile":{"mobileSiteKey":"","mobileBaseUrl":"https://m.test"}}"#,
        ])
    func notConfigured(body: String) async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: body)])
        let client = try makeClient(transport, host: "cache-nc-\(body.utf8.count)")
        let error = await frontmailError { _ = try await Turnstile.widget(client: client) }
        #expect(error?.code == .captchaFailed)
        #expect(error?.details?["reason"] == "not_configured")
    }

    @Test("the parsed config keeps nulls as nil")
    func parsesNulls() throws {
        let response = FrontmailHTTPResponse(
            status: 200, body: Data(#"{"turnstile":{"mobileSiteKey":"k","mobileBaseUrl":null},"extra":1}"#.utf8))
        let config = try PublicConfig.parse(response)
        #expect(config.mobileSiteKey == "k")
        #expect(config.mobileBaseURL == nil)
        #expect(throws: FrontmailError.self) {
            try PublicConfig.parse(FrontmailHTTPResponse(status: 200, body: Data(#"{"turnstile":5}"#.utf8)))
        }
    }
}
