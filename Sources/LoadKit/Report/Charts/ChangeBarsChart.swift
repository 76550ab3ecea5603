import Foundation

/// `compare --html`: the change of every metric as a horizontal bar (how much worse or better, in
/// per cent, by the metric's polarity), regressions first, with the tolerance marked per row.
package enum ChangeBarsChart {
    static let caption =
        "One bar per metric: to the right is worse, to the left better (by the metric's polarity; informational metrics show their plain change). Red bars are regressions, green improvements beyond tolerance, grey within it; the tick on each row is its tolerance. Changes beyond ±100 % are drawn at the edge with their value."

    static let rowHeight = 14.0
    static let labelWidth = 360.0
    static let barWidth = 320.0

    static func render(_ comparison: Comparison) -> String {
        let order: [Comparison.Verdict: Int] = [.regression: 0, .blind: 1, .improvement: 2, .warning: 3]
        let lines = comparison.lines.sorted { left, right in
            let (a, b) = (order[left.verdict] ?? 4, order[right.verdict] ?? 4)
            if a != b { return a < b }
            let (x, y) = (magnitude(left), magnitude(right))
            return x != y ? x > y : left.key < right.key
        }
        let height = 40 + Double(lines.count) * rowHeight + 10
        let width = labelWidth + barWidth + 90
        let zero = labelWidth + barWidth / 2
        var out =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(XML.number(width)) \(XML.number(height))\" width=\"\(XML.number(width))\" height=\"\(XML.number(height))\" role=\"img\" aria-label=\"changes\" font-family=\"sans-serif\">\n<title>changes of every metric</title>\n"
        out += SVGCanvas.text("better ←", x: zero - 6, y: 16, anchor: "end", size: 10) + "\n"
        out += SVGCanvas.text("→ worse", x: zero + 6, y: 16, size: 10) + "\n"
        for (label, at) in [("−100 %", zero - barWidth / 2), ("0", zero), ("+100 %", zero + barWidth / 2)] {
            out += SVGCanvas.text(label, x: at, y: 30, anchor: "middle", size: 9) + "\n"
        }
        out +=
            "<line x1=\"\(XML.number(zero))\" y1=\"34\" x2=\"\(XML.number(zero))\" y2=\"\(XML.number(height - 10))\" stroke=\"#57606a\"/>\n"
        for (index, line) in lines.enumerated() {
            let y = 40 + Double(index) * rowHeight
            let worse = worseChange(line)
            let clipped = max(-1, min(1, worse.isFinite ? worse : (worse > 0 ? 1 : -1)))
            let length = abs(clipped) * barWidth / 2
            let left = clipped >= 0 ? zero : zero - length
            let color: String
            switch line.verdict {
            case .regression, .blind: color = "#d1242f"
            case .improvement: color = "#1a7f37"
            case .warning: color = "#bf8700"
            default: color = "#8c959f"
            }
            out += SVGCanvas.text(line.key, x: labelWidth - 6, y: y + 10, anchor: "end", size: 9) + "\n"
            if worse.isFinite || worse.isInfinite {
                out +=
                    "<rect x=\"\(XML.number(left))\" y=\"\(XML.number(y + 2))\" width=\"\(XML.number(max(0.5, length)))\" height=\"\(XML.number(rowHeight - 4))\" fill=\"\(color)\"/>\n"
            }
            if line.tolerance > 0, line.tolerance < 1 {
                let tick = zero + line.tolerance * barWidth / 2
                out +=
                    "<line x1=\"\(XML.number(tick))\" y1=\"\(XML.number(y + 1))\" x2=\"\(XML.number(tick))\" y2=\"\(XML.number(y + rowHeight - 1))\" stroke=\"#24292f\"/>\n"
            }
            let text =
                worse.isNaN ? line.verdict.rawValue : worse.isInfinite ? "∞" : String(format: "%+.1f%%", worse * 100)
            out += SVGCanvas.text(text, x: labelWidth + barWidth + 6, y: y + 10, size: 9) + "\n"
        }
        return out + "</svg>\n"
    }

    /// The change as "how much worse" (positive: worse), by the line's polarity.
    static func worseChange(_ line: Comparison.Line) -> Double {
        line.polarity == .higherIsBetter ? -line.change : line.change
    }

    static func magnitude(_ line: Comparison.Line) -> Double {
        let change = worseChange(line)
        return change.isNaN ? -1 : abs(change)
    }

    /// The whole page.
    package static func page(_ comparison: Comparison, baseline: String, current: String) -> String {
        var body =
            "<h1>compare</h1>\n<p>baseline <code>\(XML.escape(baseline))</code>, current <code>\(XML.escape(current))</code></p>\n"
        body += "<pre>\(XML.escape(comparison.markdown()))</pre>\n"
        body += HTMLReport.figure(render(comparison), caption: caption)
        return HTMLReport.document(title: "frontmail-bench compare", body: body)
    }
}
