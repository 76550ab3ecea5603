import Foundation

extension Turnstile {
    /// The script Cloudflare serves; the page renders explicitly once it has loaded.
    static let scriptURL =
        "https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit&onload=__frontmailTurnstileRender"

    /// The inline widget page. Load it with `baseURL` = `widget.baseURL`.
    ///
    /// Every embedded value is JSON with `<`, `>`, `&`, U+2028 and U+2029 escaped, so no value can
    /// end the script element. Messages go to the `frontmailTurnstile` script message handler.
    public static func html(
        siteKey: String, theme: Theme = .auto, size: Size = .normal, action: String? = nil, language: String = "auto"
    ) -> String {
        var config: [String: FrontmailValue] = [
            "sitekey": .string(siteKey),
            "theme": .string(theme.rawValue),
            "size": .string(size.rawValue),
            "language": .string(language.isEmpty ? "auto" : language),
        ]
        if let action, !action.isEmpty { config["action"] = .string(action) }
        let configJSON = scriptSafeJSON(.object(config))
        let handler = scriptSafeJSON(.string(messageHandlerName))
        let source = scriptSafeJSON(.string(messageSource))
        return """
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1, maximum-scale=1, user-scalable=no">
            <style>
            html, body { margin: 0; padding: 0; background: transparent; }
            #frontmail-turnstile { display: flex; justify-content: center; }
            </style>
            </head>
            <body>
            <div id="frontmail-turnstile"></div>
            <script>
            (function () {
              var config = \(configJSON);
              var handler = \(handler);
              function post(message) {
                message.source = \(source);
                try { window.webkit.messageHandlers[handler].postMessage(JSON.stringify(message)); } catch (e) {}
              }
              config.callback = function (token) { post({ type: "token", token: token }); };
              config["error-callback"] = function (code) {
                post({ type: "error", code: code === undefined || code === null ? "" : String(code) });
                return true;
              };
              config["expired-callback"] = function () { post({ type: "expired" }); };
              window.__frontmailTurnstileRender = function () {
                window.__frontmailTurnstileWidgetId = window.turnstile.render("#frontmail-turnstile", config);
              };
              window.__frontmailTurnstileLoadFailed = function () { post({ type: "error", code: "script_load_failed" }); };
            })();
            </script>
            <script src="\(scriptURL)" async defer onerror="__frontmailTurnstileLoadFailed()"></script>
            </body>
            </html>
            """
    }

    /// JSON that is safe inside a `<script>` element.
    static func scriptSafeJSON(_ value: FrontmailValue) -> String {
        var writer = JSONWriter()
        writer.writeLenient(value)
        var result = ""
        result.reserveCapacity(writer.count)
        for scalar in writer.string.unicodeScalars {
            switch scalar {
            case "<": result += "\\u003c"
            case ">": result += "\\u003e"
            case "&": result += "\\u0026"
            case "\u{2028}": result += "\\u2028"
            case "\u{2029}": result += "\\u2029"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
