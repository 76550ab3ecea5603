import Frontmail

/// A body in chunked transfer coding (RFC 9112 §7.1).
extension HTTPRequestParser {
    /// Frames the chunks after `framing.next` (each complete chunk moves it on), then, once the
    /// last chunk and the trailers are in, copies the data out once.
    static func chunkedBody(
        _ buffer: UnsafeBufferPointer<UInt8>, _ framing: inout Progress, maxBytes: Int, maxTrailerBytes: Int
    ) -> Chunked {
        while true {
            var index = framing.next
            let lineStart = index
            // chunk-size [; ext] CRLF
            var size = 0
            var digits = 0
            // Leading zeros are a size's spelling, not its magnitude (`0001a` is 26 bytes); only
            // significant digits count toward "too large", and the line's length bounds the rest.
            var significant = 0
            while index < buffer.count, let digit = hexValue(buffer[index]) {
                size = size &* 16 &+ digit
                digits += 1
                if size > 0 { significant += 1 }
                guard significant <= 8 else { return .invalid(413, "chunk too large") }
                guard index - lineStart < maxChunkLineBytes else { return .invalid(400, "chunk size too long") }
                index += 1
            }
            guard index < buffer.count else { return .needMore }
            guard digits > 0 else { return .invalid(400, "malformed chunk size") }
            // Only optional whitespace, then `;` and an extension, may follow the hex digits.
            while index < buffer.count, buffer[index] == 32 || buffer[index] == 9 { index += 1 }
            guard index < buffer.count else { return .needMore }
            guard buffer[index] == 13 || buffer[index] == UInt8(ascii: ";") else {
                return .invalid(400, "malformed chunk size")
            }
            while index < buffer.count, buffer[index] != 13 {
                guard buffer[index] >= 32 || buffer[index] == 9, buffer[index] != 127 else {
                    return .invalid(400, "malformed chunk extension")
                }
                guard index - lineStart < maxChunkLineBytes else { return .invalid(400, "chunk extension too long") }
                index += 1
            }
            guard index + 1 < buffer.count else { return .needMore }
            guard buffer[index + 1] == 10 else { return .invalid(400, "malformed chunk line") }
            index += 2
            if size == 0 {
                // Trailer fields until an empty line, at most `maxTrailerBytes` of them.
                let trailersStart = index
                while true {
                    guard index + 1 < buffer.count else { return .needMore }
                    if buffer[index] == 13 && buffer[index + 1] == 10 {
                        var body: [UInt8] = []
                        body.reserveCapacity(framing.length)
                        for range in framing.ranges {
                            body.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[range]))
                        }
                        return .complete(body, end: index + 2)
                    }
                    while index + 1 < buffer.count, !(buffer[index] == 13 && buffer[index + 1] == 10) {
                        guard index - trailersStart < maxTrailerBytes else {
                            return .invalid(431, "trailer fields too large")
                        }
                        index += 1
                    }
                    guard index + 1 < buffer.count else { return .needMore }
                    index += 2
                }
            }
            guard framing.length + size <= maxBytes else { return .invalid(413, "body too large") }
            guard buffer.count - index >= size + 2 else { return .needMore }
            guard buffer[index + size] == 13, buffer[index + size + 1] == 10 else {
                return .invalid(400, "chunk not followed by CRLF")
            }
            framing.ranges.append(index..<(index + size))
            framing.length += size
            framing.next = index + size + 2
        }
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }
}
