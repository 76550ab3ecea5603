import Foundation

/// Pure helpers for showing Cloudflare Turnstile in a web view: the widget page, its messages, a
/// navigation guard and the origin check. The web view itself lives in the app (no WebKit here).
public enum Turnstile {
    /// The name of the script message handler the widget page posts to.
    public static let messageHandlerName = "frontmailTurnstile"

    /// The `source` every message of the widget page carries.
    static let messageSource = "frontmail-turnstile"

    static let challengesOrigin = "https://challenges.cloudflare.com"

    /// A site key and the page URL to render it with.
    public struct Widget: Sendable, Hashable {
        public var siteKey: String
        /// The address the inline page pretends to have; nothing is loaded from it.
        public var baseURL: URL
        /// What to pass as `SendOptions.turnstileKey` with tokens of this widget (nil for
        /// Frontmail's shared mobile key, `.org` for your own).
        public var turnstileKey: TurnstileKey?

        public init(siteKey: String, baseURL: URL, turnstileKey: TurnstileKey?) {
            self.siteKey = siteKey
            self.baseURL = baseURL
            self.turnstileKey = turnstileKey
        }

        /// Your own Turnstile widget: `baseURL`'s hostname must be one of the widget's hostnames.
        public static func custom(siteKey: String, baseURL: URL) -> Widget {
            Widget(siteKey: siteKey, baseURL: baseURL, turnstileKey: .org)
        }
    }

    public enum Theme: String, Sendable, Hashable, CaseIterable {
        case auto
        case light
        case dark
    }

    public enum Size: String, Sendable, Hashable, CaseIterable {
        /// 300 × 70.
        case normal
        /// 100 % wide × 70.
        case flexible
        /// 150 × 140.
        case compact

        /// The height the web view needs, in points.
        public var recommendedHeight: Double {
            switch self {
            case .normal, .flexible: return 70
            case .compact: return 140
            }
        }
    }

    /// A message from the widget page.
    public enum Message: Sendable, Hashable {
        /// A token to send with `SendOptions(turnstileToken:)`; it works once, for about 5 minutes.
        case token(String)
        /// The token expired: ask for a new one.
        case expired
        /// Turnstile failed; `code` is Cloudflare's error code (or `script_load_failed`).
        case error(code: String?)
    }

    /// What to do with a navigation of the web view.
    public enum NavigationAction: Sendable, Hashable {
        case allow
        case cancel
        /// Cancel it in the web view and open the URL in the system browser.
        case openExternally(URL)
    }

    /// JavaScript that resets the widget, for a new token after every send.
    public static let resetScript =
        "if (window.turnstile && window.__frontmailTurnstileWidgetId !== undefined) { "
        + "window.turnstile.reset(window.__frontmailTurnstileWidgetId); }"

    /// The Frontmail shared mobile widget, from `GET /v1/public-config` (read once per base URL).
    ///
    /// - Throws: `captcha_failed` with `details.reason == "not_configured"` when the API has no
    ///   mobile site key or base URL; the request's own errors otherwise (failures are not cached).
    public static func widget(client: Frontmail) async throws -> Widget {
        let config = try await PublicConfigCache.shared.config(for: client)
        guard let siteKey = config.mobileSiteKey, let baseURL = config.mobileBaseURL else {
            throw FrontmailError(
                code: .captchaFailed,
                message: "Frontmail's mobile Turnstile key is not configured for this API.",
                details: ["reason": "not_configured"])
        }
        return Widget(siteKey: siteKey, baseURL: baseURL, turnstileKey: nil)
    }

    /// Validates a message body from the widget page; nil for anything that is not one.
    public static func parseMessage(_ body: Any) -> Message? {
        let text: String
        if let string = body as? String {
            text = string
        } else if let string = body as? NSString {
            text = string as String
        } else {
            return nil
        }
        guard case .object(let fields)? = try? JSONReader.parse(text),
            fields["source"] == .string(messageSource), case .string(let type)? = fields["type"]
        else { return nil }
        switch type {
        case "token":
            guard case .string(let token)? = fields["token"], !token.isEmpty, token.utf16.count <= 4096 else {
                return nil
            }
            return .token(token)
        case "expired":
            return .expired
        case "error":
            switch fields["code"] {
            case nil, .null?: return .error(code: nil)
            case .string(let code)? where code.utf16.count <= 64: return .error(code: code.isEmpty ? nil : code)
            default: return nil
            }
        default:
            return nil
        }
    }

    /// Keeps the top frame on the widget page: see the wire contract §5.4 for the rules.
    public static func navigationAction(url: URL?, baseURL: URL, isTopFrame: Bool?) -> NavigationAction {
        if isTopFrame == false { return .allow }
        guard let url else { return .cancel }
        let text = url.absoluteString
        let lower = text.lowercased()
        if lower == "about:blank" || lower.hasPrefix("about:srcdoc") { return .allow }
        if let origin = origin(of: text),
            origin == Self.origin(of: baseURL.absoluteString) || origin == challengesOrigin
        {
            return .allow
        }
        if lower.hasPrefix("https://") { return .openExternally(url) }
        return .cancel
    }

    /// Whether a message came from the widget page: its origin must equal `baseURL`'s.
    public static func isTrustedMessageOrigin(_ url: URL?, baseURL: URL) -> Bool {
        guard let url, let origin = origin(of: url.absoluteString) else { return false }
        return origin == Self.origin(of: baseURL.absoluteString)
    }

    /// Lower-cased `scheme://host[:port]` (user info and default ports dropped); nil without `//`.
    static func origin(of text: String) -> String? {
        guard let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = text[..<colon].lowercased()
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            return nil
        }
        let rest = text[text.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let afterSlashes = rest.dropFirst(2)
        var authority = afterSlashes.prefix { $0 != "/" && $0 != "?" && $0 != "#" }.lowercased()
        if let at = authority.lastIndex(of: "@") { authority = String(authority[authority.index(after: at)...]) }
        if (scheme == "https" && authority.hasSuffix(":443")) || (scheme == "http" && authority.hasSuffix(":80")) {
            authority = String(authority[..<authority.lastIndex(of: ":")!])
        }
        guard !authority.isEmpty else { return nil }
        return scheme + "://" + authority
    }
}
