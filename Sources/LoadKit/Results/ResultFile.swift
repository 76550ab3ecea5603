/// Every file a results folder holds (docs/csv.md): the one place their names are written, so
/// that what a probe writes and what the report reads back are tied by the compiler.
enum ResultFile: String, CaseIterable, Sendable {
    /// A scenario's summary rows (also a tune's).
    case summary = "summary.csv"
    case assertions = "assertions.csv"
    case history = "history.csv"
    case ledger = "ledger.csv"
    case timeseries = "timeseries.csv"
    case latencyHistogram = "latency_histogram.csv"
    case latencyHgrm = "latency.hgrm"
    case jitterSamples = "jitter_samples.csv"
    case jitterHistogram = "jitter_histogram.csv"
    /// What the report needs of the scenario: its description and fault windows.
    case scenarioInfo = "scenario.json"
    /// The crash report of a scenario whose process a signal ended (`CRASH`).
    case crash = "crash.txt"
    /// A tune's cells, one row per policy and environment.
    case tuneCells = "cells.csv"
    /// A tune's analytic check.
    case tuneSanity = "sanity.csv"
    /// A tune's outage check (cells of an outage environment against the closed form).
    case tuneOutage = "sanity-outage.csv"
    /// A tune's regret table: the default against each environment's best and the recommendation.
    case tuneRegret = "regret.csv"
    /// A tune's metastability map (environments placed by load and drop).
    case tuneMetastability = "metastability.csv"
    /// A tune's decision under each compared deadline.
    case tuneDeadlines = "deadlines.csv"
    /// The storms sweeps' verdicts on the policies a joint decision judged.
    case tuneStorms = "storms.csv"

    var name: String { rawValue }
}
