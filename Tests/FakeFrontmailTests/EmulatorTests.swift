import Foundation
import Frontmail
import Synchronization
import Testing

@testable import FakeFrontmail

@Suite("API emulator semantics")
struct EmulatorTests {
    let emulator = Emulator(now: { 0 })

    @Test("a valid send is accepted with 202 and a message id, status and status token")
    func accepts() throws {
        let answer = emulator.handle(Requests.send())
        #expect(answer.status == 202)
        let json = try #require(answer.json)
        #expect(json["message_id"] == "msg_1")
        #expect(json["status"] == "queued")
        #expect(json["status_token"]?.stringValue?.hasPrefix("stk_") == true)
        #expect(json["locale"] == nil)
        #expect(emulator.committedCount == 1)
    }

    @Test("a status token is stk_ and the value's 16 hex digits, most significant first")
    func statusTokenDigits() {
        #expect(Emulator.statusToken(0) == "stk_0000000000000000")
        #expect(Emulator.statusToken(0x0123_4567_89AB_CDEF) == "stk_0123456789abcdef")
        #expect(Emulator.statusToken(.max) == "stk_ffffffffffffffff")
    }

    @Test("a completed duplicate replays the original status and body, with no second effect")
    func replay() {
        let first = emulator.handle(Requests.send())
        let second = emulator.handle(Requests.send())
        #expect(first == second)
        #expect(emulator.committedCount == 1)
    }

    @Test("a duplicate while the first is in progress is 409 conflict")
    func inProgress() throws {
        guard case .claimed(let claim) = emulator.beginSend(Requests.send()) else {
            Issue.record("not claimed")
            return
        }
        let duplicate = emulator.handle(Requests.send())
        #expect(duplicate.status == 409)
        #expect(duplicate.errorCode == "conflict")
        let (answer, message) = emulator.finishSend(claim)
        #expect(answer.status == 202 && message == 1)
        #expect(emulator.handle(Requests.send()) == answer)
    }

    @Test("the same key with a different body is 409 idempotency_conflict, in progress or completed")
    func fingerprintConflict() {
        guard case .claimed(let claim) = emulator.beginSend(Requests.send(params: ["a": 1])) else {
            Issue.record("not claimed")
            return
        }
        #expect(emulator.handle(Requests.send(params: ["a": 2])).errorCode == "idempotency_conflict")
        _ = emulator.finishSend(claim)
        let conflict = emulator.handle(Requests.send(params: ["a": 2]))
        #expect(conflict.status == 409)
        #expect(conflict.errorCode == "idempotency_conflict")
        #expect(emulator.committedCount == 1)
    }

    @Test("a malformed key is 400 invalid_idempotency_key", arguments: ["", String(repeating: "k", count: 256)])
    func malformedKey(key: String) {
        let answer = emulator.handle(Requests.send(key: key))
        #expect(answer.status == 400)
        #expect(answer.errorCode == "invalid_idempotency_key")
        #expect(emulator.handle(Requests.send(key: String(repeating: "k", count: 255))).status == 202)
    }

    @Test("a rejected send releases its key, so a corrected retry can use it")
    func rejectionReleasesKey() {
        #expect(emulator.handle(Requests.send(template: "tpl_nope", key: "k")).errorCode == "template_not_found")
        #expect(emulator.handle(Requests.send(template: "tpl_order", key: "k")).status == 202)
    }

    @Test("auth: a missing or mismatched public key is 401 invalid_public_key")
    func auth() {
        var missing = Requests.send()
        missing.headers = FrontmailHTTPHeaders([("Idempotency-Key", "x")])
        #expect(emulator.handle(missing).errorCode == "invalid_public_key")
        var mismatch = Requests.send()
        mismatch.headers.set(name: "X-Frontmail-Public-Key", value: "pk_other")
        #expect(emulator.handle(mismatch).status == 401)
        let strict = Emulator(
            config: {
                var c = EmulatorConfig()
                c.publicKeys = ["pk_only"]
                return c
            }(), now: { 0 })
        #expect(strict.handle(Requests.send()).errorCode == "invalid_public_key")
        #expect(strict.handle(Requests.send(publicKey: "pk_only")).status == 202)
    }

