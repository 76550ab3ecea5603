import FakeFrontmail
import Foundation
import Frontmail
import Testing

@testable import LoadKit

@Suite("a send's trace: the client's account and the server's requests")
struct SendTraceTests {
    @Test("the client's answer per attempt, the send's requests in order, a status read apart")
    func clientAndServer() {
        let history = HistoryBuilder()
        history.send(0, statuses: [nil, 202], outcome: .ok(messageID: "msg_1"))
        history.send(1, outcome: .ok(messageID: "msg_2"))
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, arrival: 0.5, status: 202, effect: true)
        // Status read 0 carries the same number in the same header.
        ledger.request(sendID: 0, arrival: 0.9, status: 200, endpoint: .status)
        ledger.request(sendID: 1, arrival: 0.2, status: 202, effect: true)
        let text = SendTrace.text(number: 0, history: history.history, ledger: ledger.ledger)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "trace of send 0:")
        #expect(lines.contains("  client saw: none, 202 (each attempt's answer; none: it got no answer)"), "\(text)")
        let attempts = lines.filter { $0.hasPrefix("  server attempt") }
        #expect(attempts.count == 1 && attempts[0].contains("arrived 0.500000000 s"), "\(text)")
        #expect(attempts[0].contains("connection 1, status 202") && attempts[0].contains("took effect"), "\(text)")
        let reads = lines.filter { $0.hasPrefix("  status request (status read 0)") }
        #expect(reads.count == 1 && reads[0].contains("status 200"), "\(text)")
        // Every send, in order.
        let all = SendTrace.all(history: history.history, ledger: ledger.ledger)
        #expect(all.hasPrefix(text + "\ntrace of send 1:\n"), "\(all)")
        #expect(SendTrace.text(number: 7, history: history.history, ledger: nil) == "trace: no send 7 in this run")
    }
}
