import Foundation

/// What the SDK's default costs in one environment against another policy: the table of a
/// release note (`regret.csv`). Positive figures are the default's loss.
struct Regret: Sendable {
    typealias Against = RegretBaseline

    var environment: String
    var against: Against
    var defaultCell: TuneCell
    var other: TuneCell

    var sendsLostPer10k: Double { (other.userSuccess - defaultCell.userSuccess) * 10_000 }
    var extraP99: Double { defaultCell.okLatency - other.okLatency }
    /// Extra server requests per send, as a percentage of the other policy's.
    var extraServerLoadPercent: Double {
        other.amplification > 0 ? (defaultCell.amplification / other.amplification - 1) * 100 : .nan
    }
    var extraDeadWorkPer10k: Double { Self.deadWorkPer10k(defaultCell) - Self.deadWorkPer10k(other) }

    static func deadWorkPer10k(_ cell: TuneCell) -> Double {
        cell.sends == 0 ? .nan : Double(cell.deadWork) / Double(cell.sends) * 10_000
    }

    /// The environment's best cell among the candidates.
    static func best(in cells: [TuneCell]) -> TuneCell? {
        let top = cells.map(\.userSuccess).filter(\.isFinite).max() ?? .nan
        return cells.filter { $0.userSuccess >= top - TuneRule.margin }.min { left, right in
            let a = (left.amplification, left.okLatency, left.policy)
            let b = (right.amplification, right.okLatency, right.policy)
            return a.0 != b.0 ? a.0 < b.0 : a.1 != b.1 ? a.1 < b.1 : a.2 < b.2
        }
    }

    /// Per environment: the default against the best cell, and against the recommendation.
    static func table(
        _ cells: [TuneCell], defaultPolicy: PolicyPoint, recommended: PolicyPoint?, excluded: Set<PolicyPoint> = []
    ) -> [Regret] {
        let candidates = Set(TuneRule.candidates(cells, excluded: excluded).keys)
        var rows: [Regret] = []
        let environments = Dictionary(grouping: cells.filter { !$0.runs.isEmpty }, by: \.environment.name)
        for name in environments.keys.sorted() {
            let cells = environments[name]!
            guard let mine = cells.first(where: { $0.policy == defaultPolicy }) else { continue }
            if let best = best(in: cells.filter { candidates.contains($0.policy) }) {
                rows.append(Regret(environment: name, against: .best, defaultCell: mine, other: best))
            }
            if let recommended, let other = cells.first(where: { $0.policy == recommended }) {
                rows.append(Regret(environment: name, against: .recommended, defaultCell: mine, other: other))
            }
        }
        return rows
    }

    static let header =
        "environment,against,policy,default_success,other_success,sends_lost_per_10k,default_p99_policy_ms,other_p99_policy_ms,extra_p99_policy_ms,default_amplification,other_amplification,extra_server_load_pct,default_dead_work_per_10k,other_dead_work_per_10k,extra_dead_work_per_10k,deadline_s,quantile"

    var csvLine: String {
        let number = TuneReport.number
        return CSV.line([
            environment, against.rawValue, other.policy.label, number(defaultCell.userSuccess),
            number(other.userSuccess), number(sendsLostPer10k), number(defaultCell.okLatency),
            number(other.okLatency), number(extraP99), number(defaultCell.amplification),
            number(other.amplification), number(extraServerLoadPercent), number(Self.deadWorkPer10k(defaultCell)),
            number(Self.deadWorkPer10k(other)), number(extraDeadWorkPer10k),
            defaultCell.objective.deadline.map { number($0.seconds) } ?? "", number(defaultCell.objective.quantile),
        ])
    }
}

/// Recovered or metastable, per policy, over the environments placed in the map (offered load ×
/// length of the capacity drop): `metastability.csv` and the report's heat map.
struct MetastabilityMap: Sendable {
    struct Point: Sendable, Hashable, Comparable {
        var load: Double
        var drop: Double
        /// The environment's client instances (nil: the base's; a sweep at one scale).
        var clients: Int?

