import Foundation
import TestSupport
import Testing

@testable import LoadKit

/// A run's files as `report` and `compare` find them, damaged at random: values replaced by
/// extremes (NaN, ±1e308, negatives), rows repeated or cut, fields dropped, in the run CSV and in
/// every CSV of a scenario's folder. Each ends in a rendered report (and a comparison) or a named
/// error; never a trap or a hang.
@Suite("input fuzzing: run CSVs and results folders for report and compare", .onItsOwnThread)
struct ResultsFuzzTests {
    static let extremes = [
        "nan", "inf", "-inf", "1.7976931348623157e308", "-1e308", "1e-320", "-1", "0", "", "x", "9e18",
        "\"a,b\"",
    ]

    /// One damage to one CSV's text: a field replaced, a row repeated or dropped, a row cut short.
    static func damage(_ text: String, _ random: inout InputFuzzTests.Generator) -> String {
        var rows = CSV.rows(text).filter { !($0.count == 1 && $0[0].isEmpty) }
        guard rows.count > 1 else { return text }
        let index = 1 + random.below(rows.count - 1)
        switch random.below(4) {
        case 0:
            let field = random.below(rows[index].count)
            rows[index][field] = extremes[random.below(extremes.count)]
        case 1: rows.insert(rows[index], at: random.below(rows.count))
        case 2: rows.remove(at: index)
        default: rows[index] = Array(rows[index].prefix(random.below(rows[index].count)))
        }
        return rows.map { $0.joined(separator: ",") }.joined(separator: "\n") + "\n"
    }

    @Test("damaged results render or are refused with a reason; compare judges or refuses")
    func damagedResults() throws {
        let fixtures = ReportTests.fixtures
        let baseline = try SummaryCSV.parse(
            String(contentsOf: fixtures.appendingPathComponent("20261201T000000Z-run.csv"), encoding: .utf8)
        ).rows
        var files: [String] = ["20261201T000000Z-run.csv"]
        for folder in ["20261201T000000Z-alpha", "20261201T000000Z-beta"] {
            for name in try FileManager.default.contentsOfDirectory(
                atPath: fixtures.appendingPathComponent(folder).path) where name.hasSuffix(".csv")
            {
                files.append(folder + "/" + name)
            }
        }
        var random = InputFuzzTests.Generator(state: 20_261_203)
        var rendered = 0
        var refused = 0
        for _ in 0..<100 {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-\(UUID().uuidString)")
            try FileManager.default.copyItem(at: fixtures, to: folder)
            defer { try? FileManager.default.removeItem(at: folder) }
            for _ in 0...random.below(3) {
                let file = folder.appendingPathComponent(files[random.below(files.count)])
                let text = try String(contentsOf: file, encoding: .utf8)
                try Self.damage(text, &random).write(to: file, atomically: true, encoding: .utf8)
            }
            let runCSV = folder.appendingPathComponent("20261201T000000Z-run.csv")
            do {
                let run = try RunResults.read(runCSV: runCSV)
                let html = HTMLReport.render([run])
                #expect(html.utf8.count < 5_000_000)
                _ = JUnitWriter.render(run)
                _ = SummaryMarkdown.render(run)
                rendered += 1
            } catch {
                refused += 1
                #expect(!"\(error)".isEmpty)
            }
            if let current = try? SummaryCSV.parse(String(contentsOf: runCSV, encoding: .utf8), unique: true).rows {
                let comparison = Comparison(
                    baseline: baseline, current: current, tolerance: 0.05, perMetric: [], strictOnly: false)
                _ = comparison.markdown()
            }
        }
        #expect(rendered + refused == 100 && rendered > 25 && refused > 5, "rendered \(rendered), refused \(refused)")
    }
}
