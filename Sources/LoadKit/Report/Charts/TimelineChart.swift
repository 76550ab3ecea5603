import Foundation

/// A run second by second: the server's requests by how they ended, the client's sends ending ok
/// and failed and in flight, with the plan's fault and capacity windows shaded.
enum TimelineChart {
    static let caption =
        "Per policy second (a run longer than 600 s: means over groups of seconds). Shaded: the plan's fault and capacity windows. Requests are the server's (2xx, 429, 5xx, no answer, the client left first); sends are the client's logical sends. After a window, ok sends should come back to their level before it."

    /// Requests solid, logical sends dashed.
    static let series: [(column: ResultFile.TimeseriesColumn, name: String, color: String, dashed: Bool)] = [
        (.answered2xx, "requests 2xx", "#1a7f37", false),
        (.answered5xx, "5xx", "#d1242f", false),
        (.answered429, "429", "#bf8700", false),
        (.noAnswer, "no answer", "#8250df", false),
        (.clientLeft, "client left", "#57606a", false),
        (.sendsOk, "sends ok", "#116329", true),
        (.sendsFailed, "sends failed", "#fb8500", true),
        (.inFlight, "in flight", "#1f6feb", true),
    ]

    /// Points per line at most (a longer run is averaged over groups of seconds).
    static let maxPoints = 600

    static func render(csv: String, windows: [RunResults.Window], title: String) -> String? {
        let rows = CSV.rows(csv)
        guard let header = rows.first, rows.count >= 3,
            let second = header.index(of: ResultFile.TimeseriesColumn.second)
        else {
            return nil
        }
        let data = rows.dropFirst().filter { $0.count == header.count }
        let seconds = data.compactMap { Double($0[second]) }
        guard let last = seconds.last else { return nil }
        var lines: [(String, String, Bool, [(Double, Double)])] = []
        var highest = 1.0
        // A long run is drawn as means over groups of seconds: at most `maxPoints` per line.
        let group = max(1, (data.count + maxPoints - 1) / maxPoints)
        for (column, name, color, dashed) in series {
            guard let index = header.index(of: column) else { continue }
            let values = data.compactMap { fields -> (Double, Double)? in
                guard let at = Double(fields[second]), let value = Double(fields[index]) else { return nil }
                return (at, value)
            }
            let points = stride(from: 0, to: values.count, by: group).map { start -> (Double, Double) in
                let slice = values[start..<min(values.count, start + group)]
                let mean = slice.reduce(0) { $0 + $1.1 } / Double(slice.count)
                return ((slice.first!.0 + slice.last!.0 + 1) / 2, mean)
            }
            // A series that stays 0 the whole run is left out (a healthy run has no 5xx line).
            guard points.contains(where: { $0.1 > 0 }) else { continue }
            highest = max(highest, points.map(\.1).max() ?? 0)
            lines.append((name, color, dashed, points))
        }
        guard !lines.isEmpty else { return nil }
        var canvas = SVGCanvas(
            x: .linear(0, last + 1, title: "time (policy s)"), y: .linear(0, highest, title: "per second"))
        for window in windows {
            let from = max(0, window.from)
            let to = min(window.to, canvas.x.max)
            guard to > from else { continue }
            canvas.box((from, canvas.y.min), (to, canvas.y.max), fill: "#fa4549", opacity: 0.1)
            canvas.label(window.label, at: (from, canvas.y.max), size: 9)
        }
        for (name, color, dashed, points) in lines {
            canvas.polyline(points, color: color, width: 1.5, dashed: dashed)
            canvas.legendEntry(name, color: color)
        }
        return canvas.svg(title: title)
    }
}
