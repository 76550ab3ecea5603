import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail

@Suite("attempt ledger", .onItsOwnThread)
struct AttemptLedgerTests {
    @Test("records are compact enough for millions in memory")
    func compact() {
        #expect(MemoryLayout<LedgerRecord>.stride <= 64)
        let ledger = AttemptLedger()
        for index in 0..<1_000_000 {
            _ = ledger.append(
                { _ in }, key: index % 2 == 0 ? "key-\(index / 2)" : nil, arrival: 0, connection: 1, endpoint: .send)
        }
        #expect(ledger.count == 1_000_000)
        #expect(ledger.keyTable.count == 500_001)
    }

    @Test("ledger actions follow the fault actions, with the codes and names the shard format and ledger.csv hold")
    func actions() {
        let names = LedgerAction.allCases.map(\.name)
        #expect(
            names == [
                "served", "respond", "delay", "slowBody", "hang", "reset", "close", "truncate", "commitThenDrop",
                "commitThenDelay", "shed", "dropped",
            ])
        #expect(LedgerAction.allCases.map(\.rawValue) == Array(0...11))
        for action in LedgerAction.allCases { #expect(LedgerAction(rawValue: action.rawValue) == action) }
        #expect(LedgerAction(rawValue: 12) == nil)
        // Every fault action has its ledger action; a refused connection is recorded as a close.
        for kind in FaultAction.Kind.allCases {
            #expect(LedgerAction(kind) == .fault(kind == .refuse ? .close : kind))
            #expect(LedgerAction.allCases.contains(LedgerAction(kind)))
        }
    }

    @Test("a record carries arrival, key, attempt, bench id, fingerprint, action, status, message and effect")
    func recordFields() throws {
        let core = FakeFrontmailCore(plan: .sequence([FaultAction(.commitThenDrop)]))
        _ = serve(core, Requests.send(params: ["bench_send_id": 42], key: "k"))
        _ = serve(core, Requests.send(params: ["bench_send_id": 42], key: "k"))
        let records = core.ledger.records
        #expect(records.count == 2)
        #expect(records.map(\.attempt) == [1, 2])
        #expect(records.allSatisfy { $0.benchSendID == 42 && core.ledger.key($0.keyID) == "k" })
        #expect(records[0].action == .fault(.commitThenDrop) && records[0].effect && records[0].message == 1)
        #expect(
            records[1].action == .served && !records[1].effect && records[1].message == 1 && records[1].status == 202)
        #expect(records[0].fingerprint == records[1].fingerprint)
        #expect(records[1].finished >= records[1].arrival)
    }

    @Test(
        "a status token anywhere in the URL is a defect, whatever it is called; ids and other text are not",
        arguments: [
            ("/v1/messages/msg_1", "token=stk_0123456789abcdef", true),
            ("/v1/messages/msg_1", "status_token=stk_0123456789ABCDEF", true),
            ("/v1/messages/msg_1", "a=1&t=stk%5F0123456789abcdef", true),
            ("/v1/messages/msg_1/stk_0123456789abcdef", nil, true),
            ("/v1/messages/msg_1", "x=tok_1", true),  // the header's own token, of another shape
            ("/v1/messages/msg_1", nil, false),
            ("/v1/messages/msg_1", "token=stk_0123", false),
            ("/v1/messages/stk_notahexvalue00", "locale=de", false),
        ] as [(String, String?, Bool)])
    func tokenInURL(path: String, query: String?, flagged: Bool) {
        var headers = FrontmailHTTPHeaders([("X-Frontmail-Public-Key", "pk_test"), ("X-Frontmail-Client", "t")])
        headers.add(name: "X-Frontmail-Status-Token", value: "tok_1")
        let request = ServerRequest(method: "GET", path: path, query: query, headers: headers)
        #expect(FakeFrontmailCore.tokenInURL(request) == flagged)
    }

    @Test("defects: a token in the query, an Authorization header, no client header, an sk_ key")
    func defects() {
        let core = FakeFrontmailCore()
        _ = serve(core, Requests.status("msg_1", token: nil, query: "token=stk_0123456789abcdef"))
        _ = serve(core, Requests.send(headers: ["Authorization": "Bearer sk_x"]))
        var bare = Requests.send(key: "z")
        bare.headers = ["X-Frontmail-Public-Key": "sk_live"]
        _ = serve(core, bare)
        let defects = core.ledger.records.map(\.defects)
        #expect(defects[0] == [.queryToken])
        #expect(defects[1] == [.authorizationHeader])
        #expect(defects[2].contains(.missingClientHeader) && defects[2].contains(.privateKey))
    }

    @Test("CSV export has the documented header and one quoted-as-needed row per request")
    func csv() throws {
        let core = FakeFrontmailCore()
        _ = serve(core, Requests.send(key: "with,comma"))
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ledger-\(UUID().uuidString).csv")
        defer { try? FileManager.default.removeItem(at: url) }
        try core.ledger.writeCSV(to: url)
        let lines = try String(contentsOf: url, encoding: .utf8).split(separator: "\n")
        #expect(lines.first.map(String.init) == AttemptLedger.csvHeader)
        #expect(lines.count == 2)
        #expect(lines[1].contains("\"with,comma\""))
        #expect(lines[1].contains(",served,202,,msg_1,1,0,"))
    }

    @Test("six-decimal times are written as %.6f writes them, signs, carries and large values included")
    func fixedSix() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Double] = [0, -0.0, 1, 0.5, 0.000_000_4, 0.999_999_6, 12.345_678_9, -3.25, 86_400.123_456, 1e13]
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(state >> 11) / Double(1 << 53) * 1000)
        }
        let mismatches = values.filter { AttemptLedger.fixed6($0) != String(format: "%.6f", $0) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test("CSV fields are quoted only when they hold a comma, quote or line break")
    func quoting() {
        #expect(AttemptLedger.csvField("plain-ключ") == "plain-ключ")
        #expect(AttemptLedger.csvField("a,b") == "\"a,b\"")
        #expect(AttemptLedger.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(AttemptLedger.csvField("two\nlines") == "\"two\nlines\"")
        #expect(AttemptLedger.csvField("cr\r") == "\"cr\r\"")
    }
}
