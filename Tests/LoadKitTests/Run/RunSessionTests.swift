import Foundation
import Testing

@testable import LoadKit

@Suite("the one run ending: CSV, verdict lines, report, exit code")
struct RunSessionTests {
    static func session(outputs: RunOutputs? = nil) throws -> (RunSession, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fm-session-\(UUID().uuidString)")
        let writer = try ResultsWriter.claim(root: folder, runID: "r")
        return (RunSession(command: "run", writer: writer, outputs: outputs), folder)
    }

    static func row(_ scenario: String, _ value: Double = 1) -> SummaryRow {
        SummaryRow(scenario: scenario, probe: "send", metric: "ok", statistic: "value", value: value, unit: "sends")
    }

    static func child(_ name: String, _ verdict: String, status: Int32) -> RunSession.Entry {
        RunSession.Entry(name: name, childVerdict: verdict, status: status, rows: [row(name)])
    }

    @Test(
        "exit codes: every pass 0; a failure or an error 1; a signal, an interrupted scenario or a short run 130",
        arguments: [
            ([child("a", "PASS a (1 assertions)", status: 0)], 1, false, ExitCode.success),
            ([child("a", "PASS a (1 assertions)", status: 0), child("b", "FAIL b: x", status: 1)], 2, false, .failure),
            ([child("a", "PASS a (1 assertions)", status: 0), .init(name: "b", error: "boom")], 2, false, .failure),
            (
                [child("a", "PASS a (1 assertions)", status: 0), .init(name: "b", error: "gone", status: 0)], 2, false,
                .failure
            ),
            ([child("a", "PASS a (1 assertions)", status: 0)], 2, false, .interrupted),
            ([child("a", "PASS a (1 assertions)", status: 0)], 1, true, .interrupted),
            ([child("a", "INTERRUPTED a", status: 130)], 1, false, .interrupted),
            ([RunSession.Entry](), 0, false, .success),
        ])
    func exitCodes(entries: [RunSession.Entry], planned: Int, cancelled: Bool, expected: ExitCode) throws {
        let (session, folder) = try Self.session()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(session.end(entries, planned: planned, cancelled: cancelled) == expected)
    }

    @Test("the run's CSV holds every entry's rows, in order; without outputs no report is written")
    func csv() throws {
        let (session, folder) = try Self.session()
        defer { try? FileManager.default.removeItem(at: folder) }
        let entries = [Self.child("b", "PASS b (1 assertions)", status: 0), Self.child("a", "FAIL a: x", status: 1)]
        #expect(session.end(entries, planned: 2, cancelled: false) == .failure)
        let (_, rows) = try SummaryCSV.parse(String(contentsOf: session.writer.runCSV, encoding: .utf8))
        #expect(rows.map(\.scenario) == ["b", "a"])
        #expect(!FileManager.default.fileExists(atPath: RunOutputs.reportPath(of: session.writer.runCSV).path))
    }

    @Test("a scenario without a verdict fails as FAIL name: reason and the JUnit counts it as an error")
    func errorsReachTheReport() throws {
        let junit = FileManager.default.temporaryDirectory.appendingPathComponent("fm-junit-\(UUID().uuidString).xml")
        let markdown = junit.deletingPathExtension().appendingPathExtension("md")
        defer { for file in [junit, markdown] { try? FileManager.default.removeItem(at: file) } }
        var outputs = RunOutputs(junit: junit.path, summaryMarkdown: markdown.path)
        outputs.stepSummary = nil
        let (session, folder) = try Self.session(outputs: outputs)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = RunSession.Entry(name: "b", error: "the run ended without a verdict (exit 139)", status: 139)
        #expect(broken.verdictLine == "FAIL b: the run ended without a verdict (exit 139)")
        #expect(!broken.interrupted && !broken.passed)
        #expect(
            session.end([Self.child("a", "PASS a (1 assertions)", status: 0), broken], planned: 2, cancelled: false)
                == .failure)
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.contains("<testsuite name=\"b\""))
        #expect(xml.contains("errors=\"1\""))
        #expect(FileManager.default.fileExists(atPath: RunOutputs.reportPath(of: session.writer.runCSV).path))
    }

    @Test("without a signal the work runs to its end and what it returns or throws comes back")
    func interruptible() async {
        let (finished, cancelled) = await RunSession.interruptible(notice: "") { () -> Int in 7 }
        #expect((try? finished.get()) == 7 && !cancelled)
        struct Failed: Error {}
        let (thrown, _) = await RunSession.interruptible(notice: "") { () -> Int in throw Failed() }
        #expect(throws: Failed.self) { try thrown.get() }
    }
}
