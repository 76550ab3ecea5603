import Foundation
import Frontmail
import TestSupport
import Testing

@testable import FakeFrontmail

@Suite("HTTP/1.1 request parser", .onItsOwnThread)
struct HTTPRequestParserTests {
    let parser = HTTPRequestParser()

    private func parse(_ text: String) -> HTTPRequestParser.Result {
        Array(text.utf8).withUnsafeBufferPointer { parser.parse($0) }
    }

    @Test("a request with Content-Length, keep-alive by default in HTTP/1.1")
    func contentLength() throws {
        let text = "POST /v1/send?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-Thing:  spaced  \r\n\r\nhelloNEXT"
        guard case .complete(let request, let consumed) = parse(text) else {
            Issue.record("not complete")
            return
        }
        #expect(request.method == "POST")
        #expect(request.target == "/v1/send?x=1")
        #expect(request.body == Array("hello".utf8))
        #expect(request.headers["x-thing"] == "spaced")
        #expect(request.keepAlive)
        #expect(consumed == text.utf8.count - 4)
    }

    @Test("chunked bodies with extensions and trailers")
    func chunked() {
        let text =
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\n"
        guard case .complete(let request, let consumed) = parse(text) else {
            Issue.record("not complete")
            return
        }
        #expect(String(decoding: request.body, as: UTF8.self) == "hello world")
        #expect(consumed == text.utf8.count)
    }

    @Test("leading zeros in a chunk size are its spelling, not its size: 00000000005 is five bytes")
    func leadingZeros() {
        let text =
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n00000000005\r\nhello\r\n0000000000\r\n\r\n"
        guard case .complete(let request, _) = parse(text) else {
            Issue.record("refused: \(parse(text))")
            return
        }
        #expect(request.body == Array("hello".utf8))
        // Nine significant digits are still too large.
        let huge = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0100000000\r\n"
        guard case .invalid(413, _) = parse(huge) else {
            Issue.record("a 4 GiB chunk was not 413")
            return
        }
    }

    @Test("a chunk size may be followed by whitespace before its extension; HTTP/1.0 needs no Host")
    func lenientWhereTheRFCIs() {
        let spaced = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 ;ext=1\r\nhello\r\n0\r\n\r\n"
        guard case .complete(let request, _) = parse(spaced) else {
            Issue.record("not complete")
            return
        }
        #expect(request.body == Array("hello".utf8))
        guard case .complete = parse("\r\n\r\nGET / HTTP/1.0\r\n\r\n") else {
            Issue.record("HTTP/1.0 without Host refused")
            return
        }
    }

    @Test("incomplete input asks for more, at every split point")
    func incremental() {
        let text = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let bytes = Array(text.utf8)
        for cut in 0..<bytes.count {
            let result = Array(bytes[0..<cut]).withUnsafeBufferPointer { parser.parse($0) }
            guard case .needMore = result else {
                Issue.record("cut at \(cut) did not ask for more")
                return
            }
        }
    }

    @Test("Connection: close and HTTP/1.0 end keep-alive")
    func connectionHandling() {
        guard case .complete(let closing, _) = parse("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
            case .complete(let old, _) = parse("GET / HTTP/1.0\r\n\r\n"),
            case .complete(let oldKeep, _) = parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        else {
            Issue.record("not complete")
            return
        }
        #expect(!closing.keepAlive)
        #expect(!old.keepAlive)
        #expect(oldKeep.keepAlive)
    }

    @Test(
        "malformed requests are 400",
        arguments: [
            "GARBAGE\r\n\r\n", "GET\r\n\r\n", "GET / HTTP/2.0\r\n\r\n", "GET nopath HTTP/1.1\r\nHost: x\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\n: empty-name\r\n\r\n", "G\u{1}T / HTTP/1.1\r\nHost: x\r\n\r\n",
            // RFC 9112 §3.2: HTTP/1.1 needs exactly one Host.
            "GET / HTTP/1.1\r\n\r\n", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
            // Chunk sizes are hex digits, then optional whitespace and an extension, nothing else.
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5zzz\r\nhello\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a\u{0}b\r\nhello\r\n0\r\n\r\n",
            // Chunked applied twice, on two lines as on one; two idempotency keys (which send?).
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\r\nIdempotency-Key: b\r\nContent-Length: 0\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nidempotency-key: a\r\nIdempotency-Key: a\r\nContent-Length: 0\r\n\r\n",
            // A chunk-size line of leading zeros past the line limit.
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "0", count: 5000)
                + "5\r\nhello\r\n0\r\n\r\n",
            // Empty lines before a request count against the head limit (16 KB).
            String(repeating: "\r\n", count: 9000) + "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
            String(repeating: "\r\n", count: 9000),
        ])
    func malformed(text: String) {
        guard case .invalid(let status, _) = parse(text) else {
            Issue.record("accepted: \(text.debugDescription)")
            return
        }
        #expect(status == 400)
    }