        init(load: Double, drop: Double, clients: Int? = nil) {
            self.load = load
            self.drop = drop
            self.clients = clients
        }

        /// The place of an environment of the map.
        init(_ environment: TuneEnvironment, at map: TuneEnvironment.MapPoint) {
            self.init(load: map.load, drop: map.drop.seconds, clients: environment.instances)
        }

        static func < (lhs: Point, rhs: Point) -> Bool {
            (lhs.clients ?? 0, lhs.load, lhs.drop) < (rhs.clients ?? 0, rhs.load, rhs.drop)
        }

        /// `0.85/30s`, with `×16` when the map has several scales.
        func label(scaled: Bool) -> String {
            String(format: "%.2f/%gs", load, drop) + (scaled ? "×\(clients ?? 1)" : "")
        }
    }

    var points: [Point]
    var policies: [PolicyPoint]
    /// The cell of each (policy, point).
    var cells: [PolicyPoint: [Point: TuneCell]]

    init?(_ cells: [TuneCell]) {
        var byPolicy: [PolicyPoint: [Point: TuneCell]] = [:]
        var points: Set<Point> = []
        for cell in cells where !cell.runs.isEmpty {
            guard let map = cell.environment.map else { continue }
            let point = Point(cell.environment, at: map)
            points.insert(point)
            byPolicy[cell.policy, default: [:]][point] = cell
        }
        guard !points.isEmpty else { return nil }
        self.points = points.sorted()
        policies = byPolicy.keys.sorted()
        self.cells = byPolicy
    }

    var loads: [Double] { Array(Set(points.map(\.load))).sorted() }
    var drops: [Double] { Array(Set(points.map(\.drop))).sorted() }
    /// The map's scales, ascending (one nil: a sweep at one scale).
    var scales: [Int?] { Array(Set(points.map(\.clients))).sorted { ($0 ?? 0) < ($1 ?? 0) } }
    var scaled: Bool { scales.count > 1 }

    /// The shortest drop at each load (and scale) that leaves `policy` metastable (nil: it
    /// recovers from all).
    func boundary(_ policy: PolicyPoint) -> [(load: Double, clients: Int?, drop: Double?)] {
        scales.flatMap { clients in
            loads.compactMap { load in
                let here = points.filter { $0.load == load && $0.clients == clients }
                guard !here.isEmpty else { return nil }
                let metastable = here.filter { cells[policy]?[$0]?.metastable == true }
                return (load, clients, metastable.map(\.drop).min())
            }
        }
    }

    static let header = ResultFile.MetastabilityColumn.header

    var csv: String {
        var text = Self.header + "\n"
        for policy in policies {
            for point in points {
                guard let cell = cells[policy]?[point] else { continue }
                text +=
                    CSV.line([
                        policy.label, policy.budget.text, TuneReport.number(point.load), TuneReport.number(point.drop),
                        cell.environment.name, cell.metastable.map { $0 ? "1" : "0" } ?? "",
                        TuneReport.number(cell.recovery), TuneReport.number(cell.successRate),
                        TuneReport.number(cell.amplification), TuneReport.number(Regret.deadWorkPer10k(cell)),
                        cell.verdict?.rawValue ?? "", TuneReport.number(cell.goodputBeforeShare),
                        point.clients.map(String.init) ?? "",
                    ]) + "\n"
            }
        }
        return text
    }

    /// The map as text: one row per policy, `R` recovered, `M` metastable, `O` overloaded before
    /// the drop, `-` not measured.
    var text: [String] {
        let columns = points.map { $0.label(scaled: scaled) }
        let width = max(28, (policies.map(\.label.count).max() ?? 0) + 2)
        let column = scaled ? 16 : 11
        let pad = TuneReport.pad
        let title = scaled ? "metastability map (load/drop×clients)" : "metastability map (load/drop)"
        var lines = [pad(title, width) + columns.map { pad($0, column) }.joined()]
        for policy in policies {
            let marks = points.map { cells[policy]?[$0]?.verdict?.mark ?? "-" }
            lines.append(pad(policy.label, width) + marks.map { pad($0, column) }.joined())
        }
        return lines
    }
}
