import LoadKit

/// Every command's outcomes and the exit code each ends with: the one table. Each command's
/// `--help` prints its row from here, docs/exit-codes.md is the same table (a test holds it to this
/// one), and `ExitTableTests` makes each outcome happen and checks its code.
enum ExitTable {
    typealias Outcome = (code: ExitCode, meaning: String)

    /// What every command that writes results shares.
    private static let common: [Outcome] = [
        (.usage, "bad arguments (an output that names an input, a device node or a FIFO included)")
    ]
    private static let interrupted: Outcome = (
        .interrupted, "interrupted by SIGINT, SIGTERM or SIGHUP (what was done so far is written)"
    )
    private static let unwritable: Outcome = (.software, "results that cannot be written, or an internal failure")

    static let commands: [(name: String, outcomes: [Outcome])] = [
        (
            "run",
            [(.success, "every assertion holds"), (.failure, "some assertion failed")] + common
                + [(.dataError, "a bad scenario file"), unwritable, interrupted]
        ),
        (
            "tune",
            [
                (.success, "every cell correct and the analytic checks agree"),
                (.failure, "a duplicate, a lost send or a failed analytic check"),
            ] + common + [(.dataError, "a bad tune file"), unwritable, interrupted]
        ),
        (
            "explore",
            [(.success, "nothing found"), (.failure, "a property failed")] + common + [unwritable, interrupted]
        ),
        (
            "certify",
            [
                (
                    .success,
                    "every client passed every required case (with --clients: failed exactly its expected ones)"
                ),
                (.failure, "otherwise"),
            ] + common
                + [
                    (.dataError, "a bad claim or clients file (a skipped client's claim included)"),
                    (.software, "results that cannot be written, or no client of the file can run here"),
                    interrupted,
                ]
        ),
        (
            "merge",
            [(.success, "every assertion holds"), (.failure, "some assertion failed")] + common
                + [
                    (.dataError, "shards that cannot be merged or a damaged shard file"), unwritable,
                    (.interrupted, "interrupted by a signal, or a shard was (the merge is partial)"),
                ]
        ),
        (
            "report",
            [(.success, "written")] + common
                + [(.dataError, "a RUN.csv that cannot be read"), (.software, "a file that cannot be written")]
        ),
        ("list", [(.success, "listed")] + common + [(.dataError, "a bad scenario file")]),
        (
            "compare",
            [
                (.success, "no regression"), (.regression, "a regression (the failing rows are listed)"),
                (.improvement, "improvements beyond the tolerance only (update the baseline)"),
            ] + common + [(.dataError, "an unreadable file"), (.software, "an output that cannot be written")]
        ),
        (
            "baseline",
            [(.success, "written")] + common
                + [(.dataError, "an unreadable file or runs that differ"), (.software, "the output cannot be written")]
        ),
        (
            "serve",
            [(.success, "stopped by a signal (the ledger and part written)")] + common
                + [
                    (.dataError, "a bad plan, config or scenario file"),
                    (.software, "the port cannot be bound, or an output cannot be written"),
                ]
        ),
    ]

    static func outcomes(_ command: String) -> [Outcome] {
        commands.first { $0.name == command }?.outcomes ?? []
    }

    /// The `exit:` paragraph of `command`'s `--help`, wrapped at 100 columns.
    static func help(_ command: String) -> String {
        let items = outcomes(command).map { "\($0.code.rawValue) \($0.meaning)" }
        var lines: [String] = []
        var line = "exit:"
        for (index, item) in items.enumerated() {
            let piece = " " + item + (index < items.count - 1 ? ";" : "")
            if line.count + piece.count > 100 {
                lines.append(line)
                line = "     " + piece
            } else {
                line += piece
            }
        }
        lines.append(line)
        return lines.joined(separator: "\n")
    }
}
