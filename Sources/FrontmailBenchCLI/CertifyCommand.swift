import FakeFrontmail
import Foundation
import LoadKit

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `frontmail-bench certify`: numbered cases graded from the fake server's record alone, against
/// any HTTP client that speaks the protocol of docs/certify.md.
public enum CertifyCommand {
    public static let usage = """
        usage: frontmail-bench certify --client COMMAND [--policy FILE] [--client COMMAND [--policy FILE]]...
                                       [--cases PATTERNS] [--jobs N] [--out DIR] [--no-progress]
               frontmail-bench certify --clients FILE [--cases PATTERNS] [--jobs N] [--out DIR]
               frontmail-bench certify --list

        For every case, starts a fake Frontmail API on 127.0.0.1 serving the case's faults, runs
        COMMAND (as /bin/sh -c COMMAND) with the API's URL and the case's sends in its environment
        (docs/certify.md: FRONTMAIL_URL, FRONTMAIL_PUBLIC_KEY, FRONTMAIL_SENDS, FRONTMAIL_CONCURRENCY,
        FRONTMAIL_CASE), and judges what the server received: PASS, FAIL, NOT APPLICABLE or
        INFORMATIONAL. Writes DIR/<run>-certify/: certify.csv, certify.json, certify-junit.xml,
        certify.html (the matrix and each failure on a timeline), matrix.md, and per client and
        case the server's ledger, the sends and the client's output.

          --client COMMAND  a client to certify; give several for a matrix
          --policy FILE     the retry policy the --client before it claims (JSON: name,
                            maxAttempts, baseDelay, maxDelay, multiplier, jitter, timeout); its
                            waits are judged against it. Without one: the contract's defaults
          --clients FILE    several clients with their claims and expected failures (a gate:
                            exit 0 only when each fails exactly its expected cases)
          --cases PATTERNS  only these cases: names, globs, groups or numbers, comma-separated
                            (retry-after.fraction,backoff.*,status,2.3)
          --jobs N          cases run at once (1-16, default 4); a required case whose verdict
                            depends on when requests arrive runs alone
          --out DIR         where results go (default results)
          --list            list the cases
          --no-progress     no progress line on stderr

        \(ExitTable.help("certify"))
        """

    static let spec = Arguments.Spec(
        options: ["client", "policy", "clients", "cases", "jobs", "out"], flags: ["list", "no-progress"],
        repeatable: ["client", "policy"])

    /// One client of the run, and the cases it is expected to fail (nil: none expected, no gate).
    struct Planned {
        var client: CertifyClient
        var expected: Set<String>?
    }

    public static func run(_ arguments: [String]) async -> ExitCode {
        let command = CommandArguments("certify", arguments, spec: spec, usage: usage, takesFiles: false)
        guard case .parsed(let parsed) = command else { return command.exitCode }
        if parsed.flag("list") {
            for certifyCase in CertifyCase.all { print(listLine(certifyCase)) }
            return .success
        }
        let cases: [CertifyCase]
        let jobs: Int
        do {
            (cases, jobs) = try casesAndJobs(parsed)
        } catch {
            printError("certify: \(error)\n\n\(usage)")
            return .usage
        }
        let planned: [Planned]
        switch clients(parsed) {
        case .success(let clients): planned = clients
        case .failure(let exit): return exit.code
        }
        if let refused = refuseOutputsNamingInputs(
            "certify", [("out", parsed.value("out"))],
            inputs: parsed.all("policy") + (parsed.value("clients").map { [$0] } ?? []))
        {
            return refused
        }
        guard
            let (folder, runID) = claimOutput(
                "certify", parsed, { try RunFolder.claim(root: $0, runID: RunID.make(), kind: "certify") })
        else { return .software }
        let progress = !parsed.flag("no-progress") && isatty(2) == 1
        printError(
            "certify: \(planned.count) clients × \(cases.count) cases, \(jobs) at a time; results in \(folder.path)")
        let (outcome, cancelled) = await RunSession.interruptible(
            notice: "\ninterrupted: stopping the clients and writing the cases run so far…"
        ) { try await certify(planned, cases: cases, jobs: jobs, folder: folder, progress: progress) }
        guard case .success(let reports) = outcome else {
            if case .failure(let error) = outcome { printError("certify: \(error)") }
            return .software
        }
        do {
            try CertifyReport.write(reports, folder: folder, runID: runID)
        } catch {
            printError("certify: results could not be written to \(folder.path) (\(error))")
            return .software
        }
        var gateHolds = true
        for (report, entry) in zip(reports, planned) {
            let (line, holds) = gateLine(report, expected: entry.expected, cases: cases)
            gateHolds = gateHolds && holds
            print(line)
        }
        if progress { StandardStream.error("\r\u{1B}[K") }
        printError("certify: results in \(folder.path) (certify.html)")
        if cancelled { return .interrupted }
        return gateHolds ? .success : .failure
    }

