import Foundation

/// How the emulated Frontmail API behaves when nothing is wrong. Every field has a default, so
/// `EmulatorConfig()` is a working API with a few templates.
public struct EmulatorConfig: Sendable, Hashable, Codable {
    public enum CreditsMode: String, Sendable, Hashable, Codable, CaseIterable, InputChoice {
        /// Sends are accepted for delivery.
        case queued
        /// Sends are accepted as `held` (waiting for credits).
        case held
        /// Sends are refused with 402 `insufficient_credits`.
        case reject
    }

    /// Public keys that are accepted; empty accepts any `pk_` key (it must still equal `user_id`).
    public var publicKeys: [String] = []
    /// Whether requests without `Origin` (native apps) are accepted.
    public var allowMobileApps: Bool = true
    /// Origins accepted from websites; empty accepts any.
    public var allowedOrigins: [String] = []
    public var templates: [TemplateConfig] = TemplateConfig.defaults
    public var credits: CreditsMode = .queued
    /// Whether the organisation has Turnstile keys (false → `captcha_not_configured`).
    public var turnstileConfigured: Bool = true
    /// Tokens that fail verification (`captcha_failed`); any other non-empty token passes.
    public var badTurnstileTokens: [String] = ["bad-token"]
    /// The largest attachment (decoded bytes).
    public var maxAttachmentBytes: Int = 10_000_000
    /// Upload ids that exist from the start (more are made by `POST /v1/uploads`).
    public var uploads: [String] = ["upl_preset"]
    /// What `GET /v1/public-config` answers (nil is sent as null).
    public var mobileSiteKey: String? = "0x4AAAAAAAFakeMobileKey"
    public var mobileBaseURL: String? = "https://mobile.frontmail.dev"
    /// When a queued message moves on: to `sending`, `sent` and `delivered`, after creation.
    public var lifecycle: Lifecycle = Lifecycle()

    public struct Lifecycle: Sendable, Hashable, Codable {
        public var sending: TimeSpan = .milliseconds(20)
        public var sent: TimeSpan = .milliseconds(50)
        public var delivered: TimeSpan = .milliseconds(200)

        public init(
            sending: TimeSpan = .milliseconds(20), sent: TimeSpan = .milliseconds(50),
            delivered: TimeSpan = .milliseconds(200)
        ) {
            self.sending = sending
            self.sent = sent
            self.delivered = delivered
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.strictContainer(["sending", "sent", "delivered"])
            let defaults = Lifecycle()
            sending = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("sending")) ?? defaults.sending
            sent = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("sent")) ?? defaults.sent
            delivered = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("delivered")) ?? defaults.delivered
        }
    }

    public init() {}

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case publicKeys, allowMobileApps, allowedOrigins, templates, credits, turnstileConfigured, badTurnstileTokens
        case maxAttachmentBytes, uploads, mobileSiteKey, mobileBaseURL, lifecycle
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer(keyedBy: CodingKeys.self)
        let defaults = EmulatorConfig()
        publicKeys = try container.decodeIfPresent([String].self, forKey: .publicKeys) ?? defaults.publicKeys
        allowMobileApps = try container.decodeIfPresent(Bool.self, forKey: .allowMobileApps) ?? defaults.allowMobileApps
        allowedOrigins =
            try container.decodeIfPresent([String].self, forKey: .allowedOrigins) ?? defaults.allowedOrigins
        templates = try container.decodeIfPresent([TemplateConfig].self, forKey: .templates) ?? defaults.templates
        credits = try container.decodeIfPresent(CreditsMode.self, forKey: .credits) ?? defaults.credits
        turnstileConfigured =
            try container.decodeIfPresent(Bool.self, forKey: .turnstileConfigured) ?? defaults.turnstileConfigured
        badTurnstileTokens =
            try container.decodeIfPresent([String].self, forKey: .badTurnstileTokens) ?? defaults.badTurnstileTokens
        maxAttachmentBytes =
            try container.integer(Int.self, .maxAttachmentBytes) ?? defaults.maxAttachmentBytes
        uploads = try container.decodeIfPresent([String].self, forKey: .uploads) ?? defaults.uploads
        mobileSiteKey =
            container.contains(.mobileSiteKey)
            ? try container.decodeIfPresent(String.self, forKey: .mobileSiteKey) : defaults.mobileSiteKey
        mobileBaseURL =
            container.contains(.mobileBaseURL)
            ? try container.decodeIfPresent(String.self, forKey: .mobileBaseURL) : defaults.mobileBaseURL
        lifecycle = try container.decodeIfPresent(Lifecycle.self, forKey: .lifecycle) ?? defaults.lifecycle
    }

    public func validate(path: String = "") throws(InputError) {
        func sub(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }
        var seen: Set<String> = []
        for (index, template) in templates.enumerated() {
            let here = sub("templates") + "[\(index)]"
            if template.id.isEmpty { throw InputError(path: here + ".id", reason: "must not be empty") }
            if !seen.insert(template.id).inserted {
                throw InputError(path: here + ".id", reason: "'\(template.id)' is listed twice")
            }
            if let locale = template.defaultLocale, !template.locales.isEmpty, !template.locales.contains(locale) {
                throw InputError(path: here + ".defaultLocale", reason: "'\(locale)' is not one of locales")
            }
        }
        try InputError.check(maxAttachmentBytes, in: 0...1_073_741_824, sub("maxAttachmentBytes"))
        for (name, span) in [
            ("sending", lifecycle.sending), ("sent", lifecycle.sent), ("delivered", lifecycle.delivered),
        ] {
            try InputError.check(span, sub("lifecycle") + "." + name)
        }
    }
}

