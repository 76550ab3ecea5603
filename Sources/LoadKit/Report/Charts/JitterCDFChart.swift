import Foundation

/// The empirical CDF of the normalised backoff delays (delay ÷ the policy's cap) against the
/// uniform CDF a full-jitter backoff must follow, with the Kolmogorov-Smirnov D drawn where the gap
/// is largest.
enum JitterCDFChart {
    static func caption(d: Double, critical: Double?) -> String {
        let limit = critical.map { String(format: " against a critical value of %.4f (α = 0.05)", $0) } ?? ""
        return String(
            format:
                "The measured curve should lie on the diagonal (uniform jitter). The red segment is the largest gap, D = %.4f%@; a backoff without jitter, or with equal jitter, bends the curve far from it.",
            d, limit)
    }

    /// (D, where, the CDF's value there) for sorted samples in [0, 1].
    static func ks(_ sorted: [Double]) -> (d: Double, at: Double, empirical: Double) {
        let n = Double(sorted.count)
        var best = (d: 0.0, at: 0.0, empirical: 0.0)
        for (index, value) in sorted.enumerated() {
            let above = Double(index + 1) / n - value
            let below = value - Double(index) / n
            if above > best.d { best = (above, value, Double(index + 1) / n) }
            if below > best.d { best = (below, value, Double(index) / n) }
        }
        return best
    }

    static func render(_ samples: [Double], critical: Double?, title: String) -> (svg: String, d: Double)? {
        let sorted = samples.filter(\.isFinite).sorted()
        guard sorted.count >= 2 else { return nil }
        var canvas = SVGCanvas(
            x: .linear(0, 1, title: "normalised delay (delay ÷ cap)"), y: .linear(0, 1, title: "fraction of delays ≤ x")
        )
        canvas.polyline([(0, 0), (1, 1)], color: "#57606a", width: 1, dashed: true)
        // At most 400 steps: the CDF at evenly spaced ranks (enough for the eye, small files).
        let count = sorted.count
        let stride = max(1, count / 400)
        var points: [(Double, Double)] = [(0, 0)]
        var index = 0
        while index < count {
            points.append((sorted[index], Double(index) / Double(count)))
            points.append((sorted[index], Double(index + 1) / Double(count)))
            index += stride
        }
        points.append((sorted[count - 1], 1))
        points.append((1, 1))
        canvas.polyline(points, color: SVGCanvas.palette[0], width: 1.8)
        let gap = ks(sorted)
        canvas.segment((gap.at, gap.at), (gap.at, gap.empirical), color: "#d1242f", width: 2.5)
        canvas.legendEntry("measured (\(count) delays)", color: SVGCanvas.palette[0])
        canvas.legendEntry("uniform", color: "#57606a")
        canvas.legendEntry(String(format: "D = %.4f", gap.d), color: "#d1242f")
        return (canvas.svg(title: title), gap.d)
    }

    /// Normalised delays of jittered waits from `jitter_samples.csv`, all and per attempt.
    static func samples(csv: String) -> (all: [Double], byAttempt: [Int: [Double]]) {
        let rows = CSV.rows(csv)
        typealias Column = ResultFile.JitterSampleColumn
        guard let header = rows.first, let cause = header.index(of: Column.cause),
            let normalized = header.index(of: Column.normalized), let attempt = header.index(of: Column.afterAttempt)
        else { return ([], [:]) }
        var all: [Double] = []
        var byAttempt: [Int: [Double]] = [:]
        for fields in rows.dropFirst() where fields.count == header.count && fields[cause] == "jitter" {
            guard let value = Double(fields[normalized]), value.isFinite else { continue }
            all.append(value)
            if let number = Int(fields[attempt]) { byAttempt[number, default: []].append(value) }
        }
        return (all, byAttempt)
    }
}
