import FakeFrontmail
import Foundation
import Simulator

/// What a load left behind, before anything judges it: the client's history and (when the server
/// ran in this process) the server's ledger and capacity series, on one clock.
struct LoadObservation {
    var history: History
    var ledger: AttemptLedger?
    var capacity: CapacitySeries?
    /// The wall-clock time of the clock's zero.
    var wallStart: Date
    /// The clock when the load ended, and how long it ran.
    var end: Double
    var elapsed: Double
    var interrupted: Bool
    /// What the simulation cost (nil on the real clock).
    var simulation: Simulation.Figures? = nil
    /// The `fidelity` payload's comparison of every body the server received (nil: another payload,
    /// or a server in another process).
    var payload: PayloadFidelity.Figures? = nil
}

/// What a load's control arm measured (`ControlArm`): plain URLSession beside the SDK's load.
struct ControlFigures: Sendable {
    /// Requests started (like `send.sends`: the dropped arrivals are not among them).
    var sends = 0
    var ok = 0
    var failed = 0
    var dropped = 0
    var elapsed = 0.0
    /// From each request's intended start to its answer, in nanoseconds.
    var latency = Histogram()

    /// Dropped arrivals over all arrivals.
    var dropRate: Double { sends + dropped == 0 ? .nan : Double(dropped) / Double(sends + dropped) }
    var throughput: Double { elapsed > 0 ? Double(ok) / elapsed : .nan }
}
