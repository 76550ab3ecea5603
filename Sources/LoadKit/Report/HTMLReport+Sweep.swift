import Foundation

extension HTMLReport {
    // MARK: The sweep

    /// The report of one `tune` run: each sweep's section, the decided one first.
    static func sweepDocument(runID: String, sections: [String]) -> String {
        document(
            title: "frontmail-bench tune (\(runID))",
            body: "<h1>frontmail-bench tune (\(XML.escape(runID)))</h1>\n" + sections.joined())
    }

    /// One sweep: its decision first (`decision`, HTML), the metastability map, the printed
    /// verdict folded, then per environment the success-against-latency scatter.
    static func sweepSection(
        name: String, cellsCSV: String, recommended: String?, decision: String, text: String,
        metastabilityCSV: String? = nil
    ) -> String {
        var body = "<section><h2>Sweep \(XML.escape(name))</h2>\n" + decision
        if let metastabilityCSV { body += metastabilityHeatMap(metastabilityCSV) }
        body += "<details><summary>The printed verdict</summary><pre>\(XML.escape(text))</pre></details>\n"
        let rows = CSV.rows(cellsCSV)
        guard let header = rows.first else { return body + "</section>\n" }
        func column(_ name: ResultFile.TuneCellColumn) -> Int? { header.index(of: name) }
        guard let cell = column(.cell), let environment = column(.environment),
            let success = column(.okInDeadline), let latency = column(.okLatencyQuantile),
            let pareto = column(.pareto), let isDefault = column(.isDefault), let budget = column(.budget)
        else { return body + "</section>\n" }
        var order: [String] = []
        for fields in rows.dropFirst() where fields.count == header.count && !order.contains(fields[environment]) {
            order.append(fields[environment])
        }
        for environmentName in order {
            let entries = rows.dropFirst().filter { $0.count == header.count && $0[environment] == environmentName }
            let points = entries.map {
                SweepScatterChart.Point(
                    label: $0[cell], p99: Double($0[latency]) ?? .nan, success: Double($0[success]) ?? .nan,
                    pareto: $0[pareto] == "1", isDefault: $0[isDefault] == "1", recommended: $0[cell] == recommended,
                    budget: $0[budget])
            }
            body += "<h3>\(XML.escape(environmentName))</h3>\n"
            if let svg = SweepScatterChart.render(points, title: "\(name): \(environmentName)") {
                body += figure(svg, caption: SweepScatterChart.caption)
            }
        }
        return body + "</section>\n"
    }

    /// The metastability map as a table: a row per policy, a column per (load, drop), green when
    /// it recovered, red when it stayed metastable, with the recovery time.
    static func metastabilityHeatMap(_ csv: String) -> String {
        let rows = CSV.rows(csv)
        typealias Column = ResultFile.MetastabilityColumn
        guard let header = rows.first, let policy = header.index(of: Column.policy),
            let load = header.index(of: Column.load), let drop = header.index(of: Column.drop),
            let verdict = header.index(of: Column.verdict), let recovery = header.index(of: Column.recovery)
        else { return "" }
        let entries = rows.dropFirst().filter { $0.count == header.count }
        // A column per scale too when the sweep ran at several (an older CSV has no clients column).
        let clients = header.index(of: Column.clients)
        let scaled = clients.map { index in Set(entries.map { $0[index] }).count > 1 } ?? false
        var columns: [String] = []
        var policies: [String] = []
        var marks: [String: [String: (String, String)]] = [:]
        for fields in entries {
            let column =
                "\(fields[load]) / \(fields[drop]) s" + (scaled ? clients.map { " × \(fields[$0]) clients" } ?? "" : "")
            if !columns.contains(column) { columns.append(column) }
            if !policies.contains(fields[policy]) { policies.append(fields[policy]) }
            marks[fields[policy], default: [:]][column] = (fields[verdict], fields[recovery])
        }
        var html =
            "<h3>Metastability map</h3>\n<p>Offered load (fraction of capacity) / length of the capacity drop"
            + (scaled ? " × client instances sharing the server. " : ". ")
        html += "Green: goodput came back (recovery time in s); red: metastable; grey: overloaded before the drop "
        html +=
            "(goodput before it under 90 % of the offered load: no level to come back to, no verdict).</p>\n<table>\n<tr><th>policy</th>"
        html += columns.map { "<th>\(XML.escape($0))</th>" }.joined() + "</tr>\n"
        for name in policies {
            html += "<tr><td><code>\(XML.escape(name))</code></td>"
            for column in columns {
                guard let (verdict, seconds) = marks[name]?[column] else {
                    html += "<td>-</td>"
                    continue
                }
                let (style, label) =
                    switch verdict {
                    case "metastable": ("background:#f4b4b4", "metastable")
                    case "recovered": ("background:#b8e0b8", "recovered \(seconds)")
                    case "overloaded": ("background:#d8d8d8", "overloaded before the drop")
                    default: ("", "-")
                    }
                html += "<td style=\"\(style)\">\(XML.escape(label))</td>"
            }
            html += "</tr>\n"
        }
        return html + "</table>\n"
    }
}