/// One template of the emulated API.
public struct TemplateConfig: Sendable, Hashable, Codable {
    public var id: String
    /// Params that must be present (else 422 `invalid_template_params`).
    public var requiredParams: [String] = []
    /// Whether a Turnstile token is required.
    public var turnstile: Bool = false
    /// The template's languages (BCP-47); empty means a single default language.
    public var locales: [String] = []
    public var defaultLocale: String?
    /// Service ids the template may use; empty accepts any.
    public var services: [String] = []

    public init(
        id: String, requiredParams: [String] = [], turnstile: Bool = false, locales: [String] = [],
        defaultLocale: String? = nil, services: [String] = []
    ) {
        self.id = id
        self.requiredParams = requiredParams
        self.turnstile = turnstile
        self.locales = locales
        self.defaultLocale = defaultLocale
        self.services = services
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "id", "requiredParams", "turnstile", "locales", "defaultLocale", "services",
        ])
        id = try container.decode(String.self, forKey: AnyKey("id"))
        requiredParams = try container.decodeIfPresent([String].self, forKey: AnyKey("requiredParams")) ?? []
        turnstile = try container.decodeIfPresent(Bool.self, forKey: AnyKey("turnstile")) ?? false
        locales = try container.decodeIfPresent([String].self, forKey: AnyKey("locales")) ?? []
        defaultLocale = try container.decodeIfPresent(String.self, forKey: AnyKey("defaultLocale"))
        services = try container.decodeIfPresent([String].self, forKey: AnyKey("services")) ?? []
    }

    /// `tpl_contact` (email required), `tpl_order`, `tpl_locked` (Turnstile), `tpl_i18n` (en, de,
    /// fr, pt-BR; default en), `tpl_bench` (no requirements; what the load suite sends).
    public static let defaults: [TemplateConfig] = [
        TemplateConfig(id: "tpl_contact", requiredParams: ["email"]),
        TemplateConfig(id: "tpl_order"),
        TemplateConfig(id: "tpl_locked", turnstile: true),
        TemplateConfig(id: "tpl_i18n", locales: ["en", "de", "fr", "pt-BR"], defaultLocale: "en"),
        TemplateConfig(id: "tpl_bench"),
    ]
}
