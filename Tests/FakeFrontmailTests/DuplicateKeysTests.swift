import Foundation
import Testing

@testable import FakeFrontmail

@Suite("input files: a key given twice in one object is refused, wherever it is")
struct DuplicateKeysTests {
    /// A random JSON text with unique keys, and the path of one of its objects chosen for a planted
    /// duplicate (with the text that plants it).
    struct Generated {
        var text = ""
        var objects: [(path: String, insertAt: String.Index, firstKey: String)] = []
    }

    static func value<R: RandomNumberGenerator>(
        depth: Int, path: String, into out: inout Generated, random: inout R
    ) {
        switch depth > 3 ? Int.random(in: 0...3, using: &random) : Int.random(in: 0...5, using: &random) {
        case 0: out.text += ["1", "-2.5e3", "true", "null", "0"].randomElement(using: &random)!
        case 1: out.text += ["\"a\"", "\"\\u00e9t\\u00e9\"", "\"q\\\"uote\"", "\"\""].randomElement(using: &random)!
        case 2, 3: out.text += "\"s\(Int.random(in: 0...9, using: &random))\""
        case 4:
            out.text += "[ "
            for index in 0..<Int.random(in: 0...3, using: &random) {
                if index > 0 { out.text += ", " }
                value(depth: depth + 1, path: "\(path)[\(index)]", into: &out, random: &random)
            }
            out.text += "]"
        default:
            out.text += "{"
            let keys = ["k", "é", "a\\\"b", "x y", "k2"].shuffled(using: &random).prefix(
                Int.random(in: 1...4, using: &random))
            for (index, key) in keys.enumerated() {
                if index > 0 { out.text += ",\n " }
                out.text += "\"\(key)\": "
                let shown = key.replacingOccurrences(of: "\\\"", with: "\"")
                value(depth: depth + 1, path: path.isEmpty ? shown : "\(path).\(shown)", into: &out, random: &random)
            }
            out.objects.append((path, out.text.endIndex, keys.first!))
            out.text += "}"
        }
    }

    @Test("unique keys pass; one key planted again, spelled plainly or with escapes, is found by its path")
    func planted() {
        var random = SeededRandom(seed: 77)
        var found = 0
        for _ in 0..<2000 {
            var generated = Generated()
            generated.text = "{\"root\": "
            Self.value(depth: 0, path: "root", into: &generated, random: &random)
            generated.text += "}"
            #expect(DuplicateKeys.first(in: Array(generated.text.utf8)) == nil, "\(generated.text)")
            guard let object = generated.objects.randomElement(using: &random) else { continue }
            // The same key again, escaped where it can be (`k` as `\u006b`).
            let spelled = object.firstKey == "k" && Bool.random(using: &random) ? "\\u006b" : object.firstKey
            var planted = generated.text
            planted.insert(contentsOf: ", \"\(spelled)\": 1", at: object.insertAt)
            let shown = object.firstKey.replacingOccurrences(of: "\\\"", with: "\"")
            let expected = object.path.isEmpty ? shown : "\(object.path).\(shown)"
            #expect(DuplicateKeys.first(in: Array(planted.utf8)) == expected, "\(planted)")
            found += 1
        }
        #expect(found > 300)
    }

    @Test("truncated or odd bytes end the walk without a finding (the JSON reader reports them)")
    func brokenInput() {
        var random = SeededRandom(seed: 5)
        let text = Array(#"{"a": {"b": [1, {"c": "d\"", "e": null}], "f": "\\"}, "g": 2}"#.utf8)
        for _ in 0..<3000 {
            var bytes = Array(text.prefix(Int.random(in: 0...text.count, using: &random)))
            if !bytes.isEmpty, Bool.random(using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            _ = DuplicateKeys.first(in: bytes)
        }
        #expect(DuplicateKeys.first(in: text) == nil)
    }
}
