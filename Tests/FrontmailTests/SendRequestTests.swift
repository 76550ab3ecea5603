import Foundation
import Testing

@testable import Frontmail

@Suite("send: request and result (wire contract §7.1-7.6)")
struct SendRequestTests {
    @Test("posts to <base>/v1/send with exactly the given fields, headers and mapped result")
    func postsTheDocumentedRequest() async throws {
        let transport = ScriptedTransport([
            .respond(status: 202, body: #"{"message_id":"msg_9","status":"held","status_token":"tok_9"}"#)
        ])
        let client = try TestClient.make(transport)
        let result = try await client.send(
            templateID: "tpl_contact", params: ["email": "jan@example.com", "qty": 2], serviceID: "svc_1",
            options: SendOptions(turnstileToken: "tt"))

        #expect(result == SendResult(messageID: "msg_9", status: .held, statusToken: "tok_9", locale: nil))
        let recorded = try #require(transport.requests.first)
        #expect(transport.count == 1)
        #expect(recorded.request.method == "POST")
        #expect(recorded.request.url.absoluteString == "https://api.test/v1/send")
        let body = try #require(recorded.request.body)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"service_id":"svc_1","template_id":"tpl_contact","template_params":{"email":"jan@example.com","qty":2},"turnstile_token":"tt","user_id":"pk_test_123"}"#
        )
        let headers = recorded.request.headers
        #expect(headers["X-Frontmail-Client"] == "frontmail-swift/\(Frontmail.version)")
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-Frontmail-Public-Key"] == TestClient.key)
        #expect(headers["Idempotency-Key"]?.count == 36)
        #expect(headers["Authorization"] == nil)
    }