    /// `--cases` and `--jobs` (1-16, default 4).
    static func casesAndJobs(_ parsed: Arguments) throws -> (cases: [CertifyCase], jobs: Int) {
        let cases = try selectedCases(parsed.value("cases"))
        let jobs = try parsed.integer("jobs") ?? 4
        guard (1...16).contains(jobs) else {
            throw Arguments.UsageError(message: "--jobs needs a whole number from 1 to 16, not \(jobs)")
        }
        return (cases, jobs)
    }

    /// A case as `--list` prints it: number, name, title, property, weight.
    static func listLine(_ certifyCase: CertifyCase) -> String {
        let weight = certifyCase.weight == .informational ? " (informational)" : ""
        let number = certifyCase.id.padding(toLength: 5, withPad: " ", startingAt: 0)
        let name = certifyCase.name.padding(toLength: 46, withPad: " ", startingAt: 0)
        return "\(number) \(name) \(certifyCase.title) [\(certifyCase.property.rawValue)]\(weight)"
    }

    /// Every planned client's cases in one pool (`CertifyRunner.run(_:)`); a signal starts no
    /// more cases and keeps the ones that ended.
    static func certify(
        _ planned: [Planned], cases: [CertifyCase], jobs: Int, folder: URL, progress: Bool
    ) async throws -> [ClientReport] {
        var runner = CertifyRunner(cases: cases, jobs: jobs)
        let names = planned.map(\.client.claim.name)
        runner.progress = { done, total, client, result in
            if progress { StandardStream.error("\r\u{1B}[K") }
            if result.verdict.outcome == .fail {
                printError("  \(names[client]) \(result.certifyCase.name) FAIL: \(result.verdict.detail)")
            }
            if progress { StandardStream.error("  \(done)/\(total) cases (\(names[client]))") }
        }
        return try await runner.run(
            planned.enumerated().map { index, entry in
                CertifyRunner.Entry(
                    client: entry.client,
                    folder: folder.appendingPathComponent(
                        CertifyReport.clientFolder(index: index, name: entry.client.claim.name)))
            })
    }

    /// A client's line of the summary, and whether it holds the gate: without expected failures
    /// (a `--client`), no FAIL; with them, exactly the expected ones among the cases run.
    static func gateLine(_ report: ClientReport, expected: Set<String>?, cases: [CertifyCase]) -> (
        line: String, holds: Bool
    ) {
        let failed = Set(report.failed.map { $0.certifyCase.name })
        let counts = [CertifyVerdict.Outcome.pass, .fail, .notApplicable, .informational].map {
            "\(report.count($0)) \(CertifyReport.short($0))"
        }
        var line = "\(report.claim.name): " + counts.joined(separator: ", ")
        // A case the client did not run (a signal ended certify first) passed nothing and failed
        // nothing: its expected failure is not judged, and the line says the client is incomplete.
        let ran = Set(report.results.map(\.certifyCase.name))
        let notRun = cases.count(where: { !ran.contains($0.name) })
        if notRun > 0 { line += "; \(notRun) of \(cases.count) cases not run" }
        guard let expected = expected?.intersection(cases.map(\.name)).intersection(ran) else {
            return (line, failed.isEmpty && notRun == 0)
        }
        let surprising = failed.subtracting(expected).sorted(by: caseOrder)
        let missing = expected.subtracting(failed).sorted(by: caseOrder)
        if !surprising.isEmpty { line += "; unexpected FAIL: " + surprising.joined(separator: " ") }
        if !missing.isEmpty { line += "; expected FAIL that passed: " + missing.joined(separator: " ") }
        let holds = surprising.isEmpty && missing.isEmpty && notRun == 0
        return (holds ? line + "; as expected" : line, holds)
    }

    /// Case names in the catalog's order.
    static func caseOrder(_ left: String, _ right: String) -> Bool {
        let names = CertifyCase.all.map(\.name)
        return (names.firstIndex(of: left) ?? names.count) < (names.firstIndex(of: right) ?? names.count)
    }

