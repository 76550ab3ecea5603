import FakeFrontmail
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files a run's results (docs/csv.md): `ROOT/<run>-<scenario>/` per scenario, and
/// `ROOT/<run>-run.csv` with every scenario's summary rows.
package struct ResultsWriter {
    package let root: URL
    package let runID: String

    package init(root: URL, runID: String) {
        self.root = root
        self.runID = runID
    }

    /// Creates `root` and claims `<run>-run.csv` for a new run, exclusively: a run started in the
    /// same second as another one writing to the same folder gets `<run>-2`, and a folder that
    /// cannot be written is found before anything runs.
    package static func claim(root: URL, runID base: String) throws -> ResultsWriter {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        for attempt in 1...1000 {
            let writer = ResultsWriter(root: root, runID: attempt == 1 ? base : "\(base)-\(attempt)")
            let fd = open(writer.runCSV.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                _ = close(fd)
                return writer
            }
            guard errno == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        throw POSIXError(.EEXIST)
    }

    /// Claims `runID` itself (one the user chose): refused when `root` holds that run already,
    /// which a second `run --run-id R1` had overwritten without a word.
    package static func claimExactly(root: URL, runID: String) throws -> ResultsWriter {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let writer = ResultsWriter(root: root, runID: runID)
        let fd = open(writer.runCSV.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            if errno == EEXIST { throw RunExists(runID: runID, file: writer.runCSV.path) }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        _ = close(fd)
        return writer
    }

    package struct RunExists: Error, CustomStringConvertible {
        var runID: String
        var file: String
        package var description: String {
            "run id \(runID) has results already (\(file)); give another --run-id or another --out"
        }
    }

    func folder(of scenario: String) -> URL { root.appendingPathComponent("\(runID)-\(scenario)") }

    package var runCSV: URL { root.appendingPathComponent("\(runID)-run.csv") }

    /// summary.csv, assertions.csv, the probes' files, history.csv and ledger.csv (when measured).
    func writeScenario(_ scenario: String, _ measurement: Measurement, checks: [AssertionCheck]) throws -> URL {
        let folder = folder(of: scenario)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        // The ledger (the largest file: a million requests is about 150 MB) is written on another
        // thread while the rest are made and written here.
        let ledgerError = Mutex<(any Error)?>(nil)
        let ledgerWritten = DispatchSemaphore(value: 0)
        if let ledger = measurement.ledger {
            let file = folder.appendingPathComponent(ResultFile.ledger.name)
            Thread.detachNewThread {
                do {
                    try ledger.writeCSV(to: file)
                } catch {
                    ledgerError.withLock { $0 = error }
                }
                ledgerWritten.signal()
            }
        } else {
            ledgerWritten.signal()
        }
        var files = measurement.files
        files[.summary] = SummaryCSV.render(measurement.rows, runID: runID)
        files[.assertions] = ResultFiles.assertionsCSV(checks)
        if let history = measurement.history {
            files[.history] = ResultFiles.historyCSV(history.records, effects: measurement.effects)
        }
        do {
            for (file, text) in files {
                try text.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
            }
        } catch {
            ledgerWritten.wait()
            throw error
        }
        ledgerWritten.wait()
        if let error = ledgerError.withLock({ $0 }) { throw error }
        return folder
    }

    /// The combined summary of the run; returns its path.
    func writeRun(_ rows: [SummaryRow]) throws -> URL {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try SummaryCSV.render(rows, runID: runID).write(to: runCSV, atomically: true, encoding: .utf8)
        return runCSV
    }

    /// The summary rows a scenario's folder holds (empty when it has none yet).
    func summaryRows(of scenario: String) -> [SummaryRow] {
        let file = folder(of: scenario).appendingPathComponent(ResultFile.summary.name)
        guard let text = try? String(contentsOf: file, encoding: .utf8), let parsed = try? SummaryCSV.parse(text)
        else { return [] }
        return parsed.rows
    }
}

/// The per-scenario CSV files besides the summary (columns documented in docs/csv.md).
enum ResultFiles {
    static let historyHeader = ResultFile.HistoryColumn.header

    static func historyCSV(_ records: [History.Record], effects: [Int: Int]) -> String {
        var text = historyHeader + "\n"
        for record in records {
            var code = ""
            var status = ""
            var message = ""
            switch record.outcome {
            case .ok(let id): message = id
            case .failed(let failure, let httpStatus):
                code = failure.rawValue
                status = httpStatus.map(String.init) ?? ""
            case .pending, .dropped: break
            }
            text +=
                CSV.line([
                    String(record.sendID), SummaryCSV.format(record.intended), SummaryCSV.format(record.started),
                    SummaryCSV.format(record.ended), record.verdict.rawValue, code, status, message,
                    String(record.attempts), record.keyChanged ? "1" : "0",
                    effects[record.sendID].map(String.init) ?? "",
                ]) + "\n"
        }
        return text
    }

    static func assertionsCSV(_ checks: [AssertionCheck]) -> String {
        var text = "assertion,passed,actual,expected\n"
        for check in checks {
            text +=
                CSV.line([
                    check.assertion.text, check.passed ? "1" : "0", SummaryCSV.format(check.actual),
                    SummaryCSV.format(check.expected),
                ]) + "\n"
        }
        return text
    }
}
