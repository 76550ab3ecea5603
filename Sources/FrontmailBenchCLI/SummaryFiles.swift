import FakeFrontmail
import Foundation
import LoadKit

/// The rows of summary CSVs named on a command line, or nil after printing why one of them
/// cannot be read (the file and the reason).
func readSummaries(_ files: [String]) -> [[SummaryRow]]? {
    var runs: [[SummaryRow]] = []
    for file in files {
        do {
            let data = try InputFileError.read(file)
            runs.append(try SummaryCSV.parse(String(decoding: data, as: UTF8.self), unique: true).rows)
        } catch let error as InputFileError {
            printError(error.description)
            return nil
        } catch {
            printError("\(file): \(error)")
            return nil
        }
    }
    return runs
}
