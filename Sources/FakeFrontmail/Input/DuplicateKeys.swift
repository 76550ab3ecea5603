import Foundation

/// The first key an input file gives twice in one object. JSON leaves a repeated key to the
/// reader, and Foundation's decoder keeps the last one without a word, so `{"sends": 10, "sends":
/// 1000000}` ran the second: every input is refused instead, naming the key's path.
enum DuplicateKeys {
    /// The path of the second occurrence (`load.sends`, `plan.rules[2].action.status`), or nil.
    /// `bytes` is well-formed JSON (`JSONReader` read it first); anything else gives nil.
    static func first(in bytes: [UInt8]) -> String? {
        var walker = Walker(bytes: bytes)
        return walker.value(path: "")
    }

    private struct Walker {
        let bytes: [UInt8]
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count, [9, 10, 13, 32].contains(bytes[index]) { index += 1 }
        }

        /// Walks one value; the duplicate's path, if one is inside it.
        mutating func value(path: String) -> String? {
            skipSpace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object(path: path)
            case UInt8(ascii: "["): return array(path: path)
            case UInt8(ascii: "\""):
                _ = string()
                return nil
            default:
                while index < bytes.count,
                    ![UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), 9, 10, 13, 32]
                        .contains(bytes[index])
                {
                    index += 1
                }
                return nil
            }
        }

        private mutating func object(path: String) -> String? {
            index += 1
            var seen: Set<String> = []
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    return nil
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
                let keyPath = path.isEmpty ? key : path + "." + key
                guard seen.insert(key).inserted else { return keyPath }
                skipSpace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                let before = index
                if let found = value(path: keyPath) { return found }
                guard index > before else { return nil }
            }
        }

        private mutating func array(path: String) -> String? {
            index += 1
            var element = 0
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    return nil
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    element += 1
                    continue
                }
                let before = index
                if let found = value(path: "\(path)[\(element)]") { return found }
                // Not JSON (a `}` where an element belongs): the reader reports it, not this walk.
                guard index > before else { return nil }
            }
        }

        /// The string at `index` (its opening quote), unescaped; `index` moves past its closing quote.
        private mutating func string() -> String? {
            let start = index
            index += 1
            var escaped = false
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                if bytes[index] == UInt8(ascii: "\\") {
                    escaped = true
                    index += 1
                }
                index += 1
            }
            guard index < bytes.count else { return nil }
            index += 1
            let raw = bytes[start..<index]
            guard escaped else { return String(decoding: raw.dropFirst().dropLast(), as: UTF8.self) }
            return try? JSONDecoder().decode(String.self, from: Data(raw))
        }
    }
}
