import CFakeFrontmailSystem
import Foundation
import Frontmail
import Synchronization
import Testing

@testable import FakeFrontmail

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that try to take the server down; after each, the server still answers and holds no
/// buffered input.
@Suite("socket server: hostile clients")
struct HostileClientTests {
    static let publicConfig = "GET /v1/public-config HTTP/1.1\r\nHost: x\r\n\r\n"

    /// The server still answers a fresh connection and holds no buffered input.
    static func stillServes(_ server: FakeFrontmailServer) async throws {
        let client = try RawClient(port: server.port)
        defer { client.close() }
        client.send(publicConfig)
        let answer = await client.read()
        #expect(answer.hasPrefix("HTTP/1.1 200"), "answer: \(answer.prefix(300).debugDescription)")
        #expect(server.stats.bufferedInputBytes == 0)
    }

    @Test("thousands of pipelined requests in one write are answered in order, without recursion")
    func deepPipelining() async throws {
        let core = FakeFrontmailCore()
        let server = try FakeFrontmailServer(core: core)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        let count = 3000
        let one = Array(ServerRobustnessTests.send.utf8)
        var burst: [UInt8] = []
        for _ in 0..<count { burst += one }
        // Written from another thread while this one reads: the server stops reading when too much
        // waits unanswered, so a client that only writes would wait on itself.
        let bytes = burst
        let writer = Thread { client.send(bytes) }
        writer.start()
        let text = await client.read(responses: count)
        #expect(text.components(separatedBy: "HTTP/1.1 202").count - 1 == count)
        #expect(core.ledger.count == count)
        try await Self.stillServes(server)
    }

    @Test("a head that never completes gets 408; a connection that sends nothing is closed")
    func slowloris() async throws {
        var options = FakeFrontmailServer.Options()
        options.headerTimeout = 0.2
        options.idleTimeout = 0.4
        let server = try FakeFrontmailServer(core: FakeFrontmailCore(), options: options)
        defer { server.shutdown() }
        let partial = try RawClient(port: server.port)
        defer { partial.close() }
        partial.send("POST /v1/send HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        let silent = try RawClient(port: server.port)
        defer { silent.close() }
        #expect(await partial.read().hasPrefix("HTTP/1.1 408"))
        #expect(await silent.read().isEmpty)
        #expect(server.stats.connectionsTimedOut == 2)
        try await Self.stillServes(server)
    }

    @Test("a flood of empty lines is refused once it passes the head limit")
    func emptyLineFlood() async throws {
        let server = try FakeFrontmailServer(core: FakeFrontmailCore())
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }
        client.send(String(repeating: "\r\n", count: 40_000))
        #expect(await client.read().hasPrefix("HTTP/1.1 400"))
        try await Self.stillServes(server)
    }

