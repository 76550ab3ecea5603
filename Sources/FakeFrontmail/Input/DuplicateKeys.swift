import Foundation

/// The first key an input file gives twice in one object. JSON leaves a repeated key to the
/// reader, and Foundation's decoder keeps the last one without a word, so `{"sends": 10, "sends":
/// 1000000}` ran the second: every input is refused instead, naming the key's path.
enum DuplicateKeys {
    /// The path of the second occurrence (`load.sends`, `plan.rules[2].action.status`), or nil.
    /// `bytes` is well-formed JSON (`JSONScanner` checked it first); anything else gives nil.
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
            var seen: Set<String> = []
            return members(closing: "}") { walker, _ in
                guard walker.bytes[walker.index] == UInt8(ascii: "\""), let key = walker.string() else { return .stop }
                let keyPath = path.isEmpty ? key : path + "." + key
                guard seen.insert(key).inserted else { return .found(keyPath) }
                walker.skipSpace()
                guard walker.index < walker.bytes.count, walker.bytes[walker.index] == UInt8(ascii: ":") else {
                    return .stop
                }
                walker.index += 1
                return walker.member(path: keyPath)
            }
        }

        private mutating func array(path: String) -> String? {
            members(closing: "]") { walker, element in walker.member(path: "\(path)[\(element)]") }
        }

        enum Step {
            case next
            case stop
            case found(String)
        }

        /// One value inside a container; `.stop` when it is not JSON (a `}` where a value belongs:
        /// the reader reports it, not this walk).
        private mutating func member(path: String) -> Step {
            let before = index
            if let found = value(path: path) { return .found(found) }
            return index > before ? .next : .stop
        }

        /// The members of the object or array that starts at `index`, up to `closing`, each handed
        /// to `each` with its place; the first duplicate found, or nil.
        private mutating func members(
            closing: Character, _ each: (inout Walker, Int) -> Step
        ) -> String? {
            let close = UInt8(ascii: closing.unicodeScalars.first!)
            index += 1
            var element = 0
            while true {
                skipSpace()
                guard index < bytes.count else { return nil }
                if bytes[index] == close {
                    index += 1
                    return nil
                }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    element += 1
                    continue
                }
                switch each(&self, element) {
                case .next: continue
                case .stop: return nil
                case .found(let path): return path
                }
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