    @Test("oversized headers are 431; oversized bodies are 413")
    func limits() {
        var limits = HTTPRequestParser.Limits()
        limits.maxHeaderBytes = 100
        limits.maxBodyBytes = 10
        let strict = HTTPRequestParser(limits: limits)
        let big = "GET / HTTP/1.1\r\nHost: x\r\nX: " + String(repeating: "a", count: 200)
        guard case .invalid(431, _) = Array(big.utf8).withUnsafeBufferPointer({ strict.parse($0) }) else {
            Issue.record("no 431")
            return
        }
        let body = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
        guard case .invalid(413, _) = Array(body.utf8).withUnsafeBufferPointer({ strict.parse($0) }) else {
            Issue.record("no 413")
            return
        }
        let chunked = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n"
        guard case .invalid(413, _) = Array(chunked.utf8).withUnsafeBufferPointer({ strict.parse($0) }) else {
            Issue.record("no 413 for chunked")
            return
        }
    }

    @Test("random bytes never trap and end in needMore, complete or 4xx (20,000 inputs)")
    func randomInput() {
        var random = SeededRandom(seed: 99)
        let pieces = [
            "GET ", "POST ", "/v1/send", " HTTP/1.1", "\r\n", ":", "Content-Length: ", "Transfer-Encoding: chunked",
            "0", "5", "ff", "\r\n\r\n", "x", " ", "\u{0}", "\u{7F}", "é",
        ].map { Array($0.utf8) }
        for _ in 0..<20_000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(random.next() % 24) {
                if random.next() % 4 == 0 {
                    bytes.append(UInt8(truncatingIfNeeded: random.next()))
                } else {
                    bytes += pieces[Int(random.next() % UInt64(pieces.count))]
                }
            }
            switch bytes.withUnsafeBufferPointer({ parser.parse($0) }) {
            case .needMore: break
            case .complete(_, let consumed): #expect(consumed <= bytes.count)
            case .invalid(let status, _): #expect((400..<500).contains(status))
            }
        }
    }

    /// A chunked request of `chunks` pieces, each with an extension, and a trailer field.
    static func chunkedRequest(_ chunks: [[UInt8]], extensions: Bool, trailer: String = "X-T: 1") -> [UInt8] {
        var bytes = Array("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for (index, chunk) in chunks.enumerated() {
            bytes += Array(
                (String(chunk.count, radix: 16) + (extensions ? ";n=\(index);name=\"v\"" : "") + "\r\n").utf8)
            bytes += chunk + [13, 10]
        }
        bytes += Array("0\r\n\(trailer)\r\n\r\n".utf8)
        return bytes
    }

    @Test("a valid chunked body with extensions on every chunk is read whole, past 64 KB")
    func longChunkedWithExtensions() {
        let chunks = (0..<200).map { index in [UInt8](repeating: UInt8(65 + index % 26), count: 1024) }
        let bytes = Self.chunkedRequest(chunks, extensions: true)
        guard case .complete(let request, let consumed) = bytes.withUnsafeBufferPointer({ parser.parse($0) }) else {
            Issue.record("a valid request was refused")
            return
        }
        #expect(request.body == chunks.flatMap { $0 } && consumed == bytes.count)
        // A chunk line longer than its bound, and trailers longer than theirs, are refused.
        let longLine = Self.chunkedRequest([[1]], extensions: false).replacing(
            Array("1\r\n".utf8), with: Array(("1;" + String(repeating: "e", count: 5000) + "\r\n").utf8),
            maxReplacements: 1)
        guard case .invalid(400, _) = longLine.withUnsafeBufferPointer({ parser.parse($0) }) else {
            Issue.record("a 5 KB chunk line was accepted")
            return
        }
        let trailers = Self.chunkedRequest(
            [[1]], extensions: false, trailer: "X-T: " + String(repeating: "t", count: 20_000))
        guard case .invalid(431, _) = trailers.withUnsafeBufferPointer({ parser.parse($0) }) else {
            Issue.record("20 KB of trailers accepted")
            return
        }
    }

    @Test("fed in random pieces with its progress kept, a chunked request reads as it does whole (500 requests)")
    func resumedFraming() {
        var random = SeededRandom(seed: 7)
        for _ in 0..<500 {
            let chunks = (0..<Int(random.next() % 20)).map { _ in
                (0...Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            let bytes = Self.chunkedRequest(chunks, extensions: random.next() % 2 == 0)
            var progress: HTTPRequestParser.Progress?
            var fed = 0
            var result = HTTPRequestParser.Result.needMore
            while fed < bytes.count {
                fed = min(bytes.count, fed + 1 + Int(random.next() % 64))
                result = Array(bytes[..<fed]).withUnsafeBufferPointer { parser.parse($0, progress: &progress) }
                if case .needMore = result { continue }
                break
            }
            guard case .complete(let request, let consumed) = result else {
                Issue.record("not complete after \(fed) of \(bytes.count) bytes: \(result)")
                return
            }
            #expect(fed == bytes.count && consumed == bytes.count)
            #expect(request.body == chunks.flatMap { $0 })
        }
    }
}
