import Foundation
import TestSupport
import Testing

/// The fuzz targets' seeds and every input a fuzzer once crashed on (Fuzz/Corpus, Fuzz/Crashes),
/// replayed through the same checks scripts/fuzz.sh runs under libFuzzer; then a short seeded
/// mutation of the seeds, so `swift test` fuzzes every reader a little on every run.
@Suite("server readers: the fuzz corpora and crashes replayed, and mutated", .onItsOwnThread)
struct ServerReaderCorpusTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz")

    static func inputs(_ folder: String, _ target: String) -> [[UInt8]] {
        let url = root.appendingPathComponent(folder).appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().compactMap { name in
            (try? Data(contentsOf: url.appendingPathComponent(name))).map { Array($0) }
        }
    }

    @Test(
        "every target has seeds, and each seed and each crash reads as the contract allows",
        arguments: ServerReaderChecks.targets.keys.sorted())
    func replay(target: String) throws {
        let check = try #require(ServerReaderChecks.targets[target])
        let seeds = Self.inputs("Corpus", target)
        #expect(seeds.count >= 4, "Fuzz/Corpus/\(target) holds \(seeds.count) seeds")
        for input in seeds + Self.inputs("Crashes", target) {
            let violation = check(input)
            #expect(violation == nil, "\(String(decoding: input.prefix(200), as: UTF8.self).debugDescription)")
        }
    }

    @Test("the huge-year Retry-After crashes are kept as regressions")
    func crashesKept() {
        #expect(Self.inputs("Crashes", "retry-after").count >= 3)
    }

    /// A seeded mutation loop (bytes flipped, inserted, deleted, repeated, spliced): no trap and no
    /// violation, the same inputs on every run.
    @Test("mutated seeds read as the contract allows", arguments: ServerReaderChecks.targets.keys.sorted())
    func mutate(target: String) throws {
        let check = try #require(ServerReaderChecks.targets[target])
        let seeds = Self.inputs("Corpus", target)
        try #require(!seeds.isEmpty)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(target.utf8.count)
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
        let interesting: [[UInt8]] = [
            Array("9999999999999".utf8), Array("-".utf8), Array(":".utf8), Array("\u{0660}".utf8), [0xFF, 0xFE],
            [0], Array("[[[[[[[[".utf8), Array("\\u".utf8), Array("1e999".utf8), Array(" GMT".utf8),
        ]
        for _ in 0..<3000 {
            var input = seeds[next(seeds.count)]
            for _ in 0...next(4) {
                let at = next(input.count + 1)
                switch next(5) {
                case 0 where !input.isEmpty: input[min(at, input.count - 1)] = UInt8(next(256))
                case 1: input.insert(contentsOf: interesting[next(interesting.count)], at: at)
                case 2 where !input.isEmpty: input.removeSubrange(at..<min(input.count, at + 1 + next(8)))
                case 3:
                    input.insert(
                        contentsOf: Array(repeating: input.isEmpty ? 48 : input[at % input.count], count: next(64)),
                        at: at)
                default: input.append(contentsOf: seeds[next(seeds.count)].prefix(next(40)))
                }
            }
            let violation = check(input)
            #expect(violation == nil, "\(String(decoding: input.prefix(200), as: UTF8.self).debugDescription)")
        }
    }
}
