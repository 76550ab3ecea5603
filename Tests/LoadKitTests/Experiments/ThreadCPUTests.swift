import FakeFrontmail
import Foundation
import Testing

@testable import LoadKit

/// The per-thread CPU split the cancellation experiment reports (the client's threads against the
/// fake server's event loop): `/proc/self/task/*/stat` lines read by a parser that takes any text.
@Suite("thread CPU: the client's and the server's threads")
struct ThreadCPUTests {
    @Test("a stat line gives its name and user plus system ticks; a name may hold spaces and parentheses")
    func parse() throws {
        let line = "3831 (fm-server-loop) S 3815 3813 32670 0 -1 4194368 10 0 0 0 7 4 0 0 20 0 14 0 4456403 1075580928"
        let parsed = try #require(ThreadCPU.parse(stat: line))
        #expect(parsed.name == "fm-server-loop" && parsed.ticks == 11)
        let odd = try #require(ThreadCPU.parse(stat: "12 (a (b) c) R 1 1 1 0 -1 0 0 0 0 0 100 23 0 0"))
        #expect(odd.name == "a (b) c" && odd.ticks == 123)
        for bad in [
            "", "12", "12 (x", "12 x) S", ")(", "12 (x) S 1 2", "12 (x) S 1 1 1 0 -1 0 0 0 0 0 -1 5",
            "12 (x) S 1 1 1 0 -1 0 0 0 0 0 18446744073709551615 1",
        ] {
            #expect(ThreadCPU.parse(stat: bad) == nil, "\(bad)")
        }
    }

    @Test("any text is a thread or nil, never a trap")
    func fuzz() {
        var state: UInt64 = 0x5EED
        let pieces = ["(", ")", " ", "1", "18446744073709551616", "-", "x", "\n", "\u{0}", "é", "99"]
        for _ in 0..<5000 {
            var text = ""
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            for index in 0..<Int(state >> 58) {
                text += pieces[Int((state >> UInt64(index % 50)) % UInt64(pieces.count))]
            }
            if let parsed = ThreadCPU.parse(stat: text) { #expect(!parsed.name.contains(")") || text.contains(")")) }
        }
    }

    @Test("a difference counts the threads alive at its end: new ones whole, ended ones not at all")
    func difference() {
        let tick = ThreadCPU.secondsPerTick
        let before = ThreadCPU.Snapshot(threads: [
            1: ("main", 100), 2: (ThreadCPU.serverThreadName, 50), 3: ("gone", 1000), 4: ("old", 500),
        ])
        let after = ThreadCPU.Snapshot(threads: [
            1: ("main", 130), 2: (ThreadCPU.serverThreadName, 57), 4: ("reused", 20), 5: ("new", 9),
        ])
        let spent = after - before
        #expect(abs(spent.client - Double(30 + 20 + 9) * tick) < 1e-9)
        #expect(abs(spent.server - 7 * tick) < 1e-9)
    }

    @Test("the server's event loop is counted as the server, the rest of the process as the client")
    func split() async throws {
        let server = try FakeFrontmailServer(core: FakeFrontmailCore())
        defer { server.shutdown() }
        let names = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
        }
        #expect(names.contains(FakeFrontmailServer.loopThreadName + "\n"))
        let before = ThreadCPU.now()
        var spin = 0.0
        // 100 ms of this thread's own CPU time (on busy cores, wall time can pass with none of it).
        func threadCPU() -> Double {
            var now = timespec()
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
            return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
        }
        let start = threadCPU()
        while threadCPU() - start < 0.1 { spin += sin(spin + 1) }
        let spent = ThreadCPU.now() - before
        #expect(spin.isFinite)
        #expect(spent.client > 0, "100 ms of this thread's work is the client's")
        #expect(spent.server >= 0)
    }
}
