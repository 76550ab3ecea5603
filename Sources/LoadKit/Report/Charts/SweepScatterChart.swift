import Foundation

/// A sweep's environment: every policy as a point, p99 latency (log) against success rate; the
/// Pareto frontier filled and joined, the others hollow, the default and the recommendation ringed.
enum SweepScatterChart {
    struct Point {
        var label: String
        var p99: Double
        var success: Double
        var pareto: Bool
        var isDefault: Bool
        var recommended: Bool
    }

    static let caption =
        "One point per policy. Up is more sends ending ok, left is a shorter tail. Filled points are the Pareto frontier (no other policy is as good on success, p99 and amplification and better on one); the default and the recommendation are labelled."

    static func render(_ points: [Point], title: String) -> String? {
        let usable = points.filter { $0.p99.isFinite && $0.p99 > 0 && $0.success.isFinite }
        guard !usable.isEmpty else { return nil }
        let lowest = usable.map(\.success).min() ?? 0
        var canvas = SVGCanvas(
            x: .logarithmic(
                usable.map(\.p99).min() ?? 1, usable.map(\.p99).max() ?? 10, title: "p99 latency (policy ms, log)",
                label: { ChartAxis.short($0) }),
            // Padded so that points at 100 % sit inside the frame, not on it.
            y: .linear(
                max(0, lowest - 0.01), 1 + max(0.002, (1 - lowest) * 0.05), title: "success rate",
                format: { String(format: "%.3f", $0) }))
        let frontier = usable.filter(\.pareto).sorted { $0.p99 < $1.p99 }
        canvas.polyline(frontier.map { ($0.p99, $0.success) }, color: SVGCanvas.palette[0], width: 1, dashed: true)
        for point in usable {
            canvas.dot((point.p99, point.success), color: SVGCanvas.palette[0], radius: 3.5, hollow: !point.pareto)
            if point.isDefault || point.recommended {
                let color = point.recommended ? "#1a7f37" : "#d1242f"
                canvas.dot((point.p99, point.success), color: color, radius: 7, hollow: true)
                let role =
                    point.isDefault && point.recommended
                    ? "default, recommended" : point.isDefault ? "default" : "recommended"
                // The recommendation's label above its point, the default's below: they are often close.
                canvas.label(
                    "\(role): \(point.label)", at: (point.p99, point.success), anchor: "end", size: 9, dx: -9,
                    dy: point.recommended ? -9 : 15)
            }
        }
        canvas.legendEntry("frontier", color: SVGCanvas.palette[0])
        canvas.legendEntry("default", color: "#d1242f")
        canvas.legendEntry("recommended", color: "#1a7f37")
        return canvas.svg(title: title)
    }
}
