import FakeFrontmail
import Foundation

/// What a certified client is given for one case (the protocol of docs/certify.md): the API's
/// base URL, the public key, one JSON body per logical send, and how many to run at once.
package struct CertifyRequest: Sendable {
    package var baseURL: URL
    package var publicKey: String
    package var bodies: [String]
    package var concurrency: Int
    package var caseID: String
    /// Whether to read each sent message's status after the send succeeds.
    package var readsStatus = false

    /// The protocol's environment variables.
    var environment: [String: String] {
        [
            "FRONTMAIL_URL": baseURL.absoluteString, "FRONTMAIL_PUBLIC_KEY": publicKey,
            "FRONTMAIL_CONCURRENCY": String(concurrency), "FRONTMAIL_CASE": caseID,
            "FRONTMAIL_STATUS_READS": readsStatus ? "1" : "0",
        ]
    }
}

/// A client to certify: its claim, and how it runs (a command, or a function in this process for
/// the tests' clients).
package struct CertifyClient: Sendable {
    package enum Kind: Sendable {
        case command(String)
        case inProcess(@Sendable (CertifyRequest) async -> Void)
    }

    package var claim: ClientClaim
    package var kind: Kind

    package init(claim: ClientClaim, kind: Kind) {
        self.claim = claim
        self.kind = kind
    }

    /// The command as given (nil in process).
    package var command: String? {
        if case .command(let command) = kind { return command }
        return nil
    }
}

/// One case's outcome for one client.
package struct CertifyResult: Sendable {
    package var certifyCase: CertifyCase
    package var verdict: CertifyVerdict
    package var requests: Int
    /// Wall seconds the client ran.
    package var elapsed: Double
    /// The server's record of the sends that broke the property (at most five).
    package var evidence: [ServerView.Row]
}

/// Every case a run certified, for one client.
package struct ClientReport: Sendable {
    package var claim: ClientClaim
    package var command: String?
    package var results: [CertifyResult]

    package var failed: [CertifyResult] { results.filter { $0.verdict.outcome == .fail } }
    package func count(_ outcome: CertifyVerdict.Outcome) -> Int {
        results.filter { $0.verdict.outcome == outcome }.count
    }
}

