import Foundation
import TestSupport
import Testing

@testable import LoadKit

/// Explore's pooled jitter test in bounded memory: exact while the values fit, then binned, with a
/// D that is never above the exact one and at most one bin's width below it.
@Suite("stats: the uniform pool", .onItsOwnThread)
struct UniformPoolTests {
    /// Deterministic values of [0, 1): `shape` applied to a seeded uniform stream.
    static func values(_ count: Int, seed: UInt64, _ shape: (Double) -> Double = { $0 }) -> [Double] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return shape(Double(state >> 11) / Double(1 << 53))
        }
    }

    @Test("under the limit the pool is the exact test, added in any number of pieces")
    func exactBelowTheLimit() {
        let all = Self.values(10_000, seed: 3)
        var pool = UniformPool()
        for piece in stride(from: 0, to: all.count, by: 333) {
            pool.add(Array(all[piece..<min(all.count, piece + 333)]))
        }
        #expect(pool.isExact && pool.count == all.count)
        #expect(pool.test() == KolmogorovSmirnov(uniform: all))
    }

    @Test(
        "past the limit: binned D within one bin's width under the exact D; a correct draw passes, a squared one fails")
    func binnedPastTheLimit() {
        let count = UniformPool.exactLimit + 50_000
        for (values, wrong) in [
            (Self.values(count, seed: 11), false), (Self.values(count, seed: 12) { $0 * $0 }, true),
            (Self.values(count, seed: 13) { 0.5 + $0 / 2 }, true),
        ] {
            var pool = UniformPool()
            pool.add(Array(values.prefix(700_000)))
            pool.add(Array(values.dropFirst(700_000)))
            #expect(!pool.isExact && pool.count == count)
            let exact = KolmogorovSmirnov(uniform: values)
            let binned = pool.test()
            #expect(binned.n == exact.n)
            #expect(binned.d <= exact.d + 1e-12 && exact.d <= binned.d + 1 / Double(UniformPool.bins) + 1e-12)
            #expect(binned.rejects(alpha: 1e-6) == wrong, "wrong \(wrong): D \(binned.d)")
        }
    }

    @Test("values outside [0, 1] and non-finite ones fall in the edge bins, never out of range")
    func edges() {
        #expect(UniformPool.bin(-1) == 0 && UniformPool.bin(0) == 0 && UniformPool.bin(1) == UniformPool.bins - 1)
        #expect(UniformPool.bin(2) == UniformPool.bins - 1 && UniformPool.bin(.infinity) == UniformPool.bins - 1)
        #expect(UniformPool.bin(-.infinity) == 0 && UniformPool.bin(.nan) == 0)
        #expect(UniformPool().test().n == 0 && UniformPool().test().d.isNaN)
    }
}