    /// The cases `--cases` names (every case without it); a pattern that names none is an error.
    static func selectedCases(_ text: String?) throws(Arguments.UsageError) -> [CertifyCase] {
        guard let text else { return CertifyCase.all }
        let patterns = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard patterns.count <= 100, text.utf8.count <= 1000 else {
            throw Arguments.UsageError(message: "--cases takes at most 100 patterns")
        }
        for pattern in patterns where !CertifyCase.all.contains(where: { $0.matches(pattern) }) {
            throw Arguments.UsageError(
                message:
                    "--cases: '\(pattern.prefix(40))' names no case (names such as retry-after.fraction, globs such as backoff.*, a group, or numbers such as 2.3)"
            )
        }
        return CertifyCase.all.filter { certifyCase in patterns.contains { certifyCase.matches($0) } }
    }

    /// The clients: from `--clients FILE`, or each `--client` with the `--policy` given after it.
    static func clients(_ parsed: Arguments) -> Result<[Planned], Exit> {
        let commands = parsed.all("client")
        let policies = parsed.all("policy")
        if let file = parsed.value("clients") {
            guard commands.isEmpty, policies.isEmpty else {
                printError("certify: give --clients FILE or --client COMMAND, not both\n\n\(usage)")
                return .failure(Exit(code: .usage))
            }
            return manifestClients(file)
        }
        guard !commands.isEmpty else {
            printError("certify: name a client (--client COMMAND or --clients FILE)\n\n\(usage)")
            return .failure(Exit(code: .usage))
        }
        guard policies.isEmpty || policies.count == commands.count else {
            printError(
                "certify: give one --policy per --client, or none (\(commands.count) clients, \(policies.count) policies)"
            )
            return .failure(Exit(code: .usage))
        }
        for command in commands where command.isEmpty || command.utf8.count > 4096 || command.contains("\0") {
            printError("certify: --client must be a command of 1-4096 bytes")
            return .failure(Exit(code: .usage))
        }
        for command in commands {
            if let program = CertifyManifest.program(of: command), !CertifyManifest.available(program) {
                printError(
                    "certify: --client '\(command.prefix(60))': \(program.prefix(60)) is not a program on PATH or an executable file"
                )
                return .failure(Exit(code: .usage))
            }
        }
        var planned: [Planned] = []
        for (index, command) in commands.enumerated() {
            var claim = ClientClaim.contractDefaults
            if index < policies.count {
                do {
                    claim = try ClientClaim.load(file: policies[index])
                } catch {
                    printError("certify: \(error)")
                    return .failure(Exit(code: .dataError))
                }
            } else {
                claim.name = String(command.prefix(40))
            }
            planned.append(Planned(client: CertifyClient(claim: claim, kind: .command(command)), expected: nil))
        }
        return .success(planned)
    }

    /// The clients of a clients file: every claim read and checked (a skipped client's too: the
    /// file is wrong or right whatever this machine has installed), each client's expected
    /// failures checked against its claim, a client whose program is missing skipped (said).
    static func manifestClients(_ file: String) -> Result<[Planned], Exit> {
        do {
            let manifest = try CertifyManifest.load(file: file)
            let numbered = manifest.numberedFailures
            if !numbered.isEmpty {
                printError(
                    "certify: \(file): expectedFailures names cases by number, read for this release only; write their names: "
                        + numbered.prefix(8).map { "\($0.number) is \($0.name)" }.joined(separator: ", ")
                        + (numbered.count > 8 ? ", ..." : ""))
            }
            var planned: [Planned] = []
            var skipped: [String] = []
            for (index, entry) in manifest.clients.enumerated() {
                let claim = try entry.policy.map { try ClientClaim.load(file: $0) } ?? ClientClaim.contractDefaults
                do {
                    try manifest.checkExpectedFailures(of: index, claim: claim)
                } catch {
                    printError("certify: \(file): \(error)")
                    return .failure(Exit(code: .dataError))
                }
                if let program = entry.requires, !CertifyManifest.available(program) {
                    printError("certify: skipping '\(entry.command.prefix(60))': \(program) is not installed")
                    skipped.append(program)
                    continue
                }
                planned.append(
                    Planned(
                        client: CertifyClient(claim: claim, kind: .command(entry.command)),
                        expected: manifest.expectedNames(of: index)))
            }
            guard !planned.isEmpty else {
                printError(
                    "certify: no client of \(file) can run here: each requires a program that is not installed (\(Set(skipped).sorted().joined(separator: ", "))); nothing was certified"
                )
                return .failure(Exit(code: .software))
            }
            return .success(planned)
        } catch let error as InputFileError {
            printError("certify: \(error)")
            return .failure(Exit(code: .dataError))
        } catch {
            printError("certify: \(error)")
            return .failure(Exit(code: .dataError))
        }
    }
}
