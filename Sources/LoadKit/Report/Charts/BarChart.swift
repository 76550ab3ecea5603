import Foundation

/// Grouped bars: one group per category, one bar per series (idempotency outcomes, cancellation
/// latency by phase against a baseline, the change of every metric in a comparison).
enum BarChart {
    struct Series {
        var name: String
        var values: [Double]
    }

    static func render(categories: [String], series: [Series], yTitle: String, title: String) -> String? {
        guard !categories.isEmpty, !series.isEmpty else { return nil }
        let values = series.flatMap(\.values).filter(\.isFinite)
        guard !values.isEmpty else { return nil }
        let low = min(0, values.min() ?? 0)
        let high = max(values.max() ?? 1, low + 1e-9)
        var x = ChartAxis.linear(0, Double(categories.count), title: "")
        x.min = 0
        x.max = Double(categories.count)
        x.ticks = categories.enumerated().map { ChartAxis.Tick(value: Double($0.offset) + 0.5, label: $0.element) }
        x.staggered = categories.count > 4
        var canvas = SVGCanvas(x: x, y: .linear(low, high, title: yTitle))
        let width = 0.8 / Double(series.count)
        for (seriesIndex, entry) in series.enumerated() {
            let color = SVGCanvas.palette[seriesIndex % SVGCanvas.palette.count]
            for (index, value) in entry.values.enumerated() where value.isFinite && index < categories.count {
                let left = Double(index) + 0.1 + Double(seriesIndex) * width
                canvas.box((left, 0), (left + width * 0.92, value), fill: color)
            }
            canvas.legendEntry(entry.name, color: color)
        }
        if low < 0 { canvas.segment((0, 0), (Double(categories.count), 0), color: "#57606a") }
        return canvas.svg(title: title)
    }
}
