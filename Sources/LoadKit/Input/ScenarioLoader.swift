import FakeFrontmail
import Foundation

/// Finds and validates scenario files before anything runs.
public enum ScenarioLoader {
    public struct NotFound: Error, CustomStringConvertible {
        public var path: String
        /// The folder exists but holds no scenario file.
        public var emptyFolder = false
        public var description: String {
            emptyFolder ? "\(path): the folder holds no scenario files (*.json)" : "\(path): no such file or folder"
        }
    }

    public static func load(_ paths: [String]) throws -> [Scenario] {
        var files: [String] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                throw NotFound(path: path)
            }
            if isDirectory.boolValue {
                let names = try FileManager.default.contentsOfDirectory(atPath: path).filter { $0.hasSuffix(".json") }
                    .sorted()
                // A folder with nothing to run must not pass as a run that passed.
                guard !names.isEmpty else { throw NotFound(path: path, emptyFolder: true) }
                files += names.map { (path as NSString).appendingPathComponent($0) }
            } else {
                files.append(path)
            }
        }
        var scenarios: [Scenario] = []
        var seen: [String: String] = [:]
        for file in files {
            let scenario = try Scenario.load(file: file)
            if let other = seen[scenario.name] {
                throw InputFileError(
                    file: file,
                    error: InputError(path: "name", reason: "'\(scenario.name)' is also the name in \(other)"))
            }
            seen[scenario.name] = file
            scenarios.append(scenario)
        }
        return scenarios
    }
}
