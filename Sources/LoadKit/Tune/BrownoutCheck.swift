import FakeFrontmail
import Foundation
import Frontmail

/// A figure the sweep measured beside the one a closed form predicts, and how many standard errors
/// apart they are (z; a model with no variance agrees only with itself).
struct ModelAgreement: Sendable {
    var measured: Double
    var analytic: Double
    var z: Double

    init(measured: Double, analytic: Double, varianceOfMean: Double) {
        self.measured = measured
        self.analytic = analytic
        let difference = measured - analytic
        z = varianceOfMean > 0 ? difference / varianceOfMean.squareRoot() : (abs(difference) < 1e-12 ? 0 : .infinity)
    }
}

/// The sweep's check of itself: an independent brownout with failure probability p and r retries
/// succeeds with 1 − p^(r+1) and takes (1 − p^(r+1)) / (1 − p) attempts per send.
struct BrownoutCheck: Sendable {
    var environment: String
    var policy: PolicyPoint
    var probability: Double
    var sends: Int
    var success: ModelAgreement
    /// Attempts per send.
    var attempts: ModelAgreement

    /// Agreement within sampling error: both figures within this many standard errors.
    static let zLimit = 4.0

    var agrees: Bool { abs(success.z) <= Self.zLimit && abs(attempts.z) <= Self.zLimit }

    init?(_ cell: TuneCell) {
        guard let p = cell.environment.brownoutProbability, cell.started > 0 else { return nil }
        if let budget = cell.policy.budget.budget,
            !Self.budgetNeverBinds(budget, p: p, retries: cell.policy.maxRetries, sends: cell.started)
        {
            return nil
        }
        environment = cell.environment.name
        policy = cell.policy
        probability = p
        sends = cell.started
        let r = cell.policy.maxRetries
        let model = Self.model(p: p, retries: r)
        let n = Double(cell.started)
        success = ModelAgreement(
            measured: Double(cell.ok) / n, analytic: model.success,
            varianceOfMean: model.success * (1 - model.success) / n)
        attempts = ModelAgreement(
            measured: cell.amplification, analytic: model.meanAttempts, varianceOfMean: model.attemptsVariance / n)
    }

    /// Whether a retry budget leaves the model's figures alone: the bucket's level is a random walk
    /// with one step per send (+reward on a first-try success, −cost per retry, +refund on a later
    /// success); with a positive drift μ and step variance σ², the chance that it ever falls by its
    /// whole capacity C is about exp(−2μC/σ²) per excursion. The model holds when that, times the
    /// sends, is below 10⁻⁶. Otherwise the budget refuses retries and the cell is not checked.
    static func budgetNeverBinds(_ budget: RetryBudget, p: Double, retries: Int, sends: Int) -> Bool {
        var mean = 0.0
        var square = 0.0
        for attempts in 1...(retries + 1) {
            let succeeded = pow(p, Double(attempts - 1)) * (1 - p)
            let step: Double
            if attempts == 1 {
                step = Double(budget.successReward)
            } else {
                step =
                    -Double(budget.retryCost * (attempts - 1))
                    + (budget.refundsRetriedSuccess ? Double(budget.retryCost) : 0)
            }
            mean += step * succeeded
            square += step * step * succeeded
        }
        let failedAll = pow(p, Double(retries + 1))
        let lost = -Double(budget.retryCost * retries)
        mean += lost * failedAll
        square += lost * lost * failedAll
        let variance = square - mean * mean
        guard mean > 0 else { return false }
        guard variance > 0 else { return true }
        return Double(sends) * exp(-2 * mean * Double(budget.capacity) / variance) < 1e-6
    }

    /// Success probability, and mean and variance of the attempts per send (min(G, r + 1) for a
    /// geometric G with success 1 − p).
    static func model(p: Double, retries: Int) -> (success: Double, meanAttempts: Double, attemptsVariance: Double) {
        var mean = 0.0
        var square = 0.0
        for attempts in 1...(retries + 1) {
            let probability =
                attempts <= retries ? pow(p, Double(attempts - 1)) * (1 - p) : pow(p, Double(retries))
            mean += Double(attempts) * probability
            square += Double(attempts * attempts) * probability
        }
        return (1 - pow(p, Double(retries + 1)), mean, max(0, square - mean * mean))
    }
}