    @Test("no Origin while mobile apps are not allowed is 403 origin_not_allowed; an allowed origin passes")
    func origins() {
        var config = EmulatorConfig()
        config.allowMobileApps = false
        config.allowedOrigins = ["https://shop.example"]
        let emulator = Emulator(config: config, now: { 0 })
        #expect(emulator.handle(Requests.send()).errorCode == "origin_not_allowed")
        #expect(emulator.handle(Requests.send(headers: ["Origin": "https://evil.example"])).status == 403)
        #expect(emulator.handle(Requests.send(headers: ["Origin": "https://shop.example"])).status == 202)
    }

    @Test("templates: unknown → 404, missing required params → 422 with details, bad body → 400")
    func templates() throws {
        #expect(emulator.handle(Requests.send(template: "tpl_missing")).errorCode == "template_not_found")
        let missing = emulator.handle(Requests.send(template: "tpl_contact", params: ["message": "hi"], key: "a"))
        #expect(missing.status == 422)
        #expect(missing.errorCode == "invalid_template_params")
        #expect(missing.json?["error"]?["details"]?["missing"] == ["email"])
        var broken = Requests.send()
        broken.body = Array("{not json".utf8)
        #expect(emulator.handle(broken).errorCode == "invalid_body")
    }

    @Test("Turnstile: missing token 403 captcha_required, bad token captcha_failed, no keys captcha_not_configured")
    func turnstile() {
        #expect(emulator.handle(Requests.send(template: "tpl_locked", key: "a")).errorCode == "captcha_required")
        #expect(
            emulator.handle(Requests.send(template: "tpl_locked", key: "b", extra: ["turnstile_token": "bad-token"]))
                .errorCode == "captcha_failed")
        #expect(
            emulator.handle(Requests.send(template: "tpl_locked", key: "c", extra: ["turnstile_token": "good"])).status
                == 202)
        // turnstile_key names one of the two secrets, as the API spells them, on any template.
        for (index, key) in ["org", "frontmail"].enumerated() {
            let request = Requests.send(
                template: "tpl_locked", key: "k\(index)",
                extra: ["turnstile_token": "good", "turnstile_key": .string(key)])
            #expect(emulator.handle(request).status == 202)
        }
        for (index, key) in ["Org", "", "other"].enumerated() {
            let request = Requests.send(template: "tpl_bench", key: "w\(index)", extra: ["turnstile_key": .string(key)])
            #expect(emulator.handle(request).errorCode == "invalid_body")
        }
        var config = EmulatorConfig()
        config.turnstileConfigured = false
        let unconfigured = Emulator(config: config, now: { 0 })
        #expect(
            unconfigured.handle(Requests.send(template: "tpl_locked", extra: ["turnstile_token": "good"])).errorCode
                == "captcha_not_configured")
    }

    @Test(
        "locale: exact → base language → default; _ is 400 invalid_body",
        arguments: [("de", "de"), ("de-AT", "de"), ("pt-BR", "pt-BR"), ("pt-PT", "en"), ("ja", "en"), ("FR", "fr")])
    func locales(requested: String, used: String) {
        let answer = emulator.handle(
            Requests.send(template: "tpl_i18n", key: requested, extra: ["locale": .string(requested)]))
        #expect(answer.json?["locale"] == .string(used))
    }

    @Test("a locale with _ is 400 invalid_body")
    func underscoreLocale() {
        #expect(
            emulator.handle(Requests.send(template: "tpl_i18n", extra: ["locale": "de_AT"])).errorCode == "invalid_body"
        )
    }

    @Test("attachments: unknown upload id → 404, too large → 413, known upload passes")
    func attachments() {
        var config = EmulatorConfig()
        config.maxAttachmentBytes = 10
        let emulator = Emulator(config: config, now: { 0 })
        let big = Data(count: 30).base64EncodedString()
        #expect(
            emulator.handle(Requests.send(key: "a", extra: ["attachments": [["upload_id": "upl_x"]]])).status == 404)
        #expect(
            emulator.handle(
                Requests.send(
                    key: "b",
                    extra: ["attachments": [["filename": "f", "content_type": "t", "content_base64": .string(big)]]])
            ).errorCode == "attachment_too_large")
        #expect(
            emulator.handle(Requests.send(key: "c", extra: ["attachments": [["upload_id": "upl_preset"]]])).status
                == 202)
        let upload = emulator.handle(
            ServerRequest(
                method: "POST", path: "/v1/uploads", headers: ["X-Frontmail-Public-Key": "pk_x"], body: [1, 2]))
        #expect(upload.status == 201)
        let id = upload.json?["upload_id"] ?? nil
        #expect(emulator.handle(Requests.send(key: "d", extra: ["attachments": [["upload_id": id]]])).status == 202)
    }

    @Test("credits: held → 202 held; reject → 402 insufficient_credits")
    func credits() {
        var config = EmulatorConfig()
        config.credits = .held
        #expect(Emulator(config: config, now: { 0 }).handle(Requests.send()).json?["status"] == "held")
        config.credits = .reject
        let rejected = Emulator(config: config, now: { 0 }).handle(Requests.send())
        #expect(rejected.status == 402)
        #expect(rejected.errorCode == "insufficient_credits")
    }

    @Test("status lifecycle: queued → sending → sent → delivered with events, and a wrong token is 404")
    func lifecycle() throws {
        let clock = TestTime()
        let emulator = Emulator(now: { clock.value })
        let accepted = try #require(emulator.handle(Requests.send()).json)
        let id = try #require(accepted["message_id"]?.stringValue)
        let token = try #require(accepted["status_token"]?.stringValue)
        var seen: [String] = []
        for time in [0.0, 0.03, 0.06, 0.3] {
            clock.value = time
            let answer = emulator.handle(Requests.status(id, token: token))
            #expect(answer.status == 200)
            seen.append(answer.json?["status"]?.stringValue ?? "?")
        }
        #expect(seen == ["queued", "sending", "sent", "delivered"])
        let final = try #require(emulator.handle(Requests.status(id, token: token)).json)
        #expect(
            final["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["accepted", "sent", "delivered"])
        #expect(final["sent_at"] != nil && final["template_id"] == "tpl_order")
        #expect(emulator.handle(Requests.status(id, token: "wrong")).errorCode == "message_not_found")
        #expect(emulator.handle(Requests.status(id, token: nil)).errorCode == "message_not_found")
        #expect(emulator.handle(Requests.status("msg_999", token: token)).status == 404)
    }

    @Test("public config: camelCase keys, nulls kept")
    func publicConfig() {
        var config = EmulatorConfig()
        config.mobileBaseURL = nil
        let answer = Emulator(config: config, now: { 0 }).handle(
            ServerRequest(method: "GET", path: "/v1/public-config"))
        #expect(answer.status == 200)
        #expect(answer.json == ["turnstile": ["mobileSiteKey": "0x4AAAAAAAFakeMobileKey", "mobileBaseUrl": nil]])
    }

    @Test("error bodies have code, message and docs_url (wire contract §3.1)")
    func errorBodies() throws {
        let answer = emulator.handle(ServerRequest(method: "GET", path: "/nope"))
        let error = try #require(answer.json?["error"])
        #expect(error["code"] == "not_found")
        #expect(error["message"]?.stringValue?.isEmpty == false)
        #expect(error["docs_url"] == "https://docs.frontmail.dev/reference/errors/#not-found")
    }
}

/// A settable clock for tests.
final class TestTime: Sendable {
    private let state = Mutex(0.0)
    var value: Double {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
