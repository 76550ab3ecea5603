import Foundation
import Testing

@testable import LoadKit

@Suite("the parent-child protocol: requests are valid command lines, replies read back exactly")
struct ChildProtocolTests {
    static let replies: [ChildReply] = [
        .verdict("PASS brownout (12 assertions)"), .verdict("FAIL b: send.success_rate >= 0.9 (actual 0.5)"),
        .verdict("INTERRUPTED c"),
        .progress(ShardProgress(scheduled: 1200, inFlight: 64, ok: 1130, errors: ["rate_limited": 3, "timeout": 1])),
        .progress(ShardProgress(scheduled: 0, inFlight: 0, ok: 0, errors: [:])),
        .part("/tmp/out/brownout.shard-0-of-2.fmshard"),
    ]

    @Test("every reply reads back from its line as itself")
    func roundTrip() {
        for reply in Self.replies { #expect(ChildReply(line: Substring(reply.line)) == reply) }
        let outOfRange = [
            "progress -1 0 0 -", "progress 1 2 3 timeout:-4", "progress 9223372036854775807 0 0 -",
            "progress \(ShardProgress.maxCount + 1) 0 0 -", "progress 1 2 3 timeout", "progress 1 2 -",
        ]
        for other in ["", "listening on http://127.0.0.1:1", "PASSED x", "progress", "report: x.html", "results: y"]
            + outOfRange
        {
            #expect(ChildReply(line: Substring(other)) == nil)
        }
    }

    @Test("mutated reply lines never trap: each reads as nothing or as a reply whose line reads back the same")
    func fuzz() {
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("progress part: PASS FAIL INTERRUPTED 0123456789-:,_ \t\u{0}é".utf8)
        for _ in 0..<5_000 {
            var bytes = Array(Self.replies.randomElement(using: &random)!.line.utf8)
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !bytes.isEmpty:
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = alphabet.randomElement(using: &random)!
                case 1 where !bytes.isEmpty:
                    bytes.remove(at: Int.random(in: 0..<bytes.count, using: &random))
                default:
                    bytes.insert(
                        alphabet.randomElement(using: &random)!, at: Int.random(in: 0...bytes.count, using: &random))
                }
            }
            let line = String(decoding: bytes, as: UTF8.self)
            guard let reply = ChildReply(line: Substring(line)) else { continue }
            #expect(ChildReply(line: Substring(reply.line)) == reply, "\(line)")
            if case .progress(let progress) = reply {
                let counts = [progress.scheduled, progress.inFlight, progress.ok] + Array(progress.errors.values)
                #expect(counts.allSatisfy { (0...ShardProgress.maxCount).contains($0) }, "\(line)")
            }
        }
    }
}
