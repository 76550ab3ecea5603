import FakeFrontmail
import Foundation
import LoadKit
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `frontmail-bench serve`: the fake Frontmail API on 127.0.0.1 until SIGINT, SIGTERM or SIGHUP.
public enum ServeCommand {
    public static let usage = """
        usage: frontmail-bench serve [--port N] [--host ADDR] [--plan FILE] [--config FILE] [--seed N]
                                     [--ledger FILE.csv] [--loops N]
               frontmail-bench serve --scenario FILE --shards N --part-out DIR [--quick] [--seed N] …

        Starts the fake Frontmail API. The first line on stdout is `listening on http://HOST:PORT`.
        SIGINT, SIGTERM or SIGHUP stops it, writes the ledger if asked and prints a one-line summary.

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
          --share-port      share the port with other serves started with --share-port (SO_REUSEPORT:
                            the kernel splits connections and ledgers between them); a port that a
                            serve without it holds is refused

        The shared server of a sharded run (docs/distributed.md): `run --shard i/N --server URL` on
        every shard, then `merge` with the part this server writes when it stops.
          --scenario FILE   serve this scenario's fake: its emulator config, its plan (time-scaled)
                            and seed (--quick and --seed as the shards were given them)
          --shards N        how many shards will send here
          --part-out DIR    on a signal, write DIR/<scenario>.server.fmshard for `merge`
          --expose          allow a --host that is not loopback (a container's 0.0.0.0); the fake
                            has no authentication: expose it only on a private network

        \(ExitTable.help("serve"))
        """

    static let spec = Arguments.Spec(
        options: [
            "port", "host", "plan", "config", "seed", "ledger", "loops", "header-timeout", "idle-timeout",
            "input-budget", "scenario", "shards", "part-out",
        ], flags: ["share-port", "quick", "expose"])

    public static func run(_ arguments: [String]) -> ExitCode {
        let command = CommandArguments("serve", arguments, spec: spec, usage: usage, takesFiles: false)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        var options: FakeFrontmailServer.Options
        let seed: UInt64
        switch settings(parsed) {
        case .success(let parsedSettings): (options, seed) = parsedSettings
        case .failure(let exit): return exit.code
        }
        let shared: SharedServer?
        switch SharedServer.parse(parsed) {
        case .absent: shared = nil
        case .server(let server): shared = server
        case .exit(let code): return code
        }
        guard (0...65_535).contains(options.port), (1...64).contains(options.loops) else {
            printError("serve: --port must be 0-65535 and --loops 1-64")
            return .usage
        }
        let plan: FaultPlan
        let config: EmulatorConfig
        switch inputs(parsed) {
        case .success(let read): (plan, config) = read
        case .failure(let exit): return exit.code
        }
        // Listening before the server starts: a supervisor that signals as soon as it reads the
        // `listening on` line finds the handler in place.
        let termination = TerminationSignal()
        if options.sharePort, options.port != 0,
            let problem = Self.unsharedServer(host: options.host, port: options.port)
        {
            printError("serve: --share-port \(options.port): \(problem)")
            return .usage
        }
        let core = shared?.makeCore() ?? FakeFrontmailCore(config: config, plan: plan, seed: seed)
        if options.host == "localhost" { options.host = "127.0.0.1" }
        let server: FakeFrontmailServer
        switch bind(core, options: options) {
        case .success(let bound): server = bound
        case .failure(let exit): return exit.code
        }
        print("listening on \(server.url.absoluteString)")
        fflush(nil)
        let signalName = termination.wait()
        server.shutdown()
        return stopped(server, core: core, shared: shared, ledger: parsed.value("ledger"), signal: signalName)
    }

    /// The server's options and seed from the command line; the host a loopback address (or any,
    /// with --expose).
    static func settings(_ parsed: Arguments) -> Result<(FakeFrontmailServer.Options, UInt64), Exit> {
        var options = FakeFrontmailServer.Options()
        let seed: UInt64
        do {
            options.port = try parsed.integer("port") ?? 0
            seed = try parsed.unsigned("seed") ?? 1
            options.loops = try parsed.integer("loops") ?? 1
            options.headerTimeout = try parsed.number("header-timeout", in: 0.001...86_400) ?? options.headerTimeout
            options.idleTimeout = try parsed.number("idle-timeout", in: 0.001...86_400) ?? options.idleTimeout
            if let megabytes = try parsed.number("input-budget", in: 1...65_536) {
                options.inputBudget = Int(megabytes * 1024 * 1024)
            }
            options.sharePort = parsed.flag("share-port")
        } catch {
            printError("serve: \(error)")
            return .failure(Exit(code: .usage))
        }
        let host = parsed.value("host") ?? "127.0.0.1"
        guard host == "localhost" || Self.isAddress(host) else {
            printError("serve: --host '\(host)' is not an IPv4 or IPv6 address (127.0.0.1, ::1 or localhost)")
            return .failure(Exit(code: .usage))
        }
        guard host.hasPrefix("127.") || host == "::1" || host == "localhost" || parsed.flag("expose") else {
            printError(
                "serve: --host must be a loopback address (127.0.0.0/8 or ::1), not '\(host)' (--expose allows it)")
            return .failure(Exit(code: .usage))
        }
        options.host = host
        return .success((options, seed))
    }