    @Test("absent options are left out; empty params are {}; an empty service id is left out")
    func absentOptionsAreOmitted() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        try await client.send(templateID: "tpl_contact", serviceID: "")
        let body = try #require(transport.requests.first?.request.body)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"template_id":"tpl_contact","template_params":{},"user_id":"pk_test_123"}"#)
    }

    @Test("turnstile_key is sent only when set", arguments: [TurnstileKey.org, .frontmail])
    func turnstileKeyOnlyWhenSet(key: TurnstileKey) async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        try await client.send(templateID: "t", options: SendOptions(turnstileToken: "x", turnstileKey: key))
        try await client.send(templateID: "t", options: SendOptions(turnstileToken: "x"))
        let bodies = transport.requests.map { $0.bodyJSON }
        #expect(bodies[0]?["turnstile_key"] == .string(key.rawValue))
        #expect(bodies[1]?["turnstile_key"] == nil)
        #expect(bodies[1]?["turnstile_token"] == "x")
    }

    @Test("locale is sent only when non-empty; the response locale is exposed, nil when absent")
    func localeRoundTrip() async throws {
        let transport = ScriptedTransport([
            .respond(status: 202, body: #"{"message_id":"m","status":"queued","status_token":"t","locale":"de"}"#),
            TestClient.accepted,
        ])
        let client = try TestClient.make(transport)
        let first = try await client.send(templateID: "t", options: SendOptions(locale: "de-AT"))
        let second = try await client.send(templateID: "t", options: SendOptions(locale: ""))
        #expect(transport.requests[0].bodyJSON?["locale"] == "de-AT")
        #expect(transport.requests[1].bodyJSON?["locale"] == nil)
        #expect(first.locale == "de")
        #expect(second.locale == nil)
    }

    @Test("both attachment forms map to snake_case objects, inline bytes as base64")
    func attachments() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        let pdf = Data([0x25, 0x50, 0x44, 0x46, 0xFF, 0x00])
        try await client.send(
            templateID: "tpl_order", params: ["order": "1042"],
            options: SendOptions(attachments: [
                .data(pdf, filename: "invoice.pdf", contentType: "application/pdf"), .upload(id: "upl_1"),
            ]))
        let body = try #require(transport.requests.first?.bodyJSON)
        #expect(
            body["attachments"]
                == [
                    [
                        "filename": "invoice.pdf", "content_type": "application/pdf",
                        "content_base64": .string(pdf.base64EncodedString()),
                    ],
                    ["upload_id": "upl_1"],
                ])
    }

    @Test("two sends get different keys; an explicit key is sent exactly as given; empty counts as none")
    func idempotencyKeys() async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport)
        try await client.send(templateID: "t")
        try await client.send(templateID: "t")
        try await client.send(templateID: "t", options: SendOptions(idempotencyKey: "My Key/1"))
        try await client.send(templateID: "t", options: SendOptions(idempotencyKey: ""))
        let keys = transport.requests.map { $0.request.headers["Idempotency-Key"] ?? "" }
        #expect(keys[0] != keys[1])
        #expect(keys[2] == "My Key/1")
        #expect(keys[3].count == 36 && keys[3] != keys[0] && keys[3] != keys[1])
    }

    #if os(Linux)
        @Test("the entropy pool hands out fresh bytes, across many refills and from several threads")
        func entropyPool() async throws {
            let words = await withTaskGroup(of: [UInt64].self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        (0..<500).flatMap { _ -> [UInt64] in
                            guard let (a, b) = EntropyPool.take16() else { return [] }
                            return [a, b]
                        }
                    }
                }
                return await group.reduce(into: [UInt64]()) { $0 += $1 }
            }
            // 2,000 draws of 16 bytes (125 refills of the pool): none missing, none repeated, and
            // every bit takes both values.
            #expect(words.count == 4_000)
            #expect(Set(words).count == 4_000)
            #expect(words.reduce(0, |) == UInt64.max)
            #expect(words.reduce(UInt64.max, &) == 0)
        }
    #endif

    @Test("200 generated keys are unique, lowercase UUID v4")
    func generatedKeysAreLowercaseUUIDv4() {
        let keys = (0..<200).map { _ in Frontmail.makeIdempotencyKey() }
        #expect(Set(keys).count == 200)
        for key in keys {
            let characters = Array(key)
            #expect(characters.count == 36)
            #expect(key == key.lowercased())
            #expect(UUID(uuidString: key) != nil)
            #expect(characters[14] == "4")
            #expect("89ab".contains(characters[19]))
            #expect([8, 13, 18, 23].allSatisfy { characters[$0] == "-" })
        }
        // Every one of the 122 random bits takes both values across the keys (a key built from
        // fewer random bits, or with a stuck digit, fails here).
        let bits = keys.map { key -> [UInt8] in
            key.filter { $0 != "-" }.flatMap { hex -> [UInt8] in
                let nibble = UInt8(hex.hexDigitValue!)
                return (0..<4).map { (nibble >> (3 - $0)) & 1 }
            }
        }
        let fixed = Set([48, 49, 50, 51, 64, 65])
        for position in 0..<128 where !fixed.contains(position) {
            #expect(Set(bits.map { $0[position] }).count == 2, "bit \(position)")
        }
    }

    @Test("the body is encoded once: every attempt carries the same bytes and the same key")
    func sameBytesOnEveryAttempt() async throws {
        let transport = ScriptedTransport([
            .fail(URLError(.networkConnectionLost)), .respond(status: 503), .respond(status: 502), TestClient.accepted,
        ])
        let client = try TestClient.make(transport)
        let params: [String: FrontmailValue] = ["b": 1, "a": [1.5, "x", nil, true], "c": ["z": 1, "y": 2]]
        try await client.send(templateID: "t", params: params)
        let bodies = Set(transport.requests.compactMap { $0.request.body })
        let keys = Set(transport.requests.compactMap { $0.request.headers["Idempotency-Key"] })
        #expect(transport.count == 4)
        #expect(bodies.count == 1)
        #expect(keys.count == 1)
        // Deterministic: the same params give the same bytes from another client too.
        let other = ScriptedTransport([TestClient.accepted])
        try await TestClient.make(other).send(templateID: "t", params: params)
        #expect(other.requests.first?.request.body == bodies.first)
    }

    @Test("trailing slashes of the base URL are removed", arguments: ["https://api.test", "https://api.test///"])
    func trailingSlashes(base: String) async throws {
        let transport = ScriptedTransport([TestClient.accepted])
        let client = try TestClient.make(transport, base: URL(string: base)!)
        try await client.send(templateID: "t")
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.test/v1/send")
        #expect(client.apiURL.absoluteString == "https://api.test")
    }
}
