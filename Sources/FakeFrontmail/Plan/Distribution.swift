import Foundation

/// How long something takes: fixed, uniform, exponential or log-normal, optionally capped.
///
/// Written as a duration (`"200ms"`, fixed) or an object:
/// `{"type": "uniform", "min": "100ms", "max": "300ms"}`, `{"type": "exponential", "mean": "50ms"}`,
/// `{"type": "logNormal", "median": "40ms", "sigma": 0.6, "cap": "2s"}`.
public enum Distribution: Sendable, Hashable {
    case fixed(TimeSpan)
    case uniform(min: TimeSpan, max: TimeSpan)
    case exponential(mean: TimeSpan, cap: TimeSpan?)
    case logNormal(median: TimeSpan, sigma: Double, cap: TimeSpan?)

    public func sample(_ random: inout SeededRandom) -> TimeInterval {
        switch self {
        case .fixed(let value):
            return max(0, value.seconds)
        case .uniform(let low, let high):
            return low.seconds + (high.seconds - low.seconds) * random.unit()
        case .exponential(let mean, let cap):
            let value = -mean.seconds * log(1 - random.unit())
            return min(value, cap?.seconds ?? .infinity)
        case .logNormal(let median, let sigma, let cap):
            // Box-Muller for one standard normal draw.
            let u1 = max(random.unit(), .leastNonzeroMagnitude)
            let u2 = random.unit()
            let normal = (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
            return min(median.seconds * exp(sigma * normal), cap?.seconds ?? .infinity)
        }
    }

    /// The exact mean of what `sample` draws, in seconds (a cap included): fixed `max(0, v)`,
    /// uniform `(a + b) / 2`, exponential capped at c `m (1 − e^(−c/m))`, log-normal capped at c
    /// `E[X; X < c] + c P(X ≥ c)` with `E[X; X < c] = median e^(σ²/2) Φ((ln(c/median) − σ²)/σ)`.
    public var mean: Double {
        switch self {
        case .fixed(let value):
            return max(0, value.seconds)
        case .uniform(let low, let high):
            return (low.seconds + high.seconds) / 2
        case .exponential(let mean, let cap):
            let m = mean.seconds
            guard let cap else { return m }
            return m * -expm1(-max(0, cap.seconds) / m)
        case .logNormal(let median, let sigma, let cap):
            let m = median.seconds
            guard let cap else { return m * exp(sigma * sigma / 2) }
            let c = max(0, cap.seconds)
            guard sigma > 0, c > 0 else { return min(m, c) }
            func phi(_ z: Double) -> Double { erfc(-z / 2.0.squareRoot()) / 2 }
            let z = log(c / m) / sigma
            return m * exp(sigma * sigma / 2) * phi(z - sigma) + c * phi(-z)
        }
    }

    /// The same distribution with every duration multiplied by `factor`.
    public func scaled(by factor: Double) -> Distribution {
        switch self {
        case .fixed(let value): return .fixed(value.scaled(by: factor))
        case .uniform(let low, let high): return .uniform(min: low.scaled(by: factor), max: high.scaled(by: factor))
        case .exponential(let mean, let cap):
            return .exponential(mean: mean.scaled(by: factor), cap: cap?.scaled(by: factor))
        case .logNormal(let median, let sigma, let cap):
            return .logNormal(median: median.scaled(by: factor), sigma: sigma, cap: cap?.scaled(by: factor))
        }
    }

    func validate(path: String) throws(InputError) {
        switch self {
        case .fixed(let value):
            try InputError.check(value, path)
        case .uniform(let low, let high):
            try InputError.check(low, path + ".min")
            try InputError.check(high, path + ".max")
            if high < low { throw InputError(path: path + ".max", reason: "must be at least min (\(low))") }
        case .exponential(let mean, let cap):
            try InputError.check(mean, path + ".mean", positive: true)
            if let cap { try InputError.check(cap, path + ".cap") }
        case .logNormal(let median, let sigma, let cap):
            try InputError.check(median, path + ".median", positive: true)
            try InputError.check(sigma, in: 0...10, path + ".sigma")
            if let cap { try InputError.check(cap, path + ".cap") }
        }
    }
}

extension Distribution: Codable {
    private enum Kind: String, Codable { case fixed, uniform, exponential, logNormal }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), !single.decodeNil() {
            if let number = try? single.decode(Double.self) {
                self = .fixed(TimeSpan(seconds: number))
                return
            }
            if (try? single.decode(String.self)) != nil {
                self = .fixed(try single.decode(TimeSpan.self))
                return
            }
        }
        let container = try decoder.container(keyedBy: AnyKey.self)
        let kind = try container.decode(Kind.self, forKey: AnyKey("type"))
        switch kind {
        case .fixed:
            try decoder.rejectUnknownKeys(["type", "value"])
            self = .fixed(try container.decode(TimeSpan.self, forKey: AnyKey("value")))
        case .uniform:
            try decoder.rejectUnknownKeys(["type", "min", "max"])
            self = .uniform(
                min: try container.decode(TimeSpan.self, forKey: AnyKey("min")),
                max: try container.decode(TimeSpan.self, forKey: AnyKey("max")))
        case .exponential:
            try decoder.rejectUnknownKeys(["type", "mean", "cap"])
            self = .exponential(
                mean: try container.decode(TimeSpan.self, forKey: AnyKey("mean")),
                cap: try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("cap")))
        case .logNormal:
            try decoder.rejectUnknownKeys(["type", "median", "sigma", "cap"])
            self = .logNormal(
                median: try container.decode(TimeSpan.self, forKey: AnyKey("median")),
                sigma: try container.decode(Double.self, forKey: AnyKey("sigma")),
                cap: try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("cap")))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        if case .fixed(let value) = self {
            var single = encoder.singleValueContainer()
            try single.encode(value)
            return
        }
        var container = encoder.container(keyedBy: AnyKey.self)
        switch self {
        case .fixed: break
        case .uniform(let low, let high):
            try container.encode(Kind.uniform, forKey: AnyKey("type"))
            try container.encode(low, forKey: AnyKey("min"))
            try container.encode(high, forKey: AnyKey("max"))
        case .exponential(let mean, let cap):
            try container.encode(Kind.exponential, forKey: AnyKey("type"))
            try container.encode(mean, forKey: AnyKey("mean"))
            try container.encodeIfPresent(cap, forKey: AnyKey("cap"))
        case .logNormal(let median, let sigma, let cap):
            try container.encode(Kind.logNormal, forKey: AnyKey("type"))
            try container.encode(median, forKey: AnyKey("median"))
            try container.encode(sigma, forKey: AnyKey("sigma"))
            try container.encodeIfPresent(cap, forKey: AnyKey("cap"))
        }
    }
}
