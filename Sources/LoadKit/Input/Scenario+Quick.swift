import FakeFrontmail
import Foundation
import Frontmail

extension QuickSettings {
    /// Fields that do not apply to the scenario's experiment are errors, not silently ignored.
    func validate(for experiment: Experiment) throws(InputError) {
        let loadFields = [
            ("sends", sends != nil), ("duration", duration != nil), ("concurrency", concurrency != nil),
            ("rate", rate != nil),
        ]
        let cancellationFields = [
            ("samples", samples != nil), ("backgroundLoad", backgroundLoad != nil), ("soak", soak != nil),
        ]
        let (wrong, kind) =
            experiment == .load ? (cancellationFields, "a cancellation experiment") : (loadFields, "a load")
        if let field = wrong.first(where: \.1) {
            throw InputError(path: "quick.\(field.0)", reason: "applies to \(kind) only")
        }
    }
}

extension QuickSettings: Decodable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.strictContainer([
            "sends", "duration", "concurrency", "rate", "samples", "backgroundLoad", "soak", "assertions", "wallBudget",
        ])
        sends = try container.integer(Int.self, AnyKey("sends"))
        duration = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("duration"))
        concurrency = try container.integer(Int.self, AnyKey("concurrency"))
        rate = try container.decodeIfPresent(Double.self, forKey: AnyKey("rate"))
        samples = try container.integer(Int.self, AnyKey("samples"))
        backgroundLoad = try container.integer(Int.self, AnyKey("backgroundLoad"))
        soak = try container.integer(Int.self, AnyKey("soak"))
        wallBudget = try container.decodeIfPresent(TimeSpan.self, forKey: AnyKey("wallBudget"))
        assertions = try container.decodeIfPresent([Assertion].self, forKey: AnyKey("assertions"))
    }
}

extension Scenario {
    /// The scenario as `--quick` runs it: the `quick` overrides, or a tenth of the load.
    public func quickened() -> Scenario {
        var copy = self
        if let quick {
            if let sends = quick.sends { copy.load.sends = sends }
            if let duration = quick.duration { copy.load.duration = duration }
            if let concurrency = quick.concurrency { copy.load.concurrency = concurrency }
            if let rate = quick.rate { copy.load.rate = rate }
            if let samples = quick.samples { copy.cancellation?.samples = samples }
            if let backgroundLoad = quick.backgroundLoad { copy.cancellation?.backgroundLoad = backgroundLoad }
            if let soak = quick.soak { copy.cancellation?.soak = soak }
            if let wallBudget = quick.wallBudget { copy.wallBudget = wallBudget }
            if let assertions = quick.assertions { copy.assertions = assertions }
        } else {
            copy.cancellation?.samples = max(10, (cancellation?.samples ?? 0) / 10)
            copy.cancellation?.soak = (cancellation?.soak ?? 0) / 10
            copy.load.sends = load.sends.map { max(20, $0 / 10) }
            // A metastability run's length is the experiment (trigger, restore, window): kept.
            guard metastability == nil else { return copy }
            copy.load.duration = load.duration.map { TimeSpan(seconds: max(0.5, $0.seconds / 10)) }
            copy.load.stages = load.stages.map {
                LoadSettings.Stage(rate: $0.rate, duration: $0.duration.scaled(by: 0.1))
            }
        }
        return copy
    }
}
