import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

/// The fake's per-request structures: the key index behind the idempotency store and the ledger, the
/// send body read member by member, the request target taken from the URL's text, and message
/// numbers found again from their commit.
@Suite("fake hot path: key index, send body, request target, message numbers")
struct HotPathTests {
    @Test("the key index numbers keys in order of first sight and finds each again, across growth")
    func keyIndexNumbers() {
        var index = KeyIndex(capacity: 4)
        let keys = (0..<5_000).map { "key-\($0)" }
        for (number, key) in keys.enumerated() {
            #expect(index.insert(key, fingerprint: Fingerprint.of(key)) == (number, true))
        }
        for (number, key) in keys.enumerated().reversed() {
            #expect(index.number(of: key, fingerprint: Fingerprint.of(key)) == number)
            #expect(index.insert(key, fingerprint: Fingerprint.of(key)) == (number, false))
        }
        #expect(index.count == 5_000)
        #expect(index.keys == keys)
        #expect(index.number(of: "key-5000", fingerprint: Fingerprint.of("key-5000")) == nil)
    }

    @Test("keys with one fingerprint stay apart: the string decides")
    func keyIndexCollisions() {
        var index = KeyIndex()
        // Every key handed the same fingerprint: one probe chain, told apart by the bytes.
        for number in 0..<100 { #expect(index.insert("k\(number)", fingerprint: 42) == (number, true)) }
        for number in 0..<100 { #expect(index.number(of: "k\(number)", fingerprint: 42) == number) }
        #expect(index.number(of: "k100", fingerprint: 42) == nil)
        // A right key under a wrong fingerprint is not found (callers pass `Fingerprint.of`).
        #expect(index.number(of: "k1", fingerprint: 43) == nil)
    }

    @Test("keys are compared by their bytes, as a server compares header values")
    func keyIndexBytes() {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // equal as Swift strings
        var index = KeyIndex()
        #expect(index.insert(composed, fingerprint: Fingerprint.of(composed)).number == 0)
        #expect(index.insert(decomposed, fingerprint: Fingerprint.of(decomposed)) == (1, true))
        #expect(index.insert(decomposed, fingerprint: Fingerprint.of(composed)) == (2, true))
    }

    @Test("a key table read back keeps every key at its place, a repeated one included")
    func keyIndexFromTable() {
        let index = KeyIndex(["a", "b", "a", "c"])
        #expect(index.keys == ["a", "b", "a", "c"])
        #expect(index.count == 4)
        #expect(index.number(of: "a", fingerprint: Fingerprint.of("a")) == 0)
        #expect(index.number(of: "c", fingerprint: Fingerprint.of("c")) == 3)
    }

    static func body(_ text: String, watching: [String] = ["email", "name"]) -> SendBody? {
        SendBody.read(Array(text.utf8), watchedParams: watching)
    }

    @Test("the send body: the members the emulator reads, a repeated key's last value counting")
    func sendBody() throws {
        let body = try #require(
            Self.body(
                #"{"template_id":"t","user_id":"pk_x","locale":"de","service_id":"s","turnstile_token":"tok","#
                    + #""attachments":[{"upload_id":"u"}],"ignored":{"deep":[1,2,"\u00e9"]},"#
                    + #""template_params":{"email":"a@b","name":null,"bench_send_id":"12","other":[1]},"locale":"fr"}"#)
        )
        #expect(body.templateID == "t")
        #expect(body.userID == "pk_x")
        #expect(body.locale == "fr")
        #expect(body.serviceID == "s")
        #expect(body.turnstileToken == "tok")
        #expect(body.attachments == [["upload_id": "u"]])
        #expect(body.benchSendID == 12)
        #expect(body.missing(["email", "name"]) == ["name"])
        #expect(body.missing([]) == [])
    }

    @Test("required params: absent, null, or null after a value are missing; a value after null is not")
    func sendBodyParams() throws {
        let cases: [(String, [String])] = [
            (#"{"template_params":{}}"#, ["email", "name"]),
            (#"{"template_params":{"email":null,"name":0}}"#, ["email"]),
            (#"{"template_params":{"email":"x","email":null,"name":false}}"#, ["email"]),
            (#"{"template_params":{"email":null,"email":"x","name":""}}"#, []),
            (#"{"template_params":{"name":{"a":null},"email":[]}}"#, []),
            // A second template_params replaces the first.
            (#"{"template_params":{"email":1,"name":1},"template_params":{"email":1}}"#, ["name"]),
            (#"{}"#, ["email", "name"]),
        ]
        for (text, missing) in cases {
            let body = try #require(Self.body(text), "\(text)")
            #expect(body.missing(["email", "name"]) == missing, "\(text)")
        }
        #expect(Self.body(#"{"template_params":{"bench_send_id":7}}"#)?.benchSendID == 7)
        #expect(Self.body(#"{"template_params":{"bench_send_id":"x"}}"#)?.benchSendID == -1)
        #expect(Self.body(#"{"template_params":[{"bench_send_id":7}]}"#)?.benchSendID == -1)
        #expect(Self.body(#"{"template_params":null}"#)?.params?.isObject == false)
        #expect(Self.body(#"{"template_params":"x"}"#)?.params?.isObject == false)
        #expect(Self.body(#"{"user_id":"x"}"#)?.params == nil)
    }

    @Test("a body that is not a JSON object, or not JSON anywhere inside, is no send body")
    func sendBodyInvalid() {
        for text in [
            "[1]", #""x""#, "", "{", #"{"template_params":{"x":[1,}}"#, #"{"ignored":"\ud800"}"#, #"{"a":1} 2"#,
            "{\"ignored\":\"\u{1}\"}",
        ] {
            #expect(Self.body(text) == nil, "\(text)")
        }
        #expect(SendBody.read([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D], watchedParams: []) == nil)
    }

    @Test("the emulator answers a body it cannot read, and missing params, as before")
    func emulatorAnswers() {
        var config = EmulatorConfig()
        config.templates = [TemplateConfig(id: "tpl_order", requiredParams: ["email"])]
        let emulator = Emulator(config: config, now: { 0 })
        #expect(emulator.handle(Requests.send(params: ["email": "a@b"])).status == 202)
        let missing = emulator.handle(Requests.send(params: ["email": nil], key: "key-2"))
        #expect(missing.status == 422)
        #expect(missing.json?["error"]?["details"]?["missing"] == ["email"])
        var broken = Requests.send(key: "key-3")
        broken.body = Array(#"{"user_id":"\#(Requests.key)","template_id":"tpl_order",}"#.utf8)
        #expect(emulator.handle(broken).status == 400)
    }

    @Test("the in-process request target is the URL's path and query as written")
    func requestTarget() throws {
        let cases = [
            ("http://127.0.0.1:8080/v1/send", "/v1/send"),
            ("http://127.0.0.1:8080", "/"),
            ("http://127.0.0.1:8080/", "/"),
            ("http://h?x=1", "/?x=1"),
            ("http://h/v1/messages/msg%5F1?token=a#frag", "/v1/messages/msg%5F1?token=a"),
            ("http://[::1]:9/base/v1/send", "/base/v1/send"),
            ("http://user@h:1/p", "/p"),
        ]
        for (text, target) in cases {
            #expect(InProcessTransport.target(of: try #require(URL(string: text))) == target, "\(text)")
        }
    }

    @Test("message numbers lead back to their commit, for every numbering")
    func messageCounts() {
        for numbering in [MessageNumbering.single, MessageNumbering(stride: 3, offset: 2)] {
            for count in UInt32(1)...50 {
                #expect(numbering.count(of: numbering.number(count)) == count)
            }
        }
        let shard = MessageNumbering(stride: 3, offset: 2)
        #expect(shard.count(of: 3) == nil)
        #expect(shard.count(of: 1) == nil)
    }
}

/// A long search answers thousands of sends with the 4 MiB hostile body; a copy per answer made its
/// memory climb (docs/explore.md, "Memory on long runs").
@Suite("in-process answers: the 4 MiB hostile body is shared, not copied")
struct SharedBodyTests {
    static func address(_ data: Data) -> UInt { data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } }

    @Test("two answers carrying the 4 MiB body share one buffer; a changed copy and other bodies are copied")
    func sharedBody() async throws {
        let plan = FaultPlan(
            rules: [FaultRule(match: FaultMatch(endpoint: .send), action: .respond(200, body: .megabytes))])
        let transport = InProcessTransport(core: FakeFrontmailCore(plan: plan, seed: 1))
        let request = FrontmailHTTPRequest(
            method: "POST", url: URL(string: "http://127.0.0.1/v1/send")!, body: Data("{}".utf8))
        let first = try await transport.send(request)
        let second = try await transport.send(request)
        #expect(first.body.count == 4 << 20 && first.body.allSatisfy { $0 == UInt8(ascii: "x") })
        #expect(Self.address(first.body) == Self.address(second.body))
        var changed = BodySpec.megabytes.bytes
        changed[0] = UInt8(ascii: "y")
        let copied = BodySpec.data(of: changed)
        #expect(copied.first == UInt8(ascii: "y") && copied.count == changed.count)
        #expect(Self.address(copied) != Self.address(first.body))
        #expect(BodySpec.data(of: Array("{}".utf8)) == Data("{}".utf8))
    }
}
