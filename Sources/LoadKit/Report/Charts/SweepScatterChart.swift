import Foundation

/// A sweep's environment: every policy as a point, the latency of its sends in time (log) against
/// the success the user sees; coloured by retry budget, the Pareto frontier filled and joined, the
/// others hollow, the default and the recommendation ringed and named in the legend (never beside
/// a marker, where they would cover another policy's).
enum SweepScatterChart {
    struct Point {
        var label: String
        var p99: Double
        var success: Double
        var pareto: Bool
        var isDefault: Bool
        var recommended: Bool
        /// The retry budget's text (`none`, `quota`, `20%`): its colour.
        var budget = "none"
    }

    static let caption =
        "One point per policy, coloured by its retry budget (the first legend entries). Up is more sends ending ok within the deadline, left is a shorter tail of those sends. Filled points are the Pareto frontier (no other policy is as good on success, latency and amplification and better on one); the default is ringed red, the recommendation green, both named in the legend."

    static func render(_ points: [Point], title: String) -> String? {
        let usable = points.filter { $0.p99.isFinite && $0.p99 > 0 && $0.success.isFinite }
        guard !usable.isEmpty else { return nil }
        let lowest = usable.map(\.success).min() ?? 0
        var canvas = SVGCanvas(
            x: .logarithmic(
                usable.map(\.p99).min() ?? 1, usable.map(\.p99).max() ?? 10,
                title: "latency of the sends in time (policy ms, log)", label: { ChartAxis.short($0) }),
            // A rate's axis never leaves [0, 1].
            y: .linear(
                max(0, min(lowest, 1 - 0.002) - max(0.002, (1 - lowest) * 0.05)), 1,
                title: "success within the deadline",
                format: { String(format: "%.3f", $0) }))
        var budgets: [String] = []
        for point in usable.sorted(by: { $0.budget < $1.budget }) where !budgets.contains(point.budget) {
            budgets.append(point.budget)
        }
        // "none" first, so the budget-free policies keep the first colour.
        if let none = budgets.firstIndex(of: "none") { budgets.insert(budgets.remove(at: none), at: 0) }
        func color(_ budget: String) -> String {
            SVGCanvas.palette[(budgets.firstIndex(of: budget) ?? 0) % SVGCanvas.palette.count]
        }
        let frontier = usable.filter(\.pareto).sorted { $0.p99 < $1.p99 }
        canvas.polyline(frontier.map { ($0.p99, $0.success) }, color: "#888888", width: 1, dashed: true)
        for point in usable {
            canvas.dot((point.p99, point.success), color: color(point.budget), radius: 3.5, hollow: !point.pareto)
        }
        for point in usable where point.isDefault || point.recommended {
            canvas.dot(
                (point.p99, point.success), color: point.recommended ? "#1a7f37" : "#d1242f",
                radius: point.isDefault && point.recommended ? 9 : 7, hollow: true)
        }
        for budget in budgets { canvas.legendEntry(budget, color: color(budget)) }
        if let defaultPoint = usable.first(where: \.isDefault) {
            canvas.legendEntry("default: \(defaultPoint.label)", color: "#d1242f")
        }
        if let recommended = usable.first(where: \.recommended) {
            canvas.legendEntry("recommended: \(recommended.label)", color: "#1a7f37")
        }
        return canvas.svg(title: title)
    }
}
