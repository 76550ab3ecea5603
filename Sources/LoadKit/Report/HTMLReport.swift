import Foundation

/// The run's report: one self-contained HTML file (inline CSS and SVG, no script, nothing fetched),
/// derived from the CSV of the results folder, byte-identical for identical CSV.
package enum HTMLReport {
    /// `runs[0]` is the run reported; further runs overlay their latency spectra (a comparison).
    package static func render(_ runs: [RunResults]) -> String {
        guard let run = runs.first else { return document(title: "frontmail-bench report", body: "") }
        var body = "<h1>frontmail-bench run \(XML.escape(run.runID))</h1>\n"
        let passed = run.scenarios.filter(\.passed).count
        body += "<p class=\"lead\">\(passed) of \(run.scenarios.count) scenarios passed"
        if runs.count > 1 {
            body += "; latency compared with " + runs.dropFirst().map { XML.escape($0.runID) }.joined(separator: ", ")
        }
        body += "."
        if let wall = run.wallSummary { body += " " + XML.escape(wall.prefix(1).uppercased() + wall.dropFirst()) + "." }
        body +=
            "</p>\n<table class=\"index\"><tr><th>scenario</th><th>verdict</th><th>assertions</th><th>wall time</th></tr>\n"
        for scenario in run.scenarios {
            let wall = scenario.wallText.map { XML.escape($0) } ?? "–"
            let wallCell = scenario.overBudget ? "<td class=\"fail\">\(wall)</td>" : "<td>\(wall)</td>"
            body +=
                "<tr><td><a href=\"#\(anchor(scenario.name))\">\(XML.escape(scenario.name))</a></td><td>\(badge(scenario))</td><td>\(scenario.checks.filter(\.passed).count)/\(scenario.checks.count)</td>\(wallCell)</tr>\n"
        }
        body += "</table>\n"
        for scenario in run.scenarios {
            body += section(scenario, others: runs.dropFirst().map { ($0.runID, $0.scenarios) })
        }
        return document(title: "frontmail-bench run \(run.runID)", body: body)
    }

    static func section(_ scenario: RunResults.ScenarioEntry, others: [(String, [RunResults.ScenarioEntry])]) -> String
    {
        var out =
            "<section id=\"\(anchor(scenario.name))\">\n<h2>\(XML.escape(scenario.name)) \(badge(scenario))</h2>\n"
        if !scenario.description.isEmpty { out += "<p>\(XML.escape(scenario.description))</p>\n" }
        if let error = scenario.error {
            if ChildCrash.summaryLine(of: error) != nil {
                out += "<p class=\"fail\">The scenario's process crashed:</p>\n<pre>\(XML.escape(error))</pre>\n"
            } else {
                out += "<p class=\"fail\">Could not run: \(XML.escape(error))</p>\n"
            }
        }
        if !scenario.checks.isEmpty {
            out += "<table><tr><th>assertion</th><th>actual</th><th>expected</th><th></th></tr>\n"
            for check in scenario.checks {
                out +=
                    "<tr><td><code>\(XML.escape(check.assertion))</code></td><td>\(XML.escape(check.actual))</td><td>\(XML.escape(check.expected))</td><td class=\"\(check.passed ? "pass" : "fail")\">\(check.passed ? "PASS" : "FAIL")</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += latency(scenario, others: others)
        out += jitter(scenario)
        if let csv = scenario.file(.timeseries),
            let svg = TimelineChart.render(csv: csv, windows: scenario.windows, title: "\(scenario.name): timeline")
        {
            out += figure(svg, caption: TimelineChart.caption)
        }
        out += idempotency(scenario)
        out += cancellation(scenario)
        return out + "</section>\n"
    }

    static func latency(_ scenario: RunResults.ScenarioEntry, others: [(String, [RunResults.ScenarioEntry])]) -> String
    {
        guard let csv = scenario.file(.latencyHistogram) else { return "" }
        var series = [LatencySpectrumChart.Series(name: scenario.name, buckets: LatencySpectrumChart.buckets(csv: csv))]
        for (runID, entries) in others {
            if let other = entries.first(where: { $0.name == scenario.name })?.file(.latencyHistogram) {
                series.append(
                    LatencySpectrumChart.Series(name: runID, buckets: LatencySpectrumChart.buckets(csv: other)))
            }
        }
        guard let svg = LatencySpectrumChart.render(series, title: "\(scenario.name): latency by percentile") else {
            // On virtual time a server without delay answers at once: a curve at 0 is no chart.
            let sends = series[0].buckets.reduce(0) { $0 + $1.count }
            guard sends > 0 else { return "" }
            return "<p class=\"lead\">Latency: every one of \(Int(sends)) sends took 0 policy ms "
                + "(the fake answers at once when its plan adds no delay).</p>\n"
        }
        return figure(svg, caption: LatencySpectrumChart.caption)
    }

    static func jitter(_ scenario: RunResults.ScenarioEntry) -> String {
        guard let csv = scenario.file(.jitterSamples) else { return "" }
        let samples = JitterCDFChart.samples(csv: csv)
        var out = ""
        if let chart = JitterCDFChart.render(
            samples.all, critical: scenario.value(.jitterKSCritical),
            title: "\(scenario.name): backoff jitter")
        {
            out += figure(
                chart.svg,
                caption: JitterCDFChart.caption(d: chart.d, critical: scenario.value(.jitterKSCritical)))
        }
        for attempt in samples.byAttempt.keys.sorted().prefix(3) {
            let critical = scenario.value(.jitterPerAttempt(.ksCritical, attempt: attempt))
            guard let values = samples.byAttempt[attempt], values.count >= 20,
                let chart = JitterCDFChart.render(
                    values, critical: critical, title: "\(scenario.name): jitter after attempt \(attempt)")
            else { continue }
            out += figure(
                chart.svg,
                caption: "After attempt \(attempt): " + JitterCDFChart.caption(d: chart.d, critical: critical))
        }
        return out
    }

    static let defects: [MetricKey] = [
        .idempotencyDuplicates, .idempotencyLost, .idempotencyUnexpected, .idempotencyFailWithEffect,
        .idempotencyMessageIDMismatches, .idempotencyKeyChanges, .idempotencyBodyChanges, .idempotencyKeyCollisions,
        .idempotencyDefects,
    ]

    static func idempotency(_ scenario: RunResults.ScenarioEntry) -> String {
        let outcomes = ["ok", "fail", "info", "dropped"]
        let counts = outcomes.map { scenario.value("idempotency", "outcome", $0) ?? .nan }
        guard counts.contains(where: \.isFinite) else { return "" }
        var out = ""
        if let svg = BarChart.render(
            categories: outcomes, series: [BarChart.Series(name: "sends", values: counts)], yTitle: "sends",
            title: "\(scenario.name): send outcomes")
        {
            let effects = scenario.value(.idempotencyEffects).map { String(format: "%.0f", $0) } ?? "?"
            out += figure(
                svg,
                caption:
                    "Sends by outcome (Jepsen's ok / fail / info; dropped never started). The server committed \(effects) messages; every defect below must be 0 for a correct SDK."
            )
        }
        out += "<table class=\"defects\"><tr>"
        out += defects.map { "<th>\($0.text.dropFirst("idempotency.".count))</th>" }.joined() + "</tr><tr>"
        for key in defects {
            let value = scenario.value(key) ?? .nan
            let text = value.isFinite ? String(format: "%.0f", value) : "–"
            out += "<td class=\"\(value > 0 ? "fail" : "")\">\(text)</td>"
        }
        out += "</tr></table>\n"
        out += defectiveSends(scenario)
        return out
    }

    /// Sends the history shows as defective: more than one effect, ok without one, failed with one.
    static func defectiveSends(_ scenario: RunResults.ScenarioEntry) -> String {
        guard let csv = scenario.file(.history) else { return "" }
        let rows = CSV.rows(csv)
        typealias Column = ResultFile.HistoryColumn
        guard let header = rows.first, let id = header.index(of: Column.sendID),
            let verdict = header.index(of: Column.verdict), let effects = header.index(of: Column.effects)
        else { return "" }
        var listed: [String] = []
        var total = 0
        for fields in rows.dropFirst() where fields.count == header.count {
            guard let count = Int(fields[effects]) else { continue }
            let problem: String?
            switch (fields[verdict], count) {
            case (_, 2...): problem = "\(count) effects (duplicate)"
            case ("ok", 0): problem = "ok without an effect (lost)"
            case ("fail", 1...): problem = "failed, but committed"
            default: problem = nil
            }
            guard let problem else { continue }
            total += 1
            if listed.count < 50 { listed.append("<li>send \(XML.escape(fields[id])): \(XML.escape(problem))</li>") }
        }
        guard total > 0 else { return "" }
        return "<p class=\"fail\">\(total) defective sends\(total > 50 ? " (the first 50)" : ""):</p><ul>"
            + listed.joined() + "</ul>\n"
    }

    static func cancellation(_ scenario: RunResults.ScenarioEntry) -> String {
        let cells = Set(scenario.rows.filter { $0.probe == "cancellation" && $0.statistic == "p99" }.map(\.metric))
            .filter { !$0.hasPrefix("raw_urlsession.") && !$0.hasPrefix("soak") }.sorted()
        guard !cells.isEmpty else { return "" }
        var series = [
            BarChart.Series(
                name: "SDK p50", values: cells.map { scenario.value(HistogramKey.cancellation($0).key("p50")) ?? .nan }),
            BarChart.Series(
                name: "SDK p99", values: cells.map { scenario.value(HistogramKey.cancellation($0).key("p99")) ?? .nan }),
        ]
        let raw = cells.map { scenario.value(HistogramKey.cancellation("raw_urlsession.\($0)").key("p99")) ?? .nan }
        if raw.contains(where: \.isFinite) {
            series.append(BarChart.Series(name: "raw URLSession p99", values: raw))
        }
        guard
            let svg = BarChart.render(
                categories: cells, series: series, yTitle: "cancel → aborted (ms)",
                title: "\(scenario.name): cancellation latency by phase")
        else { return "" }
        return figure(
            svg,
            caption:
                "Time from task.cancel() to the thrown error, per phase of a send, idle and under load (ms). The raw URLSession bars are the same measurement of a plain URLSession.data(for:), where measured."
        )
    }

    // MARK: Pieces

    static func figure(_ svg: String, caption: String) -> String {
        "<figure>\n" + svg + "<figcaption>\(XML.escape(caption))</figcaption>\n</figure>\n"
    }

    static func badge(_ scenario: RunResults.ScenarioEntry) -> String {
        if let error = scenario.error {
            return ChildCrash.summaryLine(of: error) != nil
                ? "<span class=\"badge fail\">CRASH</span>" : "<span class=\"badge fail\">ERROR</span>"
        }
        return scenario.passed ? "<span class=\"badge pass\">PASS</span>" : "<span class=\"badge fail\">FAIL</span>"
    }

    static func anchor(_ name: String) -> String {
        "s-" + String(name.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
    }

    static let style = """
        body{font-family:sans-serif;margin:24px auto;max-width:760px;color:#1f2328;line-height:1.4}
        h1{font-size:22px}h2{font-size:18px;margin-top:36px;border-bottom:1px solid #d0d7de}
        table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left}
        .pass{color:#1a7f37}.fail{color:#d1242f;font-weight:bold}.badge{font-size:12px;padding:1px 6px;border:1px solid}
        figure{margin:16px 0}figcaption{font-size:13px;color:#57606a}svg{max-width:100%;height:auto}
        pre{font-size:12px;background:#f6f8fa;padding:8px;overflow-x:auto}.lead{font-size:15px}
        """

    static func document(title: String, body: String) -> String {
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>\(XML.escape(title))</title>\n<style>\n\(style)\n</style>\n</head>\n<body>\n"
            + body + "</body>\n</html>\n"
    }
}
