/// The tool's exit codes (documented in the README; sysexits where one fits).
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// An assertion failed.
    case failure = 1
    /// A regression against a baseline.
    case regression = 2
    /// Improvements beyond the tolerance only: the baseline should be updated.
    case improvement = 4
    /// Bad command-line arguments.
    case usage = 64
    /// A bad input file (scenario, plan, config, CSV).
    case dataError = 65
    /// Something failed that is not the input's fault (a socket, a file).
    case software = 70
    /// Stopped by SIGINT or SIGTERM (partial results were written).
    case interrupted = 130
}
