/// The options of `frontmail-bench run`, named once: the command parses by them
/// (`RunOption.spec`), and LoadKit spells them where it writes a command line of its own (a child's
/// `ChildRequest`, a failed scenario's replay command).
package enum RunOption: String, CaseIterable, Sendable {
    case out
    case seed
    case only
    /// The parent's run id, given to a child (it writes into the parent's run).
    case runID = "run-id"
    case junit
    case summaryMarkdown = "summary-md"
    case shard
    case workers
    case server
    case rate
    case traceSend = "trace-send"
    /// On virtual time: the order of the jobs ready at once (fifo, random, pct, pct:D).
    case schedule
    /// One of the suite's deliberately broken clients in place of the SDK as it ships.
    case broken
    case quick
    case noProgress = "no-progress"
    /// Several scenarios in this one process instead of a child each.
    case sameProcess = "same-process"
    /// A shard's progress as lines on stdout, for its parent.
    case progressLines = "progress-lines"

    /// Whether the option stands alone (`--quick`) rather than taking a value (`--seed 7`).
    package var isFlag: Bool {
        [.quick, .noProgress, .sameProcess, .progressLines].contains(self)
    }

    /// As written on a command line: `--run-id`.
    package var spelled: String { "--" + rawValue }

    /// What `run` parses.
    package static let spec = Arguments.Spec(
        options: Set(allCases.filter { !$0.isFlag }.map(\.rawValue)),
        flags: Set(allCases.filter(\.isFlag).map(\.rawValue)), repeatable: [RunOption.only.rawValue],
        unlisted: [RunOption.sameProcess.rawValue, RunOption.progressLines.rawValue])
}

extension Arguments {
    /// The value of a `run` option (the last one given).
    package func value(_ option: RunOption) -> String? { value(option.rawValue) }
    /// Whether a `run` flag was given.
    package func flag(_ option: RunOption) -> Bool { flag(option.rawValue) }
    /// Every value of a repeatable `run` option.
    package func all(_ option: RunOption) -> [String] { all(option.rawValue) }
    package func integer(_ option: RunOption) throws(UsageError) -> Int? { try integer(option.rawValue) }
    package func unsigned(_ option: RunOption) throws(UsageError) -> UInt64? { try unsigned(option.rawValue) }
    package func number(_ option: RunOption, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        try number(option.rawValue, in: range)
    }
}
