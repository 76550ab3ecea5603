import Foundation
import Frontmail
import Testing

@testable import FakeFrontmail

#if canImport(Glibc)
    import Glibc
#endif

/// Chunked request bodies against a running `serve`: valid ones in random chunks, with extensions
/// and trailers, are answered 202; mutated ones (bad sizes, overflowing hex, missing CRLFs, long
/// extensions, cut short) get a 4xx or a closed connection; the server never traps or stalls.
@Suite("socket server: chunked bodies, fuzzed")
struct ChunkedFuzzTests {
    static let body = Array(#"{"template_id":"tpl_order","template_params":{"n":1},"user_id":"pk_a"}"#.utf8)

    /// A valid chunked send of `body`, in random chunks with random extensions and trailers.
    static func chunked(_ random: inout SeededRandom) -> [UInt8] {
        var out = Array(
            "POST /v1/send HTTP/1.1\r\nHost: x\r\nX-Frontmail-Public-Key: pk_a\r\nX-Frontmail-Client: raw\r\nTransfer-Encoding: chunked\r\n\r\n"
                .utf8)
        var rest = body[...]
        while !rest.isEmpty {
            let size = min(rest.count, 1 + Int(random.next() % 24))
            var line = String(size, radix: 16, uppercase: random.next() % 2 == 0)
            if random.next() % 3 == 0 { line += ";ext=\(random.next() % 1000)" }
            out += Array((line + "\r\n").utf8) + rest.prefix(size) + Array("\r\n".utf8)
            rest = rest.dropFirst(size)
        }
        out += Array("0\r\n".utf8)
        if random.next() % 3 == 0 { out += Array("X-Trailer: \(random.next() % 100)\r\n".utf8) }
        out += Array("\r\n".utf8)
        return out
    }

    /// One of the ways a chunked request goes wrong.
    static func mutate(_ bytes: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        var bytes = bytes
        let head = bytes.count - body.count - 40
        switch random.next() % 6 {
        case 0:  // a flipped byte anywhere in the body part
            let index = max(0, head) + Int(random.next() % UInt64(max(1, bytes.count - max(0, head))))
            if index < bytes.count { bytes[index] ^= UInt8(truncatingIfNeeded: 1 + random.next() % 255) }
        case 1:  // cut short
            bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
        case 2:  // a size that overflows 64 bits
            bytes = Array(bytes.prefix(max(0, head))) + Array("fffffffffffffffffffff\r\nab\r\n0\r\n\r\n".utf8)
        case 3:  // an extension past the per-line bound
            bytes =
                Array(bytes.prefix(max(0, head)))
                + Array("4;\(String(repeating: "e", count: 5000))\r\nabcd\r\n0\r\n\r\n".utf8)
        case 4:  // a chunk line without its CRLF
            bytes = Array(bytes.prefix(max(0, head))) + Array("4abcd0\r\n\r\n".utf8)
        default:  // a negative or non-hex size
            bytes = Array(bytes.prefix(max(0, head))) + Array("-4\r\nabcd\r\n0\r\n\r\n".utf8)
        }
        return bytes
    }

    @Test("valid chunked sends are answered 202; mutated ones 4xx or closed; the server keeps serving")
    func fuzz() async throws {
        try await withFakeFrontmail { server in
            var random = SeededRandom(seed: 31)
            var accepted = 0
            var refused = 0
            var closed = 0
            for round in 0..<240 {
                let valid = Self.chunked(&random)
                let bytes = round % 2 == 0 ? valid : Self.mutate(valid, &random)
                let client = try RawClient(port: server.port)
                client.send(bytes)
                // End of input: an incomplete request must be answered or closed, not waited on.
                _ = shutdown(client.fd, Int32(SHUT_WR))
                let answer = await client.read()
                client.close()
                let status = answer.hasPrefix("HTTP/1.1 ") ? Int(answer.dropFirst(9).prefix(3)) : nil
                if round % 2 == 0 {
                    #expect(status == 202, "round \(round): \(answer.prefix(80))")
                    accepted += 1
                } else if let status {
                    #expect((200..<300).contains(status) || (400..<500).contains(status), "round \(round): \(status)")
                    refused += (400..<500).contains(status) ? 1 : 0
                } else {
                    closed += 1
                }
            }
            #expect(
                accepted == 120 && refused + closed > 60, "accepted \(accepted), refused \(refused), closed \(closed)")
            let client = try RawClient(port: server.port)
            defer { client.close() }
            client.send("GET /v1/public-config HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(await client.read().hasPrefix("HTTP/1.1 200"))
        }
    }
}
