import FakeFrontmail
import Foundation
import LoadKit

/// `serve --scenario FILE --shards N --part-out DIR`: the one server of a sharded socket run,
/// which keeps the ledger `merge` needs and writes it as the run's server part when it stops.

extension SharedServer {
    enum Parsed {
        case absent
        case server(SharedServer)
        /// Said what is wrong.
        case exit(ExitCode)
    }

    /// `--shards N`, 1 to `Shard.maxCount`; nil after saying what is wrong.
    private static func shardCount(_ parsed: Arguments) -> Int? {
        do {
            guard let count = try parsed.integer("shards"), (1...Shard.maxCount).contains(count) else {
                printError("serve: --scenario needs --shards N (1-\(Shard.maxCount)): how many shards send here")
                return nil
            }
            return count
        } catch {
            printError("serve: \(error)")
            return nil
        }
    }

    static func parse(_ parsed: Arguments) -> Parsed {
        guard let file = parsed.value("scenario") else {
            for option in ["shards", "part-out"] where parsed.value(option) != nil {
                printError("serve: --\(option) goes with --scenario FILE")
                return .exit(.usage)
            }
            if parsed.flag("quick") {
                printError("serve: --quick goes with --scenario FILE")
                return .exit(.usage)
            }
            return .absent
        }
        if parsed.value("plan") != nil || parsed.value("config") != nil {
            printError("serve: --scenario brings its own plan and config (leave out --plan and --config)")
            return .exit(.usage)
        }
        guard let shards = shardCount(parsed) else { return .exit(.usage) }
        guard let folder = parsed.value("part-out") else {
            printError("serve: --scenario needs --part-out DIR (where its part for merge goes)")
            return .exit(.usage)
        }
        var scenario: Scenario
        do {
            scenario = try Scenario.load(file: file)
            if let seed = try parsed.unsigned("seed") { scenario.seed = seed }
        } catch let error as InputFileError {
            printError(error.description)
            return .exit(.dataError)
        } catch {
            printError("serve: \(error)")
            return .exit(.usage)
        }
        if parsed.flag("quick") { scenario = scenario.quickened() }
        guard scenario.experiment == .load else {
            printError("serve: \(scenario.name) is a cancellation experiment; a shared server serves loads")
            return .exit(.usage)
        }
        // Shards a scenario cannot be split into would never all report: refused before serving.
        if let shard = try? Shard(index: 0, count: shards),
            let problem = scenario.shardingProblem(shard, sharedServer: true)
        {
            printError("serve: \(problem)")
            return .exit(.usage)
        }
        let url = URL(fileURLWithPath: folder)
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            printError("serve: --part-out \(folder) cannot be written (\(error.localizedDescription))")
            return .exit(.software)
        }
        return .server(SharedServer(scenario: scenario, shards: shards, quick: parsed.flag("quick"), folder: url))
    }
}
