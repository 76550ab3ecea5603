import FakeFrontmail
import Foundation

/// `frontmail-bench serve`: the fake Frontmail API on 127.0.0.1 until SIGINT or SIGTERM.
public enum ServeCommand {
    public static let usage = """
        usage: frontmail-bench serve [--port N] [--host ADDR] [--plan FILE] [--config FILE] [--seed N]
                                     [--ledger FILE.csv] [--loops N]

        Starts the fake Frontmail API. The first line on stdout is `listening on http://HOST:PORT`.
        SIGINT or SIGTERM stops it, writes the ledger if asked and prints a one-line summary.

          --port N          port to bind (default 0: any free port)
          --host ADDR       address to bind (default 127.0.0.1; loopback addresses only)
          --plan FILE       a fault plan (JSON, see docs/fault-plans.md)
          --config FILE     an emulator config (JSON: templates, keys, credits mode, …)
          --seed N          seed for the plan's random decisions (default 1)
          --ledger FILE     write the attempt ledger as CSV on exit
          --loops N         event-loop threads (default 1)
        """

    static let spec = Arguments.Spec(
        options: ["port", "host", "plan", "config", "seed", "ledger", "loops"])

    public static func run(_ arguments: [String]) -> ExitCode {
        let parsed: Arguments
        switch CommandArguments("serve", arguments, spec: spec, usage: usage) {
        case .parsed(let arguments): parsed = arguments
        case .exit(let code): return code
        }
        let port: Int
        let seed: UInt64
        let loops: Int
        do {
            port = try parsed.integer("port") ?? 0
            seed = try parsed.unsigned("seed") ?? 1
            loops = try parsed.integer("loops") ?? 1
        } catch {
            printError("serve: \(error)")
            return .usage
        }
        let host = parsed.value("host") ?? "127.0.0.1"
        guard host.hasPrefix("127.") || host == "::1" || host == "localhost" else {
            printError("serve: --host must be a loopback address (127.0.0.0/8 or ::1), not '\(host)'")
            return .usage
        }
        guard (0...65_535).contains(port), (1...64).contains(loops) else {
            printError("serve: --port must be 0-65535 and --loops 1-64")
            return .usage
        }
        let plan: FaultPlan
        let config: EmulatorConfig
        do {
            plan = try parsed.value("plan").map(loadPlan) ?? .none
            config = try parsed.value("config").map(loadConfig) ?? EmulatorConfig()
        } catch let error as InputFileError {
            printError(error.description)
            return .dataError
        } catch {
            printError("serve: \(error)")
            return .dataError
        }
        let core = FakeFrontmailCore(config: config, plan: plan, seed: seed)
        let server: FakeFrontmailServer
        do {
            var options = FakeFrontmailServer.Options(
                host: host == "localhost" ? "127.0.0.1" : host, port: port, loops: loops)
            options.limits = HTTPRequestParser.Limits()
            server = try FakeFrontmailServer(core: core, options: options)
        } catch {
            printError("serve: \(error)")
            return .software
        }
        print("listening on \(server.url.absoluteString)")
        fflush(nil)
        let signalName = waitForTerminationSignal()
        server.shutdown()
        if let ledgerPath = parsed.value("ledger") {
            do {
                try core.ledger.writeCSV(to: URL(fileURLWithPath: ledgerPath))
            } catch {
                printError("serve: could not write the ledger to \(ledgerPath): \(error)")
                return .software
            }
        }
        let stats = server.stats
        print(
            "stopped (\(signalName)): \(stats.requestsServed) requests served, \(stats.connectionsOpened) connections, "
                + "\(core.emulator.committedCount) messages accepted, \(stats.malformedRequests) malformed"
                + (parsed.value("ledger").map { ", ledger in \($0)" } ?? ""))
        return .success
    }

    static func loadPlan(_ path: String) throws -> FaultPlan {
        let data = try InputFileError.read(path)
        do {
            return try FaultPlan.decode(data)
        } catch {
            throw InputFileError(file: path, error: error)
        }
    }

    static func loadConfig(_ path: String) throws -> EmulatorConfig {
        let data = try InputFileError.read(path)
        do {
            let config = try JSONDecoder().decode(EmulatorConfig.self, from: data)
            try config.validate()
            return config
        } catch {
            throw InputFileError(file: path, error: InputError.from(error))
        }
    }
}
