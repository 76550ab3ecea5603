import FakeFrontmail
import Foundation
import Simulator
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

/// `explore`'s options are range-checked where they are read; anything else is a usage error.
@Suite("explore: options")
struct ExploreCommandTests {
    static func options(_ arguments: [String]) throws -> Explorer.Options {
        try ExploreCommand.options(Arguments(arguments, spec: ExploreCommand.spec))
    }

    @Test("defaults: 60 s, seed 1, every core; each option within its range")
    func defaultsAndRanges() throws {
        let defaults = try Self.options([])
        #expect(defaults.seconds == 60 && defaults.runs == nil && defaults.seed == 1 && defaults.broken == nil)
        let given = try Self.options([
            "--runs", "500", "--seed", "9", "--jobs", "3", "--broken", "duplicating", "--stop-on-failure",
        ])
        #expect(given.runs == 500 && given.seconds == nil && given.seed == 9 && given.jobs == 3)
        #expect(given.broken?.name == "duplicating" && given.stopOnFailure)
        #expect(try Self.options(["--time", "10m"]).seconds == 600)
        #expect(defaults.schedule == .fifo)
        #expect(try Self.options(["--schedule", "random"]).schedule == .random)
        #expect(try Self.options(["--schedule", "pct"]).schedule == .pct(depth: 3))
        #expect(try Self.options(["--schedule", "pct:7"]).schedule == .pct(depth: 7))
        let inProcess = try Self.options(["--transport", "inProcess"])
        #expect(!defaults.overSockets && !inProcess.overSockets)
        let socket = try Self.options(["--transport", "socket"])
        #expect(socket.overSockets && socket.jobs == min(64, 3 * ProcessInfo.processInfo.activeProcessorCount))
        let two = try Self.options(["--transport", "socket", "--jobs", "2"])
        #expect(two.jobs == 2)
    }

    @Test(
        "out of range or malformed values are refused with the option's name",
        arguments: [
            (["--runs", "0"], "--runs must be 1-10000000"), (["--runs", "10000001"], "--runs must be"),
            (["--runs", "x"], "--runs needs a whole number"), (["--time", "0.5s"], "--time must be a duration"),
            (["--time", "2d"], "--time must be"), (["--time", "1h", "--runs", "3"], "give --runs or --time"),
            (["--seed", "-1"], "--seed needs a non-negative whole number"), (["--jobs", "0"], "--jobs needs"),
            (["--jobs", "65"], "--jobs needs"), (["--broken", "perfect"], "no broken client 'perfect'"),
            (["--schedule", "lifo"], "--schedule must be fifo, random, pct or pct:D (D 1-20), not 'lifo'"),
            (["--schedule", "pct:0"], "--schedule must be"), (["--schedule", "pct:21"], "--schedule must be"),
            (["--transport", "tcp"], "--transport must be inProcess or socket, not 'tcp'"),
            (["--transport", ""], "--transport needs a value"),
            (["--transport", "socket", "--schedule", "random"], "--schedule orders virtual time's jobs"),
        ])
    func refused(arguments: [String], message: String) {
        #expect {
            _ = try Self.options(arguments)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("fuzz: 3,000 random argument lists give options within range or a usage error, never a trap")
    func fuzz() {
        var random = SeededRandom(seed: 42)
        let names = [
            "--runs", "--time", "--seed", "--jobs", "--broken", "--out", "--stop-on-failure", "--schedule", "--nope",
            "x", "--transport",
        ]
        let values = [
            "0", "1", "-1", "64", "65", "1e3", "nan", "inf", "18446744073709551616", "60s", "0s", "1d", "86400s",
            "86401s", "", "duplicating", "no-jitter", "é", "9223372036854775807", "1.5", "10m", "fifo", "random",
            "pct", "pct:20", "pct:21", "pct:-3", "socket", "inProcess", "Socket",
        ]
        for _ in 0..<3000 {
            var arguments: [String] = []
            for _ in 0..<Int(random.next() % 6) {
                arguments.append(names[Int(random.next() % UInt64(names.count))])
                if random.next() % 4 != 0 { arguments.append(values[Int(random.next() % UInt64(values.count))]) }
            }
            guard let options = try? Self.options(arguments) else { continue }
            #expect((options.runs ?? 1) >= 1 && (options.runs ?? 1) <= 10_000_000)
            #expect((options.seconds ?? 1) >= 1 && (options.seconds ?? 1) <= 86_400)
            #expect(options.runs != nil || options.seconds != nil)
            #expect((1...64).contains(options.jobs))
            if case .pct(let depth) = options.schedule { #expect(Schedule.depths.contains(depth)) }
            #expect(!options.overSockets || options.schedule == .fifo)
        }
    }
}
