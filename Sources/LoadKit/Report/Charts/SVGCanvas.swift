import Foundation

/// A small SVG writer for the report's charts: shapes in plot coordinates, axes with ticks and
/// labels, a legend. Output is deterministic (numbers with at most three decimals, no ids from
/// counters or clocks) and self-contained (no fonts, scripts or images from anywhere).
struct SVGCanvas {
    static let width = 720.0
    static let height = 320.0
    /// The plot area inside the margins.
    static let left = 64.0
    static let right = 16.0
    static let top = 28.0
    static let bottom = 48.0

    static let palette = ["#1f6feb", "#d1242f", "#1a7f37", "#bf8700", "#8250df", "#57606a", "#cf222e", "#0969da"]

    var x: ChartAxis
    var y: ChartAxis
    private(set) var body = ""
    private var legend: [(String, String)] = []

    init(x: ChartAxis, y: ChartAxis) {
        self.x = x
        self.y = y
    }

    var plotWidth: Double { Self.width - Self.left - Self.right }
    var plotHeight: Double { Self.height - Self.top - Self.bottom }

    /// Plot coordinates of a data point.
    func point(_ dataX: Double, _ dataY: Double) -> (Double, Double) {
        (Self.left + x.fraction(dataX) * plotWidth, Self.top + (1 - y.fraction(dataY)) * plotHeight)
    }

    mutating func add(_ element: String) { body += element + "\n" }

    /// A line through data points (non-finite points break it).
    mutating func polyline(_ points: [(Double, Double)], color: String, width: Double = 1.5, dashed: Bool = false) {
        var runs: [[(Double, Double)]] = [[]]
        for (dataX, dataY) in points {
            guard dataX.isFinite, dataY.isFinite else {
                if !(runs.last?.isEmpty ?? true) { runs.append([]) }
                continue
            }
            runs[runs.count - 1].append(point(dataX, dataY))
        }
        for run in runs where run.count >= 2 {
            let coordinates = run.map { "\(XML.number($0.0)),\(XML.number($0.1))" }.joined(separator: " ")
            add(
                "<polyline fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(XML.number(width))\"\(dashed ? " stroke-dasharray=\"5 4\"" : "") points=\"\(coordinates)\"/>"
            )
        }
    }

    /// A segment between two data points.
    mutating func segment(
        _ from: (Double, Double), _ to: (Double, Double), color: String, width: Double = 1, dashed: Bool = false
    ) {
        let (x1, y1) = point(from.0, from.1)
        let (x2, y2) = point(to.0, to.1)
        add(
            "<line x1=\"\(XML.number(x1))\" y1=\"\(XML.number(y1))\" x2=\"\(XML.number(x2))\" y2=\"\(XML.number(y2))\" stroke=\"\(color)\" stroke-width=\"\(XML.number(width))\"\(dashed ? " stroke-dasharray=\"4 3\"" : "")/>"
        )
    }

    /// A rectangle between two data corners.
    mutating func box(_ corner: (Double, Double), _ opposite: (Double, Double), fill: String, opacity: Double = 1) {
        let (x1, y1) = point(corner.0, corner.1)
        let (x2, y2) = point(opposite.0, opposite.1)
        add(
            "<rect x=\"\(XML.number(min(x1, x2)))\" y=\"\(XML.number(min(y1, y2)))\" width=\"\(XML.number(abs(x2 - x1)))\" height=\"\(XML.number(abs(y2 - y1)))\" fill=\"\(fill)\"\(opacity < 1 ? " fill-opacity=\"\(XML.number(opacity))\"" : "")/>"
        )
    }

    mutating func dot(_ at: (Double, Double), color: String, radius: Double = 3, hollow: Bool = false) {
        let (cx, cy) = point(at.0, at.1)
        let paint = hollow ? "fill=\"white\" stroke=\"\(color)\" stroke-width=\"1.5\"" : "fill=\"\(color)\""
        add("<circle cx=\"\(XML.number(cx))\" cy=\"\(XML.number(cy))\" r=\"\(XML.number(radius))\" \(paint)/>")
    }

    /// Text at a data point, moved by (`dx`, `dy`) pixels.
    mutating func label(
        _ text: String, at: (Double, Double), anchor: String = "start", size: Double = 11, dx: Double = 0,
        dy: Double = 0
    ) {
        let (lx, ly) = point(at.0, at.1)
        add(Self.text(text, x: lx + dx, y: ly + dy, anchor: anchor, size: size))
    }

    static func text(
        _ text: String, x: Double, y: Double, anchor: String = "start", size: Double = 11, rotate: Bool = false
    )
        -> String
    {
        let turn = rotate ? " transform=\"rotate(-90 \(XML.number(x)) \(XML.number(y)))\"" : ""
        return
            "<text x=\"\(XML.number(x))\" y=\"\(XML.number(y))\" font-size=\"\(XML.number(size))\" text-anchor=\"\(anchor)\"\(turn)>\(XML.escape(text))</text>"
    }

    mutating func legendEntry(_ name: String, color: String) { legend.append((name, color)) }

    /// The finished `<svg>`: frame, grid, ticks, axis labels, the shapes, the legend.
    func svg(title: String) -> String {
        var out =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(XML.number(Self.width)) \(XML.number(Self.height))\" width=\"\(XML.number(Self.width))\" height=\"\(XML.number(Self.height))\" role=\"img\" aria-label=\"\(XML.escape(title))\" font-family=\"sans-serif\">\n"
        out += "<title>\(XML.escape(title))</title>\n"
        out +=
            "<rect x=\"\(XML.number(Self.left))\" y=\"\(XML.number(Self.top))\" width=\"\(XML.number(plotWidth))\" height=\"\(XML.number(plotHeight))\" fill=\"#fbfbfb\" stroke=\"#d0d7de\"/>\n"
        for (index, tick) in x.ticks.enumerated() {
            let px = Self.left + x.fraction(tick.value) * plotWidth
            let row = x.staggered && index % 2 == 1 ? 12.0 : 0
            out +=
                "<line x1=\"\(XML.number(px))\" y1=\"\(XML.number(Self.top))\" x2=\"\(XML.number(px))\" y2=\"\(XML.number(Self.top + plotHeight))\" stroke=\"#eaeef2\"/>\n"
            out += Self.text(tick.label, x: px, y: Self.top + plotHeight + 14 + row, anchor: "middle", size: 10) + "\n"
        }
        for tick in y.ticks {
            let py = Self.top + (1 - y.fraction(tick.value)) * plotHeight
            out +=
                "<line x1=\"\(XML.number(Self.left))\" y1=\"\(XML.number(py))\" x2=\"\(XML.number(Self.left + plotWidth))\" y2=\"\(XML.number(py))\" stroke=\"#eaeef2\"/>\n"
            out += Self.text(tick.label, x: Self.left - 6, y: py + 3.5, anchor: "end", size: 10) + "\n"
        }
        out += Self.text(x.title, x: Self.left + plotWidth / 2, y: Self.height - 8, anchor: "middle") + "\n"
        out += Self.text(y.title, x: 14, y: Self.top + plotHeight / 2, anchor: "middle", rotate: true) + "\n"
        out += body
        var legendX = Self.left
        for (name, color) in legend {
            out +=
                "<rect x=\"\(XML.number(legendX))\" y=\"8\" width=\"10\" height=\"10\" fill=\"\(color)\"/>\n"
            out += Self.text(name, x: legendX + 14, y: 17, size: 10) + "\n"
            legendX += 24 + Double(name.count) * 5.6
        }
        return out + "</svg>\n"
    }
}

