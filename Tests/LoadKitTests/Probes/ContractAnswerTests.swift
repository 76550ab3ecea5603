import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// "This answer ends the send" is one rule (`ContractAnswer`) for every judge: the scenario probes
/// and certify's server view agree on every answer.
@Suite("the contract's rule of what follows an answer, one for every judge")
struct ContractAnswerTests {
    @Test(
        "429 and 500-599 are retried; every other status ends the send, as does a Retry-After over the limit",
        arguments: [
            (200, nil, true), (202, 3.0, true), (302, nil, true), (404, nil, true), (409, nil, true),
            (429, nil, false), (429, 60.0, false), (429, 61.0, true), (500, nil, false), (503, 0.5, false),
            (503, Double.nan, false), (503, Double.infinity, true), (599, nil, false), (600, nil, true),
            (999, nil, true), (101, nil, true),
        ] as [(Int, Double?, Bool)])
    func rule(status: Int, retryAfter: Double?, ends: Bool) {
        #expect(ContractAnswer.endsTheSend(status: status, retryAfter: retryAfter, limit: 60) == ends)
        #expect(ContractAnswer.retried(status: status) == (status == 429 || (500...599).contains(status)))
    }

    @Test("fuzz: on 5,000 random answers the scenario probe and certify's server view judge alike")
    func judgesAgree() {
        var random = SeededRandom(seed: 54)
        let actions: [LedgerAction] = [
            .served, .fault(.truncate), .fault(.reset), .fault(.close), .fault(.commitThenDrop), .fault(.hang),
            .shed, .dropped,
        ]
        for _ in 0..<5000 {
            var record = LedgerRecord(arrival: 1, connection: 1, endpoint: .send, keyID: 1, attempt: 1)
            record.status = UInt16(random.next() % 1000)
            record.retryAfter = [Double.nan, 0, 1.5, 60, 60.5, 3600, .infinity][Int(random.next() % 7)]
            record.action = actions[Int(random.next() % UInt64(actions.count))]
            record.clientGone = random.next() % 5 == 0
            let view = ServerView.Attempt(record: record, key: nil)
            #expect(view.final == OutcomeProbe.endsTheSend(record, limit: ServerView.retryAfterLimit), "\(record)")
            #expect(view.answered == OutcomeProbe.delivered(record))
        }
    }
}
