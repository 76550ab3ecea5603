// The socket constants (SOCK_STREAM, SOCK_CLOEXEC): a batch that also compiles a file importing
// CFakeFrontmailSystem, whose header includes <sys/socket.h>, may see them as that module's.
import CFakeFrontmailSystem
import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

#if canImport(Glibc)
    import Glibc
#endif

/// A raw TCP client for speaking bytes to the server.
struct RawClient {
    let fd: Int32

    init(port: Int) throws {
        // Close-on-exec: a child another test starts meanwhile must not hold this connection open
        // (the server would never see this client leave).
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        // A limit that only ends a hang: the server ends every exchange these tests make by an
        // answer or a close, and 5 s once passed before a loaded 2-core runner let it answer.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the peer closes or `count` responses (by status line) have arrived, on a thread
    /// of its own: a blocking `recv` (up to its 60 s timeout) must not hold one of the cooperative
    /// pool's few threads, which every other test of this process needs.
    func read(responses count: Int = 1) async -> String {
        let fd = self.fd
        return await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Self.readBlocking(fd: fd, count: count)) }.start()
        }
    }

    static func readBlocking(fd: Int32, count: Int) -> String {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let text = String(decoding: data, as: UTF8.self)
            if text.components(separatedBy: "HTTP/1.1 ").count - 1 >= count, complete(text, count) { return text }
            let received = recv(fd, &buffer, buffer.count, 0)
            if received <= 0 { return text }
            data += buffer[0..<received]
        }
    }

    private static func complete(_ text: String, _ count: Int) -> Bool {
        // Every response carries Content-Length: check the last body is whole.
        guard let lastHead = text.range(of: "HTTP/1.1 ", options: .backwards),
            let headEnd = text.range(of: "\r\n\r\n", range: lastHead.upperBound..<text.endIndex),
            let lengthLine = text.range(of: "Content-Length: ", range: lastHead.upperBound..<headEnd.lowerBound)
        else { return false }
        let digits = text[lengthLine.upperBound...].prefix { $0.isNumber }
        return text[headEnd.upperBound...].utf8.count >= Int(digits) ?? 0
    }

    func close() { _ = Glibc.close(fd) }
}

@Suite("socket server: keep-alive, limits and hostile input")
struct ServerRobustnessTests {
    static let body = #"{"template_id":"tpl_order","template_params":{},"user_id":"pk_a"}"#
    static let send =
        "POST /v1/send HTTP/1.1\r\nHost: x\r\nX-Frontmail-Public-Key: pk_a\r\nX-Frontmail-Client: raw\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"

