import Foundation

extension HTMLReport {
    // MARK: The sweep

    /// A sweep's report: per environment the success-against-p99 scatter, then its cells.
    static func sweep(
        name: String, runID: String, cellsCSV: String, recommended: String?, text: String,
        metastabilityCSV: String? = nil
    ) -> String {
        let rows = CSV.rows(cellsCSV)
        guard let header = rows.first else { return document(title: name, body: "") }
        func column(_ name: ResultFile.TuneCellColumn) -> Int? { header.index(of: name) }
        var body = "<h1>frontmail-bench tune \(XML.escape(name)) (\(XML.escape(runID)))</h1>\n"
        body += "<pre>\(XML.escape(text))</pre>\n"
        if let metastabilityCSV { body += metastabilityHeatMap(metastabilityCSV) }
        guard let cell = column(.cell), let environment = column(.environment), let success = column(.successRate),
            let p99 = column(.latencyP99), let pareto = column(.pareto), let isDefault = column(.isDefault)
        else { return document(title: name, body: body) }
        var order: [String] = []
        for fields in rows.dropFirst() where fields.count == header.count && !order.contains(fields[environment]) {
            order.append(fields[environment])
        }
        for environmentName in order {
            let entries = rows.dropFirst().filter { $0.count == header.count && $0[environment] == environmentName }
            let points = entries.map {
                SweepScatterChart.Point(
                    label: $0[cell], p99: Double($0[p99]) ?? .nan, success: Double($0[success]) ?? .nan,
                    pareto: $0[pareto] == "1", isDefault: $0[isDefault] == "1", recommended: $0[cell] == recommended)
            }
            body += "<section><h2>\(XML.escape(environmentName))</h2>\n"
            if let svg = SweepScatterChart.render(points, title: "\(name): \(environmentName)") {
                body += figure(svg, caption: SweepScatterChart.caption)
            }
            body += "</section>\n"
        }
        return document(title: "frontmail-bench tune \(name)", body: body)
    }

    /// The metastability map as a table: a row per policy, a column per (load, drop), green when
    /// it recovered, red when it stayed metastable, with the recovery time.
    static func metastabilityHeatMap(_ csv: String) -> String {
        let rows = CSV.rows(csv)
        typealias Column = ResultFile.MetastabilityColumn
        guard let header = rows.first, let policy = header.index(of: Column.policy),
            let load = header.index(of: Column.load), let drop = header.index(of: Column.drop),
            let metastable = header.index(of: Column.metastable), let recovery = header.index(of: Column.recovery)
        else { return "" }
        let entries = rows.dropFirst().filter { $0.count == header.count }
        var columns: [String] = []
        var policies: [String] = []
        var marks: [String: [String: (String, String)]] = [:]
        for fields in entries {
            let column = "\(fields[load]) / \(fields[drop]) s"
            if !columns.contains(column) { columns.append(column) }
            if !policies.contains(fields[policy]) { policies.append(fields[policy]) }
            marks[fields[policy], default: [:]][column] = (fields[metastable], fields[recovery])
        }
        var html =
            "<section><h2>Metastability map</h2>\n<p>Offered load (fraction of capacity) / length of the capacity drop. "
        html += "Green: goodput came back (recovery time in s); red: metastable.</p>\n<table>\n<tr><th>policy</th>"
        html += columns.map { "<th>\(XML.escape($0))</th>" }.joined() + "</tr>\n"
        for name in policies {
            html += "<tr><td><code>\(XML.escape(name))</code></td>"
            for column in columns {
                guard let (verdict, seconds) = marks[name]?[column] else {
                    html += "<td>-</td>"
                    continue
                }
                let style = verdict == "1" ? "background:#f4b4b4" : verdict == "0" ? "background:#b8e0b8" : ""
                let label = verdict == "1" ? "metastable" : verdict == "0" ? "recovered \(seconds)" : "-"
                html += "<td style=\"\(style)\">\(XML.escape(label))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</table></section>\n"
    }
}
