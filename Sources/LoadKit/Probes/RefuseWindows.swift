import FakeFrontmail

/// The plan's `refuse` windows in the run's seconds. A connection refused there never reaches the
/// server, so the ledger does not hold every attempt of a send that lived through one: its gaps may
/// hold a refused attempt and its backoff, its last request may not be the client's last attempt,
/// and its attempt numbers are shifted. A verdict built on the ledger's attempts leaves such a send
/// out (from the plan alone, nothing the client reports).
struct RefuseWindows {
    private let windows: [(from: Double, to: Double)]

    init(_ scenario: Scenario) {
        windows = scenario.plan.rules.filter { $0.action.kind == .refuse }.map {
            (
                ($0.match.from?.seconds ?? 0) * scenario.timeScale,
                ($0.match.to?.seconds ?? .infinity) * scenario.timeScale
            )
        }
    }

    var isEmpty: Bool { windows.isEmpty }

    /// Whether [from, to] meets a window (an unfinished end meets every later one).
    func overlaps(from: Double, to: Double) -> Bool {
        let end = to.isNaN ? Double.infinity : to
        return windows.contains { $0.from <= end && from < $0.to }
    }

    /// Whether a send of the history lived through a window.
    func touches(_ record: History.Record) -> Bool {
        !windows.isEmpty && overlaps(from: record.started.isNaN ? 0 : record.started, to: record.ended)
    }
}
