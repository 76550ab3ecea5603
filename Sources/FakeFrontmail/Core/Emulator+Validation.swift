import Foundation
import Frontmail
import Synchronization

/// What the API checks before it accepts a send: the template, the key, Turnstile, attachments,
/// the locale.
extension Emulator {
    enum Decision {
        case accept(held: Bool, templateID: String, serviceID: String?, locale: String?)
        case reject(ServerResponse)
    }

    func validate(_ claim: SendClaim) -> Decision {
        let body = claim.body
        guard case .string(let templateID)? = body.templateID else {
            return .reject(.error(400, "invalid_body", "template_id is required."))
        }
        guard let template = templates[templateID] else {
            return .reject(.error(404, "template_not_found", "No template \(templateID)."))
        }
        if let params = body.params, !params.isObject {
            return .reject(.error(400, "invalid_body", "template_params must be an object."))
        }
        let missing = body.missing(template.requiredParams)
        if !missing.isEmpty {
            return .reject(
                .error(
                    422, "invalid_template_params", "Missing params: \(missing.joined(separator: ", ")).",
                    details: ["missing": .array(missing.map { .string($0) })]))
        }
        var serviceID: String?
        if case .string(let service)? = body.serviceID {
            if !template.services.isEmpty && !template.services.contains(service) {
                return .reject(.error(404, "service_not_found", "No service \(service) for this template."))
            }
            serviceID = service
        }
        if let rejection = checkTurnstile(template: template, body: body) { return .reject(rejection) }
        var locale: String?
        if case .string(let requested)? = body.locale {
            if requested.contains("_") {
                return .reject(.error(400, "invalid_body", "locale must be a BCP-47 tag (de-AT, not de_AT)."))
            }
            locale = Self.resolveLocale(requested, template: template)
        }
        if let rejection = checkAttachments(body.attachments) { return .reject(rejection) }
        switch config.credits {
        case .reject:
            return .reject(.error(402, "insufficient_credits", "The organization has no credits."))
        case .held:
            return .accept(held: true, templateID: templateID, serviceID: serviceID, locale: locale)
        case .queued:
            return .accept(held: false, templateID: templateID, serviceID: serviceID, locale: locale)
        }
    }

    private func checkTurnstile(template: TemplateConfig, body: SendBody) -> ServerResponse? {
        if let key = body.turnstileKey, key != "org", key != "frontmail" {
            return .error(400, "invalid_body", "turnstile_key must be \"org\" or \"frontmail\".")
        }
        guard template.turnstile else { return nil }
        guard config.turnstileConfigured else {
            return .error(403, "captcha_not_configured", "The template needs Turnstile but no keys are configured.")
        }
        guard case .string(let token)? = body.turnstileToken, !token.isEmpty else {
            return .error(403, "captcha_required", "This template requires a Turnstile token.")
        }
        if config.badTurnstileTokens.contains(token) {
            return .error(403, "captcha_failed", "The Turnstile token was not accepted.")
        }
        return nil
    }

    private func checkAttachments(_ value: FrontmailValue?) -> ServerResponse? {
        guard let value else { return nil }
        guard case .array(let items) = value else {
            return .error(400, "invalid_body", "attachments must be an array.")
        }
        for item in items {
            if case .string(let id)? = item["upload_id"] {
                let known = state.withLock { $0.uploads.contains(id) }
                if !known { return .error(404, "not_found", "No upload \(id).") }
            } else if case .string(let base64)? = item["content_base64"] {
                let decodedSize = base64.utf8.count / 4 * 3
                if decodedSize > config.maxAttachmentBytes {
                    return .error(
                        413, "attachment_too_large", "An attachment is larger than \(config.maxAttachmentBytes) bytes.")
                }
            } else {
                return .error(400, "invalid_body", "Each attachment has upload_id or content_base64.")
            }
        }
        return nil
    }

    /// Exact tag → same base language → the template's default (nil = default).
    static func resolveLocale(_ requested: String, template: TemplateConfig) -> String? {
        guard !template.locales.isEmpty else { return nil }
        if let exact = template.locales.first(where: { $0.caseInsensitiveCompare(requested) == .orderedSame }) {
            return exact
        }
        let base = requested.split(separator: "-").first.map(String.init) ?? requested
        if let sameBase = template.locales.first(where: { $0.caseInsensitiveCompare(base) == .orderedSame }) {
            return sameBase
        }
        return template.defaultLocale
    }
}