/// A chart axis: linear or logarithmic (base 10), its range, title and ticks.
struct ChartAxis {
    struct Tick {
        var value: Double
        var label: String
    }

    var min: Double
    var max: Double
    var log: Bool
    var title: String
    var ticks: [Tick]
    /// Tick labels on two alternating rows (long category names).
    var staggered = false

    /// A linear axis over [min, max] (widened to nice round ticks).
    static func linear(_ low: Double, _ high: Double, title: String, format: (Double) -> String = ChartAxis.short)
        -> ChartAxis
    {
        // Within ±1e300 the widened range and its ticks stay finite (near Double's limit, rounding
        // up to a whole step overflowed to infinity and the ticks never ended).
        var low = low.isFinite ? Swift.min(Swift.max(low, -1e300), 1e300) : 0
        var high = high.isFinite ? Swift.min(Swift.max(high, -1e300), 1e300) : 1
        if high <= low { high = low + Swift.max(1, abs(low) * 1e-9) }
        let step = niceStep((high - low) / 5)
        low = (low / step).rounded(.down) * step
        high = (high / step).rounded(.up) * step
        // At most a dozen ticks, whatever the range's rounding did.
        let count = Swift.min(12, Swift.max(1, Int(((high - low) / step).rounded()) + 1))
        let ticks = (0..<count).map { index -> Tick in
            let value = low + Double(index) * step
            return Tick(value: value, label: format(value))
        }
        return ChartAxis(min: low, max: high, log: false, title: title, ticks: ticks)
    }

    /// A log10 axis over [min, max] (both > 0), ticked at powers of ten.
    static func logarithmic(_ low: Double, _ high: Double, title: String, label: (Double) -> String) -> ChartAxis {
        let lowPower = (log10(Swift.max(low, 1e-12))).rounded(.down)
        let highPower = Swift.max(lowPower + 1, (log10(Swift.max(high, low * 10))).rounded(.up))
        let ticks = stride(from: lowPower, through: highPower, by: 1).map {
            Tick(value: pow(10, $0), label: label(pow(10, $0)))
        }
        return ChartAxis(min: pow(10, lowPower), max: pow(10, highPower), log: true, title: title, ticks: ticks)
    }

    func fraction(_ value: Double) -> Double {
        let share =
            log
            ? (log10(Swift.max(value, min)) - log10(min)) / (log10(max) - log10(min))
            : (value - min) / (max - min)
        return Swift.min(1, Swift.max(0, share))
    }

    /// 1, 2 or 5 × a power of ten.
    static func niceStep(_ raw: Double) -> Double {
        guard raw > 0, raw.isFinite else { return 1 }
        let power = pow(10, (log10(raw)).rounded(.down))
        for factor in [1.0, 2, 5, 10] where factor * power >= raw { return factor * power }
        return 10 * power
    }

    static func short(_ value: Double) -> String {
        let magnitude = abs(value)
        if magnitude >= 1e6 { return XML.number(value / 1e6) + "M" }
        if magnitude >= 1e4 { return XML.number(value / 1e3) + "k" }
        return XML.number(value)
    }
}
