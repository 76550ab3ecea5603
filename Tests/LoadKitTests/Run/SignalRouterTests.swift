import Foundation
import Synchronization
import Testing

@testable import LoadKit

#if canImport(Glibc)
    import Glibc
#endif

/// How a signal reaches the mode that handles it (`ProcessSignals`), and what a closed pipe does
/// to this process's own writes.
@Suite("signals: routed to the newest listener, kept while nobody listens; a closed stderr is no crash")
struct SignalRouterTests {
    final class Seen: Sendable {
        let signals = Mutex<[String]>([])
        func add(_ text: String) { signals.withLock { $0.append(text) } }
        var all: [String] { signals.withLock { $0 } }
    }

    @Test("the newest listener takes a signal; when it stops, the one before it takes the next")
    func newestListener() {
        let seen = Seen()
        let router = SignalRouter { signal, _ in seen.add("unheard \(signal)") }
        let outer = router.listen { seen.add("outer \($0)") }
        let inner = router.listen { seen.add("inner \($0)") }
        router.deliver(SIGTERM)
        router.stopListening(inner)
        router.deliver(SIGHUP)
        router.stopListening(outer)
        #expect(seen.all == ["inner \(SIGTERM)", "outer \(SIGHUP)"])
        #expect(router.unheard == nil)
    }

    @Test("a signal while nobody listens is kept, said once as the first, and handed to the next listener at once")
    func keptUntilListened() async {
        let seen = Seen()
        // `taken`: the process disarms the end it armed for the kept signals (the listener's own
        // deadline governs); without it a run signalled while loading was ended mid-write.
        let router = SignalRouter(
            unheard: { signal, first in seen.add("unheard \(signal) first=\(first)") },
            taken: { seen.add("taken") })
        router.deliver(SIGTERM)
        router.deliver(SIGINT)
        #expect(seen.all == ["unheard \(SIGTERM) first=true", "unheard \(SIGINT) first=false"])
        #expect(router.unheard == SIGTERM)
        let taken = Seen()
        let done = DispatchSemaphore(value: 0)
        let id = router.listen { signal in
            taken.add("\(signal)")
            if signal == SIGINT { done.signal() }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                _ = done.wait(timeout: .now() + 20)
                continuation.resume()
            }
        }
        #expect(taken.all == ["\(SIGTERM)", "\(SIGINT)"])
        #expect(seen.all.last == "taken")
        #expect(router.unheard == nil)
        // Taken, but still the signal the process ends with if it outlives the deadline.
        #expect(router.firstKept == SIGTERM)
        router.stopListening(id)
    }

    @Test("a write to a pipe nobody reads fails quietly (SIGPIPE ignored); a write to an open one arrives whole")
    func closedPipe() throws {
        signal(SIGPIPE, SIG_IGN)
        var ends: [Int32] = [-1, -1]
        try #require(pipe(&ends) == 0)
        let message = String(repeating: "line of progress\n", count: 100)
        StandardStream.write(ends[1], Data(message.utf8))
        close(ends[1])
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(ends[0], &buffer, buffer.count)
            if count <= 0 { break }
            received.append(contentsOf: buffer[0..<count])
        }
        #expect(String(decoding: received, as: UTF8.self) == message)
        // Now the reader is gone: FileHandle.write traps here; this returns.
        var closed: [Int32] = [-1, -1]
        try #require(pipe(&closed) == 0)
        close(closed[0])
        StandardStream.write(closed[1], Data(message.utf8))
        close(closed[1])
    }
}