    @Test("pipelined keep-alive requests on one connection are answered in order")
    func keepAlive() async throws {
        try await withFakeFrontmail { server in
            let client = try RawClient(port: server.port)
            defer { client.close() }
            let body = #"{"template_id":"tpl_order","template_params":{},"user_id":"pk_a"}"#
            let request =
                "POST /v1/send HTTP/1.1\r\nHost: x\r\nX-Frontmail-Public-Key: pk_a\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
            client.send(request + request + "GET /v1/public-config HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = await client.read(responses: 3)
            #expect(text.components(separatedBy: "HTTP/1.1 202").count == 3)
            #expect(text.contains("HTTP/1.1 200"))
            #expect(text.contains("msg_1") && text.contains("msg_2"))
            #expect(server.stats.connectionsOpened == 1)
        }
    }

    @Test("a bad request line gets 400 and the connection is closed")
    func badRequestLine() async throws {
        try await withFakeFrontmail { server in
            let client = try RawClient(port: server.port)
            defer { client.close() }
            client.send("HELLO THERE\r\n\r\n")
            let text = await client.read(responses: 5)
            #expect(text.hasPrefix("HTTP/1.1 400"))
            #expect(text.contains("Connection: close"))
            #expect(server.stats.malformedRequests == 1)
        }
    }

    @Test("oversized headers get 431, oversized bodies 413")
    func oversized() async throws {
        var options = FakeFrontmailServer.Options()
        options.limits.maxBodyBytes = 1000
        try await withFakeFrontmail(options: options) { server in
            let headers = try RawClient(port: server.port)
            defer { headers.close() }
            headers.send("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
            #expect(await headers.read(responses: 5).hasPrefix("HTTP/1.1 431"))
            let body = try RawClient(port: server.port)
            defer { body.close() }
            body.send("POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n")
            #expect(await body.read(responses: 5).hasPrefix("HTTP/1.1 413"))
        }
    }

    @Test("random, partial and oversized input never crashes or hangs the server (300 connections)")
    func hostileInput() async throws {
        try await withFakeFrontmail { server in
            var random = SeededRandom(seed: 7)
            for round in 0..<300 {
                let client = try RawClient(port: server.port)
                let length = Int(random.next() % 3000)
                var bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if round % 3 == 0 {
                    bytes = Array("POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n".utf8) + bytes
                }
                if round % 5 == 0 { bytes = Array(Self.send.utf8.prefix(Int(random.next() % 120))) }
                client.send(bytes)
                client.close()
            }
            // Still serving, and every connection was cleaned up.
            let client = try RawClient(port: server.port)
            defer { client.close() }
            client.send("GET /v1/public-config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await client.read().hasPrefix("HTTP/1.1 200"))
            for _ in 0..<200 where server.stats.connectionsActive > 1 { try await Task.sleep(nanoseconds: 10_000_000) }
            #expect(server.stats.connectionsActive <= 1)
        }
    }

    static let keyedSend =
        "POST /v1/send HTTP/1.1\r\nHost: x\r\nX-Frontmail-Public-Key: pk_a\r\nX-Frontmail-Client: raw\r\n"
        + "Idempotency-Key: 0b5c3a52-8f0e-4d7c-9a51-2f1c6e3d4b7a\r\n"
        + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)"

    @Test(
        "a delayed request whose client leaves: processed at once by default (a retry is replayed), or on time when the server finishes abandoned work (a retry meanwhile meets 409, one email either way)",
        arguments: [false, true])
    func abandonedWork(onTime: Bool) async throws {
        let plan = FaultPlan(rules: [
            FaultRule(action: FaultAction(.delay, delay: .fixed(TimeSpan(seconds: 20))), limit: 1)
        ])
        let core = FakeFrontmailCore(plan: plan)
        var options = FakeFrontmailServer.Options()
        options.finishesAbandonedWorkOnTime = onTime
        let server = try FakeFrontmailServer(core: core, options: options)
        defer { server.shutdown() }
        // The client's steps on a thread of their own, waiting on what the server has seen (the
        // request held, then its client gone), never on the cooperative pool, which a loaded test
        // run can hold for longer than the delay.
        let port = server.port
        let answer: String = await withCheckedContinuation { continuation in
            Thread {
                guard let first = try? RawClient(port: port) else { return continuation.resume(returning: "") }
                first.send(Self.keyedSend)
                for _ in 0..<3000 where core.emulator.keysInProgress == 0 { usleep(10_000) }
                first.close()
                for _ in 0..<3000 where server.stats.connectionsActive > 0 { usleep(10_000) }
                // The retry, with the same key, while the first is still held.
                guard let retry = try? RawClient(port: port) else { return continuation.resume(returning: "") }
                defer { retry.close() }
                retry.send(Self.keyedSend)
                continuation.resume(returning: RawClient.readBlocking(fd: retry.fd, count: 1))
            }.start()
        }
        if onTime {
            #expect(answer.hasPrefix("HTTP/1.1 409"), "\(answer.prefix(200))")
            #expect(answer.contains("still being processed"))
            for _ in 0..<4000 where core.ledger.records.contains(where: { $0.finished.isNaN }) {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(core.ledger.record(0).finished >= 20 && core.ledger.record(0).clientGone)
            // The retry came, and was answered, while the first was in progress.
            #expect(core.ledger.record(1).finished < core.ledger.record(0).finished)
        } else {
            #expect(answer.hasPrefix("HTTP/1.1 202"), "\(answer.prefix(200))")
        }
        #expect(core.ledger.records.filter { $0.effect }.count == 1)
        #expect(core.ledger.record(0).effect)
    }

    @Test("shutdown closes held connections and returns")
    func shutdownWithHeldRequests() async throws {
        let plan = FaultPlan.on(nil, FaultAction(.hang))
        let core = FakeFrontmailCore(plan: plan)
        let server = try FakeFrontmailServer(core: core)
        let client = try RawClient(port: server.port)
        defer { client.close() }
        client.send(Self.send)
        // By the clock, generously: a loaded runner may take seconds to hand the request over.
        let deadline = ContinuousClock.now + .seconds(30)
        while core.ledger.count == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(core.ledger.count == 1)
        server.shutdown()
        #expect(await client.read().isEmpty)
        #expect(core.ledger.record(0).clientGone)
        server.shutdown()
    }

    @Test("RST on reset, FIN on close, partial body on truncate")
    func connectionFaults() async throws {
        let plan = FaultPlan.sequence([FaultAction(.reset), FaultAction(.close), FaultAction(.truncate, keepBytes: 5)])
        try await withFakeFrontmail(plan: plan) { server in
            for expectation in ["reset", "close", "truncate"] {
                let client = try RawClient(port: server.port)
                defer { client.close() }
                client.send(Self.send.replacingOccurrences(of: "Host: x", with: "Host: x\r\nIdempotency-Key: same"))
                let text = await client.read()
                switch expectation {
                case "truncate":
                    #expect(text.hasPrefix("HTTP/1.1 202"))
                    #expect(text.hasSuffix("\r\n\r\n{\"mes"))
                default:
                    #expect(text.isEmpty)
                }
            }
        }
    }
}
