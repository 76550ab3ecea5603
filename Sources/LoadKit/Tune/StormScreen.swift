import FakeFrontmail
import Foundation

/// A storms sweep (one with a metastability map) as a constraint on another sweep's decision: a
/// policy is never recommended when it is metastable, or overloaded before the drop, at a place of
/// the map where some policy of the storms sweep recovers. Policies the storms sweep did not
/// measure are run there for the decision (`StormScreen.Runner`), most telling places first.
package struct StormScreen: Sendable {
    typealias Point = MetastabilityMap.Point

    /// One judged (policy, place) of the map.
    struct Entry: Sendable {
        var policy: PolicyPoint
        var environment: String
        var point: Point
        var verdict: StormVerdict
        var recovery: Double
        /// Measured by the storms sweep itself (false: run for this decision).
        var fromSweep: Bool
    }

    /// The storms sweep's name.
    let name: String
    /// Every place of the map, in the storms sweep's order.
    let points: [Point]
    /// The places where some policy of the storms sweep (with no duplicate or lost send) recovered,
    /// most telling first: the longest drop, then the highest load.
    let recoverable: [Point]
    /// The storms sweep's environment at each place.
    let environments: [Point: TuneEnvironment]
    /// What is known, by policy and place.
    private(set) var entries: [PolicyPoint: [Point: Entry]] = [:]
    /// Policies the storms sweep did not measure that were run there for the decision, in order.
    private(set) var screened: [PolicyPoint] = []

    package init?(storms: TuneFile, cells: [TuneCell]) {
        guard let map = MetastabilityMap(cells) else { return nil }
        name = storms.name
        points = map.points
        var recoverable: Set<Point> = []
        var environments: [Point: TuneEnvironment] = [:]
        for environment in storms.scaledEnvironments {
            if let place = environment.map { environments[Point(environment, at: place)] = environment }
        }
        self.environments = environments
        for (policy, places) in map.cells {
            for (point, cell) in places {
                entries[policy, default: [:]][point] = Entry(
                    policy: policy, environment: cell.environment.name, point: point,
                    verdict: cell.verdict ?? .overloaded, recovery: cell.recovery, fromSweep: true)
                if cell.verdict == .recovered, cell.duplicates == 0, cell.lost == 0 { recoverable.insert(point) }
            }
        }
        self.recoverable = recoverable.sorted {
            ($0.drop, $0.load, $0.clients ?? 0) > ($1.drop, $1.load, $1.clients ?? 0)
        }
    }

    /// The first recoverable place where `policy` is metastable or overloaded (nil: none known).
    func failure(of policy: PolicyPoint) -> Entry? {
        recoverable.lazy.compactMap { self.entries[policy]?[$0] }.first { $0.verdict != .recovered }
    }

    /// Whether every recoverable place of `policy` is judged, or one already fails it.
    func settled(_ policy: PolicyPoint) -> Bool {
        failure(of: policy) != nil || recoverable.allSatisfy { entries[policy]?[$0] != nil }
    }

    /// The next place `policy` must be run at (nil: settled).
    func nextPlace(for policy: PolicyPoint) -> Point? {
        guard failure(of: policy) == nil else { return nil }
        return recoverable.first { entries[policy]?[$0] == nil }
    }

    /// A measured cell of a place always has a verdict (a map place needs a metastability
    /// section); one without is counted as failing the place, so a screen never runs it again.
    mutating func record(_ cell: TuneCell, at point: Point) {
        if entries[cell.policy] == nil { screened.append(cell.policy) }
        entries[cell.policy, default: [:]][point] = Entry(
            policy: cell.policy, environment: cell.environment.name, point: point,
            verdict: cell.verdict ?? .overloaded, recovery: cell.recovery, fromSweep: false)
    }

    /// One line on `policy`: where it fails, or that it recovers wherever some policy does.
    func verdict(of policy: PolicyPoint) -> String {
        let unjudged = points.count - recoverable.count
        let rest =
            unjudged == 0
            ? ""
            : "; \(unjudged) of \(points.count) places where no policy recovers (or none kept up before the drop) say nothing"
        if let failure = failure(of: policy) {
            let what = failure.verdict == .metastable ? "metastable" : "overloaded before the drop"
            let scale = failure.point.clients.map { " at " + TuneRule.ScalePick.clients($0) } ?? ""
            return String(
                format: "%@ at load %.2f, %gs drop%@ (%@) in %@, where another policy recovers", what,
                failure.point.load, failure.point.drop, scale, failure.environment, name)
        }
        guard settled(policy) else { return "not judged in \(name) (the screen was interrupted)" }
        return "recovers in all \(recoverable.count) places of \(name) where some policy recovers" + rest
    }

    static let header = "storms,policy,budget,environment,load,drop_s,verdict,recovery_s,source,clients"

    /// storms.csv's rows: every place judged, the storms sweep's policies and the screened ones.
    var rows: String {
        var text = ""
        for policy in entries.keys.sorted() {
            for point in points {
                guard let entry = entries[policy]?[point] else { continue }
                text +=
                    CSV.line([
                        name, policy.label, policy.budget.text, entry.environment, TuneReport.number(point.load),
                        TuneReport.number(point.drop), entry.verdict.rawValue, TuneReport.number(entry.recovery),
                        entry.fromSweep ? "sweep" : "screen", point.clients.map(String.init) ?? "",
                    ]) + "\n"
            }
        }
        return text
    }
}
