import FakeFrontmail
import Foundation
import Frontmail
import LoadKit

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// A stress of URLSession's socket teardown on Linux (docs/urlsession-linux.md): each round makes a
// session and an SDK client over it, starts sends against a server that resets, closes, truncates
// or holds most of them, cancels them at random moments, and invalidates the session while
// URLSession is still tearing their sockets down: what a scenario's end does once per run, here
// hundreds of times a second. A crash ends the process by its signal (scripts/crash-stress.sh
// --teardown runs it N times and counts them); a run that survives prints its rounds and exits 0.
// Traffic goes to 127.0.0.1 only; the rounds and the time are bounded.
//
// `--invalidate cancel` ends each session with `invalidateAndCancel()`, which in FoundationNetworking
// reads the session's task registry off its work queue while cancelled tasks leave it (a data race
// that traps in `invalidateAndCancel`); `--invalidate finish` (the default, what the harness does)
// ends it with `finishTasksAndInvalidate()`, which runs on the work queue.
//
//   swift run -c release URLSessionStress [--rounds N (2000)] [--sends N (32)] [--seconds S (60)]
//       [--invalidate finish|cancel]

let arguments: Arguments
do {
    arguments = try Arguments(
        Array(CommandLine.arguments.dropFirst()),
        spec: Arguments.Spec(options: ["rounds", "sends", "seconds", "invalidate"], flags: ["help"]))
} catch {
    FileHandle.standardError.write(Data("URLSessionStress: \(error)\n".utf8))
    exit(64)
}
if arguments.flag("help") {
    print(
        "usage: URLSessionStress [--rounds N (2000)] [--sends N (32)] [--seconds S (60)] [--invalidate finish|cancel]")
    exit(0)
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("URLSessionStress: \(message)\n".utf8))
    exit(64)
}

let rounds: Int
let sends: Int
let seconds: Double
do {
    rounds = try arguments.integer("rounds") ?? 2000
    sends = try arguments.integer("sends") ?? 32
    seconds = try arguments.number("seconds", in: 1...3600) ?? 60
} catch {
    fail("\(error)")
}
guard (1...1_000_000).contains(rounds) else { fail("--rounds must be 1-1000000") }
guard (1...1024).contains(sends) else { fail("--sends must be 1-1024") }
let invalidate = arguments.value("invalidate") ?? "finish"
guard ["finish", "cancel"].contains(invalidate) else { fail("--invalidate is finish or cancel, not '\(invalidate)'") }

func chance(_ probability: Double) -> FaultMatch {
    var match = FaultMatch(endpoint: .send)
    match.probability = probability
    return match
}

let plan = FaultPlan(rules: [
    FaultRule(match: chance(0.25), action: FaultAction(.reset)),
    FaultRule(match: chance(0.15), action: FaultAction(.close)),
    FaultRule(match: chance(0.25), action: FaultAction(.truncate, keepBytes: 20)),
    FaultRule(match: chance(0.3), action: FaultAction(.hang)),
])
let server = try FakeFrontmailServer(core: FakeFrontmailCore(plan: plan, seed: 7))
defer { server.shutdown() }
let started = ContinuousClock.now
var random = SystemRandomNumberGenerator()
var done = 0
while done < rounds, ContinuousClock.now - started < .seconds(seconds) {
    let session = URLSession(
        configuration: FakeFrontmailHarness.sessionConfiguration(.init(maxConnections: 64, requestTimeout: 5)))
    let transport = URLSessionTransport(session: session)
    let client = try Frontmail(
        publicKey: "pk_stress", apiURL: server.url,
        retry: RetryPolicy(maxRetries: 2, baseDelay: 0.001, maxDelay: 0.005), timeout: 2, transport: transport)
    let tasks = (0..<sends).map { index in
        Task { _ = try? await client.send(templateID: "tpl_bench", params: ["n": .integer(index)]) }
    }
    try await Task.sleep(nanoseconds: UInt64.random(in: 0...5_000_000, using: &random))
    for task in tasks where Bool.random(using: &random) { task.cancel() }
    try await Task.sleep(nanoseconds: UInt64.random(in: 0...5_000_000, using: &random))
    // The rest cancelled. The SDK ends each send at once, while URLSession's own cancels are
    // still queued: the session is invalidated while it tears their sockets down. (Invalidating
    // it before the sends have ended could make a starting attempt create its task on an
    // invalidated session, which FoundationNetworking traps: docs/urlsession-linux.md.)
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
    transport.drain()
    if invalidate == "cancel" { session.invalidateAndCancel() } else { session.finishTasksAndInvalidate() }
    done += 1
    if done % 100 == 0 {
        FileHandle.standardError.write(Data("\(done) rounds, \(server.stats.connectionsOpened) connections\n".utf8))
    }
}
print(
    "URLSessionStress: \(done) rounds of \(sends) sends, \(server.stats.connectionsOpened) connections, sessions ended by "
        + (invalidate == "cancel" ? "invalidateAndCancel()" : "finishTasksAndInvalidate()") + ", no crash")
