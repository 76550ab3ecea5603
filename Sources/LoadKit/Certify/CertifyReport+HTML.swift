import Foundation

extension CertifyReport {
    /// `certify.html`: self-contained (inline CSS and SVG). The matrix, then a section per client:
    /// its claim, its cases red and green, and each failure's requests on a timeline.
    package static func html(_ reports: [ClientReport], runID: String) -> String {
        var body = "<h1>frontmail-bench certify \(XML.escape(runID))</h1>\n"
        body += "<p class=\"lead\">\(reports.count) clients, \(reports.first?.results.count ?? 0) cases each. "
        body += "Every verdict is judged from the fake server's record of the requests alone.</p>\n"
        body += "<h2>Matrix</h2>\n<table>\n<tr><th>case</th>"
        for report in reports { body += "<th>\(XML.escape(report.claim.name))</th>" }
        body += "</tr>\n"
        for (index, certifyCase) in (reports.first?.results.map(\.certifyCase) ?? []).enumerated() {
            body += "<tr><td>\(certifyCase.id) \(XML.escape(certifyCase.title))</td>"
            for report in reports where index < report.results.count {
                body += "<td>\(badge(report.results[index].verdict))</td>"
            }
            body += "</tr>\n"
        }
        body += "</table>\n"
        for report in reports { body += section(report) }
        return HTMLReport.document(title: "frontmail-bench certify \(runID)", body: body)
    }

    private static func badge(_ verdict: CertifyVerdict) -> String {
        switch verdict.outcome {
        case .pass: return "<span class=\"badge pass\">PASS</span>"
        case .fail: return "<span class=\"badge fail\">FAIL</span>"
        case .notApplicable: return "<span class=\"badge\" style=\"color:#57606a\">N/A</span>"
        case .informational:
            return "<span class=\"badge\" style=\"color:#9a6700\">\(XML.escape(cell(verdict)))</span>"
        }
    }

    private static func section(_ report: ClientReport) -> String {
        let claim = report.claim
        var html = "<h2>\(XML.escape(claim.name))</h2>\n"
        if let command = report.command { html += "<pre>\(XML.escape(command))</pre>\n" }
        html += "<p>Claims at most \(claim.maxAttempts) attempts, waits capped at min(\(claim.maxDelay), "
        html += "\(claim.baseDelay) × \(CertifyJudge.format(claim.multiplier))^k), \(claim.jitter.rawValue) jitter, "
        html += claim.timeout.map { "\($0) per attempt" } ?? "no attempt timeout"
        html += ". \(report.count(.pass)) PASS, \(report.count(.fail)) FAIL, \(report.count(.notApplicable)) N/A, "
        html += "\(report.count(.informational)) INFO.</p>\n"
        html += "<table>\n<tr><th>case</th><th>property</th><th>verdict</th><th>why</th></tr>\n"
        for result in report.results {
            html += "<tr><td>\(result.certifyCase.id) \(XML.escape(result.certifyCase.title))</td>"
            html += "<td><code>\(result.certifyCase.property.rawValue)</code></td>"
            html += "<td>\(badge(result.verdict))</td><td>\(XML.escape(result.verdict.detail))</td></tr>\n"
        }
        html += "</table>\n"
        for result in report.failed where !result.evidence.isEmpty {
            html += "<figure>\(timeline(result.evidence))<figcaption>\(result.certifyCase.id) "
            html += "\(XML.escape(result.certifyCase.title)): each request from its arrival to its end, one row per "
            html += "send; the label is the answer (or the fault), a dashed line the Retry-After the server meant."
            html += "</figcaption></figure>\n"
        }
        return html
    }

    /// One row per send, a bar per request from arrival to end, labelled with its status or fault.
    static func timeline(_ rows: [ServerView.Row]) -> String {
        let sends = Array(Set(rows.map(\.send))).sorted()
        let start = rows.map(\.arrival).min() ?? 0
        let end = rows.map { max($0.arrival, $0.finished.isFinite ? $0.finished : $0.arrival) }.max() ?? 1
        let span = max(end - start, 0.001)
        let width = 680.0
        let left = 60.0
        let rowHeight = 26.0
        let height = Double(sends.count) * rowHeight + 30
        func x(_ time: Double) -> Double { left + (time - start) / span * (width - left - 10) }
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(XML.number(width)) \(XML.number(height))\" "
        svg += "font-family=\"sans-serif\" font-size=\"10\">"
        for (index, send) in sends.enumerated() {
            let y = Double(index) * rowHeight + 8
            svg += "<text x=\"4\" y=\"\(XML.number(y + 12))\">send \(send)</text>"
            for row in rows where row.send == send {
                let from = x(row.arrival)
                let to = max(from + 2, x(row.finished.isFinite ? row.finished : end))
                let failed = row.status == 0 || row.status >= 400 || row.action != "served"
                let colour = failed ? "#d1242f" : "#1a7f37"
                svg += "<rect x=\"\(XML.number(from))\" y=\"\(XML.number(y))\" width=\"\(XML.number(to - from))\" "
                svg += "height=\"14\" fill=\"\(colour)\" opacity=\"0.7\"/>"
                let label =
                    row.status == 0 ? row.action : "\(row.status)\(row.action == "served" ? "" : " " + row.action)"
                svg += "<text x=\"\(XML.number(from + 2))\" y=\"\(XML.number(y + 24))\">\(XML.escape(label))</text>"
                if row.retryAfter.isFinite, row.finished.isFinite, row.retryAfter <= 3600 {
                    let until = x(min(end, row.finished + row.retryAfter))
                    svg += "<line x1=\"\(XML.number(to))\" x2=\"\(XML.number(until))\" y1=\"\(XML.number(y + 7))\" "
                    svg += "y2=\"\(XML.number(y + 7))\" stroke=\"#57606a\" stroke-dasharray=\"3 2\"/>"
                }
            }
        }
        svg += "<text x=\"\(XML.number(left))\" y=\"\(XML.number(height - 4))\">0 s</text>"
        svg +=
            "<text x=\"\(XML.number(width - 60))\" y=\"\(XML.number(height - 4))\">\(CertifyJudge.format(span)) s</text>"
        return svg + "</svg>"
    }
}
