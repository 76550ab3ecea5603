import FakeFrontmail
import Foundation

/// A certification's files (docs/certify.md): `certify.csv` (a row per client and case),
/// `certify.json`, `certify-junit.xml` (a suite per client, a test case per case), `certify.html`
/// (the matrix, then each client's cases with every failure's requests drawn on a timeline) and
/// `matrix.md` (the matrix for docs).
package enum CertifyReport {
    package static let columns: [CSV.Column<(client: String, result: CertifyResult)>] = [
        .init("client") { $0.client }, .init("case") { $0.result.certifyCase.name },
        .init("number") { $0.result.certifyCase.id },
        .init("group") { $0.result.certifyCase.group.rawValue },
        .init("property") { $0.result.certifyCase.property.rawValue },
        .init("weight") { $0.result.certifyCase.weight.rawValue },
        .init("verdict") { $0.result.verdict.outcome.rawValue },
        .init("recommendation") { $0.result.verdict.recommendation?.rawValue ?? "" },
        .init("detail") { $0.result.verdict.detail },
        .init("requests") { String($0.result.requests) },
        .init("elapsed_s") { String(format: "%.3f", $0.result.elapsed) },
        .init("figure") { $0.result.verdict.figure.isFinite ? String(format: "%.4g", $0.result.verdict.figure) : "" },
    ]

    package static func csv(_ reports: [ClientReport]) -> String {
        CSV.document(columns, rows: reports.flatMap { report in report.results.map { (report.claim.name, $0) } })
    }

    // MARK: JSON

    package static func json(_ reports: [ClientReport], runID: String) -> String {
        let clients: [[String: Any]] = reports.map { report in
            [
                "name": report.claim.name, "command": report.command ?? NSNull(),
                "claim": [
                    "maxAttempts": report.claim.maxAttempts, "baseDelay": report.claim.baseDelay.seconds,
                    "maxDelay": report.claim.maxDelay.seconds, "multiplier": report.claim.multiplier,
                    "jitter": report.claim.jitter.rawValue,
                    "timeout": report.claim.timeout.map { $0.seconds as Any } ?? NSNull(),
                ],
                "counts": Dictionary(
                    uniqueKeysWithValues: [CertifyVerdict.Outcome.pass, .fail, .notApplicable, .informational].map {
                        ($0.rawValue, report.count($0))
                    }),
                "cases": report.results.map(caseJSON),
            ]
        }
        let document: [String: Any] = ["runID": runID, "clients": clients]
        let data =
            (try? JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    private static func caseJSON(_ result: CertifyResult) -> [String: Any] {
        var entry: [String: Any] = [
            "id": result.certifyCase.name, "number": result.certifyCase.id, "group": result.certifyCase.group.rawValue,
            "title": result.certifyCase.title,
            "property": result.certifyCase.property.rawValue, "weight": result.certifyCase.weight.rawValue,
            "verdict": result.verdict.outcome.rawValue, "detail": result.verdict.detail, "requests": result.requests,
            "recommendation": result.verdict.recommendation?.rawValue ?? NSNull(),
            "elapsed": (result.elapsed * 1000).rounded() / 1000,
        ]
        if result.verdict.figure.isFinite { entry["figure"] = result.verdict.figure }
        if !result.verdict.sends.isEmpty { entry["sends"] = result.verdict.sends }
        if !result.evidence.isEmpty {
            entry["requestsOfFailedSends"] = result.evidence.map { row -> [String: Any] in
                var fields: [String: Any] = [
                    "send": row.send, "attempt": row.attempt, "arrival": row.arrival, "status": row.status,
                    "action": row.action, "effect": row.effect, "key": row.key ?? NSNull(),
                ]
                if row.finished.isFinite { fields["finished"] = row.finished }
                if row.retryAfter.isFinite { fields["retryAfterMeant"] = row.retryAfter }
                return fields
            }
        }
        return entry
    }

    // MARK: JUnit

    package static func junit(_ reports: [ClientReport]) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let tests = reports.reduce(0) { $0 + $1.results.count }
        let failures = reports.reduce(0) { $0 + $1.failed.count }
        text += "<testsuites name=\"frontmail-bench certify\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
        for report in reports {
            text +=
                "  <testsuite name=\"\(XML.escape(report.claim.name))\" tests=\"\(report.results.count)\" failures=\"\(report.failed.count)\" skipped=\"\(report.count(.notApplicable))\">\n"
            for result in report.results {
                let name = "\(result.certifyCase.name): \(result.certifyCase.title)"
                text +=
                    "    <testcase name=\"\(XML.escape(name))\" classname=\"\(XML.escape(report.claim.name)).\(result.certifyCase.group.rawValue)\" time=\"\(XML.number(result.elapsed))\">"
                switch result.verdict.outcome {
                case .fail:
                    text +=
                        "\n      <failure message=\"\(XML.escape(result.verdict.detail))\" type=\"\(result.certifyCase.property.rawValue)\"/>\n    "
                case .notApplicable:
                    text += "\n      <skipped message=\"\(XML.escape(result.verdict.detail))\"/>\n    "
                case .pass, .informational:
                    break
                }
                text += "</testcase>\n"
            }
            text += "  </testsuite>\n"
        }
        return text + "</testsuites>\n"
    }

    // MARK: The matrix

    /// A cell's short form: PASS, FAIL, N/A, INFO.
    package static func short(_ outcome: CertifyVerdict.Outcome) -> String {
        switch outcome {
        case .pass: return "PASS"
        case .fail: return "FAIL"
        case .notApplicable: return "N/A"
        case .informational: return "INFO"
        }
    }

    /// A matrix cell: the outcome, and for an informational case what it would have been.
    static func cell(_ verdict: CertifyVerdict) -> String {
        guard verdict.outcome == .informational, let recommendation = verdict.recommendation else {
            return short(verdict.outcome)
        }
        return "INFO (\(short(recommendation)))"
    }

    package static func matrix(_ reports: [ClientReport]) -> String {
        var text =
            "| case | property | "
            + reports.map { $0.claim.name.replacingOccurrences(of: "|", with: "/") }
            .joined(separator: " | ") + " |\n"
        text += "|---|---|" + String(repeating: "---|", count: reports.count) + "\n"
        for (index, certifyCase) in (reports.first?.results.map(\.certifyCase) ?? []).enumerated() {
            let cells = reports.map { report -> String in
                index < report.results.count ? cell(report.results[index].verdict) : ""
            }
            text +=
                "| \(certifyCase.id) `\(certifyCase.name)` \(certifyCase.title) | `\(certifyCase.property.rawValue)` | "
                + cells.joined(separator: " | ") + " |\n"
        }
        text +=
            "| **required cases passed** | | "
            + reports.map { report in
                let required = report.results.filter { $0.certifyCase.weight == .required }
                let passed = required.filter { $0.verdict.outcome == .pass }.count
                let applicable = required.filter { $0.verdict.outcome != .notApplicable }.count
                return "\(passed) of \(applicable)"
            }.joined(separator: " | ") + " |\n"
        return text
    }
}

extension CertifyReport {
    /// Writes the certification's files into `folder`.
    package static func write(_ reports: [ClientReport], folder: URL, runID: String) throws {
        let files: [(String, String)] = [
            ("certify.csv", csv(reports)), ("certify.json", json(reports, runID: runID)),
            ("certify-junit.xml", junit(reports)), ("certify.html", html(reports, runID: runID)),
            ("matrix.md", matrix(reports)),
        ]
        for (name, text) in files { try OutputFile.write(Data(text.utf8), to: folder.appendingPathComponent(name)) }
        // A page of its own per client, beside its cases' ledgers.
        for (index, report) in reports.enumerated() {
            let own = folder.appendingPathComponent(clientFolder(index: index, name: report.claim.name))
            try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
            try OutputFile.write(
                Data(html([report], runID: runID).utf8), to: own.appendingPathComponent("certify.html"))
        }
    }

    /// The folder of the `index`-th client's cases: `1-curl-retry-3`.
    package static func clientFolder(index: Int, name: String) -> String { "\(index + 1)-\(slug(name))" }

    /// A client's folder name: its name in lowercase letters, digits and dashes.
    package static func slug(_ name: String) -> String {
        let kept = name.lowercased().map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII ? $0 : "-" }
        let text = String(kept).split(separator: "-").joined(separator: "-")
        return text.isEmpty ? "client" : String(text.prefix(60))
    }
}