    @Test("past the input budget a large partial body is refused with 503; the others are served")
    func inputBudget() async throws {
        var options = FakeFrontmailServer.Options()
        options.inputBudget = 100_000
        let server = try FakeFrontmailServer(core: FakeFrontmailCore(), options: options)
        defer { server.shutdown() }
        let hog = try RawClient(port: server.port)
        defer { hog.close() }
        hog.send("POST /v1/send HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
        hog.send([UInt8](repeating: 0x41, count: 200_000))
        let answer = await hog.read()
        #expect(answer.hasPrefix("HTTP/1.1 503"))
        #expect(answer.contains("Retry-After: 1"))
        #expect(server.stats.requestsOverBudget == 1)
        try await Self.stillServes(server)
    }

    @Test("out of descriptors: the waiting connection is refused, the listener does not spin, the next one is served")
    func outOfDescriptors() async throws {
        let failures = Atomic(1)
        let accepts = Atomic(0)
        var options = FakeFrontmailServer.Options()
        options.accept = { listener in
            accepts.add(1, ordering: .relaxed)
            if failures.load(ordering: .relaxed) > 0 {
                failures.subtract(1, ordering: .relaxed)
                errno = EMFILE
                return -1
            }
            return cfm_accept_nonblocking(listener)
        }
        let server = try FakeFrontmailServer(core: FakeFrontmailCore(), options: options)
        defer { server.shutdown() }
        let refused = try RawClient(port: server.port)
        defer { refused.close() }
        #expect(await refused.read().isEmpty)
        #expect(server.stats.connectionsRefused == 1)
        try await Self.stillServes(server)
        // One failed accept, the refusal, the served connection and the EAGAIN after each:
        // a spinning listener would have called it thousands of times.
        #expect(accepts.load(ordering: .relaxed) < 20)
    }

    @Test("with a path prefix, a request without it gets 421 and never reaches the ledger")
    func misdirected() async throws {
        var options = FakeFrontmailServer.Options()
        options.pathPrefix = "/fm-test"
        let core = FakeFrontmailCore()
        let server = try FakeFrontmailServer(core: core, options: options)
        defer { server.shutdown() }
        #expect(server.url.absoluteString.hasSuffix(":\(server.port)/fm-test"))
        let stray = try RawClient(port: server.port)
        defer { stray.close() }
        stray.send(ServerRobustnessTests.send)
        #expect(await stray.read().hasPrefix("HTTP/1.1 421"))
        #expect(core.ledger.count == 0)
        #expect(server.stats.requestsMisdirected == 1)
        let ours = try RawClient(port: server.port)
        defer { ours.close() }
        ours.send(Self.publicConfig.replacingOccurrences(of: "GET /v1/", with: "GET /fm-test/v1/"))
        #expect(await ours.read().hasPrefix("HTTP/1.1 200"))
        #expect(core.ledger.count == 1)
    }

    /// Starts `/bin/sleep 30` with posix_spawn and no file actions: it inherits every descriptor
    /// of this process that is not close-on-exec. Returns its pid (killed by `reap`).
    static func spawnSleeper() throws -> pid_t {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sleep", "30"]
        let arguments: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = posix_spawn(&pid, "/bin/sleep", nil, nil, arguments, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        return pid
    }

    static func reap(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// The inode of the socket listening on 127.0.0.1:`port` (from /proc/net/tcp).
    static func listenerInode(port: Int) throws -> String {
        // Read to the end: String(contentsOfFile:) stops after the first 4 kB of a /proc file, and
        // with a few dozen sockets open (a sanitized test run) the listener's line is further on.
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { throw POSIXError(.ENOENT) }
        defer { try? file.close() }
        let table = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        let local = String(format: "0100007F:%04X", port)
        for line in table.split(separator: "\n").dropFirst() {
            // sl, local, remote, state (0A: listening), queues, timer, retransmits, uid, timeout, inode
            let fields = line.split(separator: " ")
            if fields.count > 9, fields[1] == local, fields[3] == "0A" { return String(fields[9]) }
        }
        throw POSIXError(.ENOENT)
    }

    /// The inodes of the sockets process `pid` holds open.
    static func sockets(of pid: pid_t) -> Set<String> {
        let folder = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Set(
            names.compactMap { name in
                guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name),
                    target.hasPrefix("socket:[")
                else { return nil }
                return String(target.dropFirst(8).dropLast())
            })
    }

    @Test("a child started while the server runs does not hold its listener")
    func childDoesNotInheritTheListener() throws {
        let server = try FakeFrontmailServer(core: FakeFrontmailCore())
        defer { server.shutdown() }
        let listener = try Self.listenerInode(port: server.port)
        let child = try Self.spawnSleeper()
        defer { Self.reap(child) }
        #expect(!Self.sockets(of: child).contains(listener), "the child holds the listener of port \(server.port)")
        // The check itself: a listener whose close-on-exec flag is cleared is held by the child.
        let (inherited, port) = try Socket.listen(host: "127.0.0.1", port: 0, reusePort: false)
        defer { _ = Glibc.close(inherited) }
        #expect(fcntl(inherited, F_GETFD) & FD_CLOEXEC != 0)
        _ = fcntl(inherited, F_SETFD, 0)
        let holder = try Self.spawnSleeper()
        defer { Self.reap(holder) }
        #expect(Self.sockets(of: holder).contains(try Self.listenerInode(port: port)))
    }

    @Test("a second server on a port in use is refused unless both ask to share the port")
    func portInUse() async throws {
        let first = try FakeFrontmailServer(core: FakeFrontmailCore())
        defer { first.shutdown() }
        let taken = FakeFrontmailServer.Options(port: first.port)
        var sharing = taken
        sharing.sharePort = true
        // The first did not share its port: neither a plain second server nor a sharing one joins it.
        for options in [taken, sharing] {
            #expect {
                _ = try FakeFrontmailServer(core: FakeFrontmailCore(), options: options)
            } throws: { error in
                (error as? SocketError)?.code == EADDRINUSE
            }
        }
        try await Self.stillServes(first)
        var shares = FakeFrontmailServer.Options()
        shares.sharePort = true
        let open = try FakeFrontmailServer(core: FakeFrontmailCore(), options: shares)
        defer { open.shutdown() }
        sharing.port = open.port
        let second = try FakeFrontmailServer(core: FakeFrontmailCore(), options: sharing)
        second.shutdown()
        try await Self.stillServes(open)
    }
}
