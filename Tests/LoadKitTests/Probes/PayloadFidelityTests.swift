import FakeFrontmail
import Foundation
import Frontmail
import FrontmailMutants
import Testing

@testable import LoadKit

/// `payload-fidelity`: every body the server receives is compared with the one the driver
/// intended; a writer that drops or changes anything fails it.
@Suite("payload fidelity: what the server received against what the app sent")
struct PayloadFidelityTests {
    static let mismatches = "payload.mismatches == 0"

    @Test("the real SDK writes every kind of value and option exactly, through faults")
    func correctPasses() async throws {
        let result = try await runStandardQuick("payload-fidelity")
        #expect(result.passed, "\(result.verdictLine)")
        #expect((result.metrics["payload.checked"] ?? 0) >= 600)
    }

    @Test(
        "a writer that drops a null param, an attachment's content type, or normalises a string fails",
        arguments: [
            ("a null param dropped", #""nothing":null,"#, ""),
            ("an attachment's content type dropped", #""content_type":"text/plain; charset=utf-8","#, ""),
            ("a decomposed string normalised", "e\u{301}", "\u{E9}"),
            ("an integer written as a double", #""zero":0"#, #""zero":0.0"#),
        ])
    func brokenWriterFails(what: String, find: String, replace: String) async throws {
        let result = try await runStandardQuick("payload-fidelity") { runner in
            runner.seams.transportWrapper = {
                BodyRewritingTransport(inner: $0) { $0.replacingOccurrences(of: find, with: replace) }
            }
        }
        #expect(failedAssertions(result).contains(Self.mismatches), "\(what): \(result.verdictLine)")
    }

    static let intended = PayloadFidelity(
        try! makeScenario(
            #"{"name": "f", "payload": "fidelity", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#))

    static func body(_ members: String) -> [UInt8] {
        Array(
            #"{"template_id":"tpl_bench","user_id":"pk_bench","service_id":"svc_fidelity","locale":"de-AT",\#(members)}"#
                .utf8)
    }

    @Test("the comparison names the first difference: a missing member, an extra one, a changed number")
    func differences() {
        let expected = FidelityPayload.send(sendID: 2).expected
        #expect(
            PayloadFidelity.difference(.object([]), .object(expected), at: "body")
                == "body.attachments: missing (or its name changed)")
        #expect(
            PayloadFidelity.difference(.number("1.0"), .integer(1), at: "x")?.hasPrefix("x: expected integer(1)")
                == true)
        #expect(PayloadFidelity.difference(.number("1E0"), .double(1), at: "x") == nil)
        #expect(PayloadFidelity.difference(.number("0.1000000000000000056"), .double(0.1), at: "x") == nil)
        #expect(PayloadFidelity.difference(.number("0.10000000000000002"), .double(0.1), at: "x") != nil)
        #expect(
            PayloadFidelity.difference(.object([("a", .null), ("a", .null)]), .object(["a": .null]), at: "b")
                == "b.a: written twice")
        #expect(
            PayloadFidelity.difference(.object([("a", .null), ("b", .null)]), .object(["a": .null]), at: "b")
                == "b.b: not expected")
        #expect(
            Self.intended.difference(Array("[]".utf8)) == "template_params.bench_send_id is missing or not an integer")
        #expect(Self.intended.difference(Self.body("")) != nil)
        #expect(Self.intended.difference(Array("{".utf8))?.hasPrefix("the body is not JSON") == true)
    }

    @Test("a body judged before is judged the same again: every request counts, a mismatch each time")
    func repeatedBodies() {
        let fidelity = PayloadFidelity(
            try! makeScenario(
                #"{"name": "f", "payload": "fidelity", "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#))
        let bad = ServerRequest(method: "POST", path: "/v1/send", body: Array("[]".utf8))
        let broken = ServerRequest(method: "POST", path: "/v1/send", body: Array("{".utf8))
        for request in [bad, bad, broken, bad] { fidelity.inspect(request) }
        #expect(fidelity.figures.checked == 4 && fidelity.figures.mismatches == 4)
        #expect(fidelity.figures.first == "template_params.bench_send_id is missing or not an integer")
        // Past the bodies it remembers, it forgets them all and judges them afresh, the same way.
        for index in 0...PayloadFidelity.rememberedBodies {
            fidelity.inspect(ServerRequest(method: "POST", path: "/v1/send", body: Array("[\(index)]".utf8)))
        }
        fidelity.inspect(bad)
        #expect(fidelity.figures.checked == 4 + PayloadFidelity.rememberedBodies + 2)
        #expect(fidelity.figures.mismatches == fidelity.figures.checked)
    }
}
