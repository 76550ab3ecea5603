import Foundation
import Frontmail

@testable import FakeFrontmail

/// Builders for requests as the SDK writes them.
enum Requests {
    static let key = "pk_test"

    static func send(
        template: String = "tpl_order", params: FrontmailValue = ["bench_send_id": 7], key: String? = "key-1",
        extra: [String: FrontmailValue] = [:], headers: [String: String] = [:], publicKey: String = Requests.key
    ) -> ServerRequest {
        var body: [String: FrontmailValue] = [
            "template_id": .string(template), "template_params": params, "user_id": .string(publicKey),
        ]
        for (name, value) in extra { body[name] = value }
        var fields = FrontmailHTTPHeaders([
            ("X-Frontmail-Public-Key", publicKey), ("Content-Type", "application/json"),
            ("X-Frontmail-Client", "frontmail-swift/test"),
        ])
        if let key { fields.add(name: "Idempotency-Key", value: key) }
        for (name, value) in headers { fields.set(name: name, value: value) }
        var writer = JSONWriter()
        writer.writeLenient(.object(body))
        return ServerRequest(method: "POST", path: "/v1/send", headers: fields, body: writer.bytes)
    }

    static func status(_ id: String, token: String?, query: String? = nil) -> ServerRequest {
        var headers = FrontmailHTTPHeaders([("X-Frontmail-Public-Key", key), ("X-Frontmail-Client", "t")])
        if let token { headers.add(name: "X-Frontmail-Status-Token", value: token) }
        return ServerRequest(method: "GET", path: "/v1/messages/" + id, query: query, headers: headers)
    }
}

extension ServerResponse {
    var json: FrontmailValue? { try? body.withUnsafeBufferPointer { try JSONReader.parse($0) } }
    var errorCode: String? { json?["error"]?["code"]?.stringValue }
}

/// Runs one request through the core with no waiting (tests of semantics, not of time).
func serve(_ core: FakeFrontmailCore, _ request: ServerRequest) -> (Ticket, Disposition?) {
    let ticket = core.arrive(request, connection: core.nextConnectionID())
    let disposition = core.complete(ticket)
    if case .respond(let response, _)? = disposition { core.finished(ticket, status: response.status) }
    return (ticket, disposition)
}

func response(_ disposition: Disposition?) -> ServerResponse? {
    if case .respond(let response, _)? = disposition { return response }
    return nil
}
