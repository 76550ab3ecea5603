import Foundation
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// The results writer: the folder per scenario, the combined run CSV, the run id and the history CSV.
@Suite("results writer: folders, files, run ids")
struct ResultsWriterTests {
    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("results-\(UUID().uuidString)")
    }

    @Test("one run-id format: UTC, sortable, safe in file names")
    func runID() {
        #expect(RunID.make(at: Date(timeIntervalSince1970: 1_796_000_000)) == "20261130T005320Z")
        #expect(RunID.make().count == 16)
    }

    @Test("a load's folder holds the summary, assertions, history, ledger and probe files")
    func loadFolder() throws {
        let root = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let built = HistoryBuilder()
        built.send(0, statuses: [503, 202], outcome: .ok(messageID: "msg_1"))
        built.send(1, statuses: [422], outcome: .failed(code: .invalidTemplateParams, status: 422))
        built.dropped(2, at: 1)
        let ledger = LedgerBuilder()
        ledger.request(sendID: 0, effect: true, message: 1)
        var measurement = Measurement()
        measurement.rows = [
            SummaryRow(scenario: "s", probe: "send", metric: "ok", statistic: "value", value: 1, unit: "sends")
        ]
        measurement.files = [.latencyHistogram: "low_ms,high_ms,count\n"]
        measurement.history = built.history
        measurement.effects = [0: 1, 1: 0]
        measurement.ledger = ledger.ledger
        let check = AssertionCheck.judge([try Assertion(parsing: "send.ok >= 2")], ["send.ok": 1])
        let writer = ResultsWriter(root: root, runID: "R")
        let folder = try writer.writeScenario("s", measurement, checks: check)
        #expect(folder.lastPathComponent == "R-s")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(names == ["assertions.csv", "history.csv", "latency_histogram.csv", "ledger.csv", "summary.csv"])
        let history = try String(contentsOf: folder.appendingPathComponent("history.csv"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        #expect(history[0] == ResultFiles.historyHeader)
        #expect(history[1].hasSuffix(",ok,,,msg_1,2,0,1"))
        #expect(history[2].hasSuffix(",fail,invalid_template_params,422,,1,0,0"))
        #expect(history[3].contains(",dropped,"))
        let assertions = try String(contentsOf: folder.appendingPathComponent("assertions.csv"), encoding: .utf8)
        #expect(assertions == "assertion,passed,actual,expected\nsend.ok >= 2,0,1,2\n")
        #expect(writer.summaryRows(of: "s") == measurement.rows)
        #expect(writer.summaryRows(of: "missing").isEmpty)
        let run = try writer.writeRun(measurement.rows + measurement.rows)
        #expect(run.lastPathComponent == "R-run.csv")
        #expect(try SummaryCSV.parse(String(contentsOf: run, encoding: .utf8)).rows.count == 2)
    }

    @Test("an experiment without a history or ledger writes only its summary and assertions")
    func experimentFolder() throws {
        let root = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = try ResultsWriter(root: root, runID: "R").writeScenario("c", Measurement(), checks: [])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() == [
                "assertions.csv", "summary.csv",
            ])
    }

    @Test("CSV rows: quotes, doubled quotes, line breaks in a field, CRLF, UTF-8, a last row without a newline")
    func csvRows() {
        let text = "a,b,c\r\n\"x,1\",\"say \"\"hi\"\"\",\"two\nlines\"\n,,ключ 📨\nlast,row"
        #expect(
            CSV.rows(text) == [
                ["a", "b", "c"], ["x,1", "say \"hi\"", "two\nlines"], ["", "", "ключ 📨"], ["last", "row"],
            ])
        #expect(CSV.rows("") == [])
        let fields = ["plain", "with,comma", "q\"uote", "nl\nin", "é"]
        #expect(CSV.rows(CSV.line(fields) + "\n") == [fields])
    }

    @Test("every results file the code names is documented (docs/csv.md, a tune's in docs/tune.md)")
    func fileNamesDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs")
        let text = try ["csv.md", "tune.md"].map {
            try String(contentsOf: docs.appendingPathComponent($0), encoding: .utf8)
        }.joined()
        for file in ResultFile.allCases { #expect(text.contains("`\(file.name)`"), "\(file.name)") }
    }
}
