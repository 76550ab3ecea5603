import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The one front-end switch: the same core answers the same client through either front end.
@Suite("front ends: one scoped harness for sockets and in process")
struct FrontEndTests {
    @Test("a send through either front end reaches the same core and is recorded once", arguments: FrontEnd.allCases)
    func sendThrough(frontEnd: FrontEnd) async throws {
        let core = FakeFrontmailCore(seed: 3)
        let server = try await withFakeFrontmail(frontEnd: frontEnd, core: core) { fake in
            #expect(fake.core === core)
            #expect((fake.server != nil) == (frontEnd == .socket))
            #expect((fake.session != nil) == (frontEnd == .socket))
            #expect(fake.baseURL.host == (frontEnd == .socket ? "127.0.0.1" : "in-process.fake.invalid"))
            let client = try fake.client(publicKey: "pk_test")
            let result = try await client.send(templateID: "tpl_order", params: ["bench_send_id": 1])
            #expect(result.messageID == "msg_1")
            return fake.server
        }
        #expect(core.ledger.count == 1)
        #expect(core.emulator.committedCount == 1)
        // The scope stopped what it started.
        #expect(server?.stats.connectionsActive ?? 0 == 0)
    }

    @Test("the harness session is ephemeral, cacheless, with the connection limit and timeout asked for")
    func sessionConfiguration() {
        let configuration = FakeFrontmailHarness.sessionConfiguration(.init(maxConnections: 300, requestTimeout: 42))
        #expect(configuration.urlCache == nil)
        #expect(configuration.httpMaximumConnectionsPerHost == 300)
        #expect(configuration.timeoutIntervalForRequest == 42)
    }
}
