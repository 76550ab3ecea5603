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
          --header-timeout S  a request head must be complete S seconds after its first byte
                            (default 10; then 408 and close)
          --idle-timeout S  close a connection that waits S seconds for a request without a byte
                            (default 60)
          --input-budget MB  bytes read and not yet parsed, over all connections (default 256);
                            beyond it a large partial request is answered 503 and closed
          --share-port      bind a port another process already serves (SO_REUSEPORT: the kernel
                            splits connections and ledgers between them); without it that is an error
        """

    static let spec = Arguments.Spec(
        options: [
            "port", "host", "plan", "config", "seed", "ledger", "loops", "header-timeout", "idle-timeout",
            "input-budget",
        ], flags: ["share-port"])

    public static func run(_ arguments: [String]) -> ExitCode {
        let parsed: Arguments
        switch CommandArguments("serve", arguments, spec: spec, usage: usage) {
        case .parsed(let arguments): parsed = arguments
        case .exit(let code): return code
        }
        let port: Int
        let seed: UInt64
        let loops: Int
        var options = FakeFrontmailServer.Options()
        do {
            port = try parsed.integer("port") ?? 0
            seed = try parsed.unsigned("seed") ?? 1
            loops = try parsed.integer("loops") ?? 1
            options.headerTimeout = try parsed.number("header-timeout", in: 0.001...86_400) ?? options.headerTimeout
            options.idleTimeout = try parsed.number("idle-timeout", in: 0.001...86_400) ?? options.idleTimeout
            if let megabytes = try parsed.number("input-budget", in: 1...65_536) {
                options.inputBudget = Int(megabytes * 1024 * 1024)
            }
            options.sharePort = parsed.flag("share-port")
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
        // The ledger is written at exit: a path that cannot be written is found now, not then.
        if let ledgerPath = parsed.value("ledger"), let problem = Self.unwritable(ledgerPath) {
            printError("serve: --ledger \(ledgerPath) cannot be written (\(problem))")
            return .usage
        }
        let core = FakeFrontmailCore(config: config, plan: plan, seed: seed)
        let server: FakeFrontmailServer
        do {
            options.host = host == "localhost" ? "127.0.0.1" : host
            options.port = port
            options.loops = loops
            server = try FakeFrontmailServer(core: core, options: options)
        } catch let error as SocketError where error.code == EADDRINUSE {
            printError("serve: port \(port) is already in use (another serve?); --share-port splits it on purpose")
            return .software
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
                + "\(core.emulator.committedCount) messages accepted, \(stats.malformedRequests) malformed, "
                + "\(stats.connectionsTimedOut) timed out, \(stats.connectionsRefused) refused (no descriptors), "
                + "\(stats.requestsOverBudget) over the input budget"
                + (parsed.value("ledger").map { ", ledger in \($0)" } ?? ""))
        return .success
    }

    /// Why `path` cannot be written (nil: it can). Creates nothing that was not there.
    static func unwritable(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return "it is a folder" }
            return FileManager.default.isWritableFile(atPath: path) ? nil : "permission denied"
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "no folder \(folder)"
        }
        return FileManager.default.isWritableFile(atPath: folder) ? nil : "permission denied in \(folder)"
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
        do throws(InputError) {
            let config = try InputError.decode(EmulatorConfig.self, from: data)
            try config.validate()
            return config
        } catch {
            throw InputFileError(file: path, error: error)
        }
    }
}