/// Runs cases against clients: for each, a fake on 127.0.0.1 (port 0) serving the case's plan,
/// the client with the case's sends, and the verdict from the server's ledger. Up to `jobs` cases
/// run at once, of any of the clients (a timed case alone); each case's ledger, sends and the
/// client's output are kept in `<the client's folder>/<case name>/`.
package struct CertifyRunner: Sendable {
    /// A client to run and the folder its cases write to.
    package struct Entry: Sendable {
        package var client: CertifyClient
        package var folder: URL

        package init(client: CertifyClient, folder: URL) {
            self.client = client
            self.folder = folder
        }
    }

    package var cases: [CertifyCase]
    package var jobs: Int
    /// Told after each case: (cases done, cases planned for every client, the client's index, the result).
    package var progress: @Sendable (Int, Int, Int, CertifyResult) -> Void = { _, _, _, _ in }
    /// Every case's deadline times this: more room for a host that runs much else (the tests, beside
    /// a full `swift test`); a deadline ends a client, it decides nothing of its verdict's judging.
    package var deadlineScale = 1.0

    /// The public key every case's client is given.
    static let publicKey = "pk_certify"
    /// How long the server is watched after the client ends, for its last connection to close.
    static let settle = 0.2
    /// How long requests still in progress on the server after the client ends are waited for
    /// (the longest delay a case holds a request is 5 s).
    static let unfinished = 10.0

    package init(cases: [CertifyCase], jobs: Int) {
        self.cases = cases
        self.jobs = jobs
    }

    /// One client's cases (`run(_:)` with one entry).
    package func run(_ client: CertifyClient, folder: URL) async throws -> ClientReport {
        try await run([Entry(client: client, folder: folder)])[0]
    }

    /// Every client's cases: first those whose verdict holds on any host, of every client, `jobs`
    /// at a time (one client's slow case does not leave the other slots idle); then the required
    /// ones that depend on when requests arrive (`CertifyCase.dependsOnHostSpeed`), one at a time,
    /// client after client, so that a client's own time between attempts is not time this run's
    /// other cases take. A report per entry, in their order, its results in catalog order. When
    /// cancelled it starts no more cases, stops the running ones' clients and returns the cases
    /// that ended before (a case cut short has no verdict; a client none of whose cases ended has
    /// an empty report).
    package func run(_ entries: [Entry]) async throws -> [ClientReport] {
        for entry in entries {
            try FileManager.default.createDirectory(at: entry.folder, withIntermediateDirectories: true)
        }
        var results = Array(repeating: [CertifyResult?](repeating: nil, count: cases.count), count: entries.count)
        var done = 0
        for (indices, width) in Self.phases(cases, jobs: jobs) {
            let work = entries.indices.flatMap { client in indices.map { (client: client, index: $0) } }
            try await withThrowingTaskGroup(of: (Int, Int, CertifyResult?).self) { group in
                var next = work.makeIterator()
                func start() {
                    guard !Task.isCancelled, let (client, index) = next.next() else { return }
                    group.addTask {
                        let entry = entries[client]
                        let result = try await runCase(cases[index], client: entry.client, folder: entry.folder)
                        return (client, index, Task.isCancelled ? nil : result)
                    }
                }
                for _ in 0..<width { start() }
                while let (client, index, result) = try await group.next() {
                    guard let result else { continue }
                    results[client][index] = result
                    done += 1
                    progress(done, entries.count * cases.count, client, result)
                    start()
                }
            }
        }
        return zip(entries, results).map { entry, results in
            ClientReport(claim: entry.client.claim, command: entry.client.command, results: results.compactMap { $0 })
        }
    }

    /// The cases' indices in the order they run and how many at once: those whose verdict holds on
    /// any host (and the informational ones, which gate nothing) `jobs` at a time, then each
    /// required case that depends on when requests arrive alone.
    static func phases(_ cases: [CertifyCase], jobs: Int) -> [(indices: [Int], width: Int)] {
        let alone = { (index: Int) in cases[index].dependsOnHostSpeed && cases[index].weight == .required }
        return [(cases.indices.filter { !alone($0) }, max(1, jobs)), (cases.indices.filter(alone), 1)]
    }

    func runCase(_ certifyCase: CertifyCase, client: CertifyClient, folder: URL) async throws -> CertifyResult {
        let caseFolder = folder.appendingPathComponent(certifyCase.name)
        try FileManager.default.createDirectory(at: caseFolder, withIntermediateDirectories: true)
        let core = FakeFrontmailCore(plan: certifyCase.plan, seed: 1)
        var options = FakeFrontmailServer.Options()
        options.finishesAbandonedWorkOnTime = true
        let server = try FakeFrontmailServer(core: core, options: options)
        defer { server.shutdown() }
        let bodies = (0..<certifyCase.sends).map { CertifyCase.body(send: $0, publicKey: Self.publicKey) }
        let sendsFile = caseFolder.appendingPathComponent("sends.jsonl")
        try (bodies.joined(separator: "\n") + "\n").write(to: sendsFile, atomically: true, encoding: .utf8)
        let request = CertifyRequest(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)")!, publicKey: Self.publicKey, bodies: bodies,
            concurrency: certifyCase.concurrency, caseID: certifyCase.name, readsStatus: certifyCase.readsStatus)
        let started = Date()
        let end: ClientEnd
        switch client.kind {
        case .command(let command):
            var environment = request.environment
            environment["FRONTMAIL_SENDS"] = sendsFile.path
            // The folder of this program, where `frontmail-certify-client` is built beside it.
            if let executable = Bundle.main.executablePath {
                environment["FRONTMAIL_BIN"] = URL(fileURLWithPath: executable).deletingLastPathComponent().path
            }
            end = await ClientProcess.run(
                command, environment: environment, log: caseFolder.appendingPathComponent("client.log"),
                deadline: certifyCase.deadline(for: client.claim) * deadlineScale)
        case .inProcess(let body):
            end = await Self.runInProcess(
                body, request, deadline: certifyCase.deadline(for: client.claim) * deadlineScale)
        }
        let elapsed = Date().timeIntervalSince(started)
        try? await Task.sleep(for: .seconds(Self.settle))
        // A request a delay held when its client left is still being processed (the server
        // finishes abandoned work on time): judged once it is done, waiting at most `unfinished`.
        for _ in 0..<Int(Self.unfinished / 0.05) where core.ledger.records.contains(where: { $0.finished.isNaN }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        let view = ServerView(core.ledger)
        try? core.ledger.writeCSV(to: caseFolder.appendingPathComponent("ledger.csv"))
        let verdict = CertifyJudge.judge(certifyCase, claim: client.claim, view: view, end: end)
        return CertifyResult(
            certifyCase: certifyCase, verdict: verdict, requests: view.requests, elapsed: elapsed,
            evidence: verdict.sends.prefix(5).flatMap { view.rows(send: $0) })
    }

    /// A client in this process, cancelled at the deadline.
    static func runInProcess(
        _ body: @escaping @Sendable (CertifyRequest) async -> Void, _ request: CertifyRequest, deadline: Double
    ) async -> ClientEnd {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await body(request)
                return true
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(deadline))
                return false
            }
            let finished = await group.next() ?? false
            group.cancelAll()
            return finished ? .exited(0) : .deadline(deadline)
        }
    }
}

extension ServerView {
    /// One request of a send as the reports show it.
    package struct Row: Sendable {
        package var send: Int
        package var attempt: Int
        package var arrival: Double
        package var finished: Double
        package var status: Int
        package var action: String
        package var key: String?
        package var retryAfter: Double
        package var effect: Bool
    }

    func rows(send: Int) -> [Row] {
        (sends[send] ?? []).enumerated().map { index, attempt in
            Row(
                send: send, attempt: index + 1, arrival: attempt.record.arrival, finished: attempt.record.finished,
                status: Int(attempt.record.status), action: attempt.record.action.name, key: attempt.key,
                retryAfter: attempt.record.retryAfter, effect: attempt.record.effect)
        }
    }
}
