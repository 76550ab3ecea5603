import FakeFrontmail
import Foundation
import FrontmailMutants
import Testing

@testable import FrontmailBenchCLI
@testable import LoadKit

@Suite("command-line arguments")
struct ArgumentsTests {
    let spec = Arguments.Spec(
        options: ["out", "seed", "tolerance"], flags: ["quick", "help"], repeatable: ["tolerance"])

    @Test("options, inline values, repeats, flags and positionals")
    func parses() throws {
        let parsed = try Arguments(
            [
                "run", "a.json", "--out", "dir", "--seed=7", "--quick", "--tolerance", "5%", "--tolerance=x=1%", "--",
                "--odd",
            ],
            spec: spec)
        #expect(parsed.positionals == ["run", "a.json", "--odd"])
        #expect(parsed.value("out") == "dir")
        #expect(try parsed.unsigned("seed") == 7)
        #expect(parsed.flag("quick"))
        #expect(!parsed.flag("help"))
        #expect(parsed.all("tolerance") == ["5%", "x=1%"])
    }

    @Test(
        "errors are usage errors with a message",
        arguments: [
            (["--nope"], "unknown option '--nope'"), (["--out"], "--out needs a value"),
            (["--quick=1"], "takes no value"),
            (["-x"], "unknown option '-x'"),
            (["--out", ""], "--out needs a value, not an empty one"),
            (["--out="], "--out needs a value, not an empty one"),
            (["--out", "a", "--out=b"], "--out is given twice ('a', then 'b')"),
            (["--seed", "1", "--seed", "1"], "--seed is given twice"),
        ])
    func errors(arguments: [String], message: String) {
        #expect {
            _ = try Arguments(arguments, spec: spec)
        } throws: { error in
            (error as? Arguments.UsageError)?.message.contains(message) == true
        }
    }

    @Test("numbers are checked")
    func numbers() throws {
        let parsed = try Arguments(["--seed", "-3"], spec: spec)
        #expect(throws: Arguments.UsageError.self) { _ = try parsed.unsigned("seed") }
        #expect(try Arguments([], spec: spec).integer("seed") == nil)
    }

    @Test("the tool answers --help with 0 and an unknown command with 64")
    func dispatch() async {
        #expect(await FrontmailBench.main(["--help"]) == .success)
        #expect(await FrontmailBench.main(["frobnicate"]) == .usage)
        #expect(await FrontmailBench.main([]) == .usage)
        #expect(ServeCommand.run(["--help"]) == .success)
        #expect(ServeCommand.run(["--port", "x"]) == .usage)
        #expect(ServeCommand.run(["--host", "10.0.0.1"]) == .usage)
    }

    @Test("a command that reads no file named on its line refuses a stray argument with 64, before any work")
    func strayArguments() async {
        // Each would otherwise run (certify one case, explore 20) or fail on its missing plan (65).
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("stray-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        #expect(
            await CertifyCommand.run(["--client", "true", "--cases", "1.1", "--out", out, "my-claim.json"]) == .usage)
        #expect(await ExploreCommand.run(["--runs", "20", "--out", out, "my-case.json"]) == .usage)
        #expect(ServeCommand.run(["--plan", "/nonexistent/plan.json", "plan.json"]) == .usage)
        // --help still answers first.
        #expect(await ExploreCommand.run(["--help", "my-case.json"]) == .success)
    }

    @Test("a bad plan file is reported as FILE: field.path: reason with exit 65")
    func badPlanFile() throws {
        let path = "/tmp/frontmail-bad-plan-\(getpid()).json"
        try #"{"rules":[{"action":{"type":"respond","status":1000}}]}"#.write(
            toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        #expect(ServeCommand.run(["--plan", path]) == .dataError)
        do {
            _ = try ServeCommand.loadPlan(path)
            Issue.record("accepted")
        } catch let error as InputFileError {
            #expect(error.description == "\(path): rules[0].action.status: must be an HTTP status (100-999)")
        }
        #expect(ServeCommand.run(["--plan", "/nonexistent/plan.json"]) == .dataError)
    }
}

/// `explore --list-broken` is read by scripts (`scripts/explore-broken.sh`): its first word is each
/// client's whole name, however long, and its second the property it must break.
@Suite("explore --list-broken")
struct BrokenListTests {
    @Test("every broken client's whole name, then its property, one line each")
    func wholeNames() {
        let lines = ExploreCommand.brokenList()
        #expect(lines.count == BrokenClient.all.count)
        for (line, client) in zip(lines, BrokenClient.all) {
            let words = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(words.first.map(String.init) == client.name, "\(line)")
            #expect(words.dropFirst().first.map(String.init) == client.property + ":", "\(line)")
        }
        // A name longer than the old 24 columns is listed whole.
        #expect(BrokenClient.all.contains { $0.name.count > 24 })
    }
}