    /// The plan and config files, read and checked; the ledger's path checked before the server
    /// starts (it is written at exit: a path that cannot be written is found now, not then).
    static func inputs(_ parsed: Arguments) -> Result<(FaultPlan, EmulatorConfig), Exit> {
        if let refused = refuseOutputsNamingInputs(
            "serve", [("ledger", parsed.value("ledger"))],
            inputs: ["plan", "config", "scenario"].compactMap { parsed.value($0) })
        {
            return .failure(Exit(code: refused))
        }
        let read: (FaultPlan, EmulatorConfig)
        do {
            read = (
                try parsed.value("plan").map(loadPlan) ?? .none,
                try parsed.value("config").map(loadConfig) ?? EmulatorConfig()
            )
        } catch let error as InputFileError {
            printError(error.description)
            return .failure(Exit(code: .dataError))
        } catch {
            printError("serve: \(error)")
            return .failure(Exit(code: .dataError))
        }
        if let ledgerPath = parsed.value("ledger"), let problem = Self.unwritable(ledgerPath) {
            printError("serve: --ledger \(ledgerPath) cannot be written (\(problem))")
            // A device node, FIFO or folder is refused as any output naming one is (64); a path
            // that cannot be written is an output that cannot be written (70).
            return .failure(Exit(code: OutputFile.nonRegularKind(at: ledgerPath) == nil ? .software : .usage))
        }
        return .success(read)
    }

    /// The server on its port, or why it could not bind (70).
    static func bind(_ core: FakeFrontmailCore, options: FakeFrontmailServer.Options) -> Result<
        FakeFrontmailServer, Exit
    > {
        do {
            return .success(try FakeFrontmailServer(core: core, options: options))
        } catch let error as SocketError where error.code == EADDRINUSE {
            let port = options.port
            printError(
                options.sharePort
                    ? "serve: port \(port) is in use by a process that does not share it (start each serve with --share-port)"
                    : "serve: port \(port) is already in use (another serve?); --share-port splits it on purpose")
        } catch {
            printError("serve: \(error)")
        }
        return .failure(Exit(code: .software))
    }

    /// After the signal: the ledger and the shared server's part written, and the summary line.
    static func stopped(
        _ server: FakeFrontmailServer, core: FakeFrontmailCore, shared: SharedServer?, ledger: String?, signal: String
    ) -> ExitCode {
        if let ledger {
            do {
                try core.ledger.writeCSV(to: URL(fileURLWithPath: ledger))
            } catch {
                printError("serve: could not write the ledger to \(ledger): \(error)")
                return .software
            }
        }
        if let shared {
            do {
                let (file, _) = try shared.write(core)
                print("server part: \(file.path)")
            } catch {
                printError("serve: could not write the server part: \(error)")
                return .software
            }
        }
        let stats = server.stats
        print(
            "stopped (\(signal)): \(stats.requestsServed) requests served, \(stats.connectionsOpened) connections, "
                + "\(core.emulator.committedCount) messages accepted, \(stats.malformedRequests) malformed, "
                + "\(stats.connectionsTimedOut) timed out, \(stats.connectionsRefused) refused (no descriptors), "
                + "\(stats.requestsOverBudget) over the input budget" + (ledger.map { ", ledger in \($0)" } ?? ""))
        return .success
    }

    /// Why a serve already on `port` may not be joined (it was started without --share-port, or it
    /// is not a serve), or nil when it may, or when nothing answers there (this one is the first).
    /// SO_REUSEPORT cannot tell: a serve with several loops sets it for its own listeners.
    static func unsharedServer(host: String, port: Int) -> String? {
        let address = host.contains(":") ? "[\(host)]" : (host == "localhost" ? "127.0.0.1" : host)
        guard let url = URL(string: "http://\(address):\(port)\(FakeFrontmailCore.identityPath)") else { return nil }
        let answer = Mutex<(Data?, Bool)>((nil, false))
        let done = DispatchSemaphore(value: 0)
        var request = URLRequest(url: url)
        request.timeoutInterval = 2
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: request) { data, response, _ in
            answer.withLock { $0 = (data, response != nil) }
            done.signal()
        }.resume()
        guard done.wait(timeout: .now() + 3) == .success else { return "the process on it does not answer" }
        let (data, answered) = answer.withLock { $0 }
        guard answered else { return nil }
        guard let data, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            object["run_id"] != nil
        else { return "the process on it is not a frontmail-bench serve" }
        return object["shared"] as? Bool == true ? nil : "the serve on it was started without --share-port"
    }

    /// Whether `text` is an IPv4 or IPv6 address literal (`127.999.0.1` is not: 70 became 64).
    static func isAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }

    /// Why `path` cannot be written (nil: it can). Creates nothing that was not there.
    static func unwritable(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if let kind = OutputFile.nonRegularKind(at: path) { return "it is \(kind), not a regular file" }
            return FileManager.default.isWritableFile(atPath: path) ? nil : "permission denied"
        }
        let folder = url.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            return "no folder \(folder)"
        }
        return FileManager.default.isWritableFile(atPath: folder) ? nil : "permission denied in \(folder)"
    }

    static func loadPlan(_ path: String) throws -> FaultPlan {
        try InputFileError.decode(FaultPlan.self, from: InputFileError.read(path), file: path) {
            (plan) throws(InputError) in try plan.validate()
        }
    }

    static func loadConfig(_ path: String) throws -> EmulatorConfig {
        try InputFileError.decode(EmulatorConfig.self, from: InputFileError.read(path), file: path) {
            (config) throws(InputError) in try config.validate()
        }
    }
}
