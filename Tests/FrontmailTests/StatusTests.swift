import Foundation
import Testing

@testable import Frontmail

@Suite("status(messageID:statusToken:) (§2.3, §7.20-7.21)")
struct StatusTests {
    static let body = """
        {"message_id":"msg_1","status":"delivered","created_at":"2026-11-30T08:00:00Z","sent_at":"2026-11-30T08:00:02Z",
         "template_id":"tpl_contact","service_id":"svc_1","future_key":[1,2],
         "events":[{"type":"accepted","at":"2026-11-30T08:00:00Z"},{"type":"sent","at":"2026-11-30T08:00:02Z","smtp":250}]}
        """

    @Test("GET /v1/messages/msg_1 with the token header only, no query, and the parsed status")
    func readsStatus() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: Self.body)])
        let status = try await TestClient.make(transport).status(messageID: "msg_1", statusToken: "tok")
        let request = try #require(transport.requests.first?.request)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://api.test/v1/messages/msg_1")
        #expect(request.url.query == nil)
        #expect(request.body == nil)
        #expect(request.headers["X-Frontmail-Status-Token"] == "tok")
        #expect(request.headers["X-Frontmail-Public-Key"] == TestClient.key)
        #expect(request.headers["Content-Type"] == nil)
        #expect(request.headers["X-Frontmail-Client"] == "frontmail-swift/\(Frontmail.version)")
        #expect(status.messageID == "msg_1")
        #expect(status.status == .delivered)
        #expect(status.createdAt == "2026-11-30T08:00:00Z")
        #expect(status.sentAt == "2026-11-30T08:00:02Z")
        #expect(status.templateID == "tpl_contact")
        #expect(status.serviceID == "svc_1")
        #expect(status.events.map(\.type) == ["accepted", "sent"])
        #expect(status.events[1]["smtp"] == 250)
        #expect(status.extra == ["future_key": [1, 2]])
    }

    @Test("a token with a space and & goes into the header unchanged; the URL stays clean")
    func tokenStaysInHeader() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: Self.body)])
        _ = try await TestClient.make(transport).status(messageID: "msg_1", statusToken: "a b&c=d")
        let request = try #require(transport.requests.first?.request)
        #expect(request.headers["X-Frontmail-Status-Token"] == "a b&c=d")
        #expect(!request.url.absoluteString.contains("a b"))
        #expect(!request.url.absoluteString.contains("token"))
    }

    @Test(
        "the message id is percent-encoded strictly",
        arguments: [
            ("a/b", "a%2Fb"), ("m sg?x#y", "m%20sg%3Fx%23y"), ("A-z_0.9~", "A-z_0.9~"), ("ü", "%C3%BC"),
        ])
    func strictPathEncoding(id: String, encoded: String) async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: Self.body)])
        _ = try await TestClient.make(transport).status(messageID: id, statusToken: "t")
        #expect(transport.requests.first?.request.url.absoluteString == "https://api.test/v1/messages/\(encoded)")
    }

    @Test(
        "every status value, and unknown ones kept raw",
        arguments: [
            ("queued", MessageStatus.Status.queued), ("sending", .sending), ("sent", .sent), ("delivered", .delivered),
            ("bounced", .bounced), ("complained", .complained), ("failed", .failed), ("held", .held),
            ("held_service_error", .heldServiceError), ("discarded", .discarded),
            ("teleported", .unknown("teleported")),
        ])
    func statusValues(raw: String, expected: MessageStatus.Status) async throws {
        let transport = ScriptedTransport([
            .respond(status: 200, body: #"{"message_id":"m","status":"\#(raw)","created_at":"x","events":[]}"#)
        ])
        let status = try await TestClient.make(transport).status(messageID: "m", statusToken: "t")
        #expect(status.status == expected)
        #expect(status.status.rawValue == raw)
    }

    @Test("a missing or wrong token is 404 message_not_found, not retried")
    func wrongToken() async throws {
        let transport = ScriptedTransport([.respond(status: 404, body: TestClient.errorBody("message_not_found"))])
        let error = await frontmailError {
            _ = try await TestClient.make(transport).status(messageID: "m", statusToken: "x")
        }
        #expect(error?.code == .messageNotFound)
        #expect(transport.count == 1)
    }

    @Test("a 200 that is not a status object is invalid_response")
    func malformedStatus() async throws {
        let transport = ScriptedTransport([.respond(status: 200, body: #"{"status":"sent"}"#)])
        let error = await frontmailError {
            _ = try await TestClient.make(transport).status(messageID: "m", statusToken: "x")
        }
        #expect(error?.code == .invalidResponse)
    }
}
