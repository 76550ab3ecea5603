/// The catalog's entries of the cancellation experiment, of the run itself and of a sweep.
extension MetricCatalog {
    /// A cell is `cancellation.<phase>.<idle|load>.<statistic>`; the raw URLSession baseline is
    /// context, not the SDK's result.
    static let cancellation: [Metric] = {
        let cell = CancellationCell.sdk
        let raw = CancellationCell.rawURLSession
        let statistics = ["mean", "p50", "p90", "p99", "p99.9", "max"]
        var list = histogram(.cancellation(cell), "ms", .cancellation, names: Set(statistics))
        for statistic in CancellationStatistic.allCases {
            list.append(
                value(
                    .cancellation(cell, statistic), statistic.unit, statistic.policy, .cancellation,
                    statistic: statistic.rawValue))
        }
        list += histogram(.cancellation(raw), "ms", .cancellation, names: Set(statistics), policy: .info)
        // The baseline's cells report what the SDK's do but the reference and the excess, measured beside the SDK's.
        for statistic in CancellationStatistic.allCases where !statistic.isSDKCellOnly {
            list.append(
                value(
                    .cancellation(raw, statistic), statistic.unit, .info, .cancellation, statistic: statistic.rawValue))
        }
        list.append(value(.cancellationLiveRequestsAfter, "requests", .mustNotGrow, .cancellation))
        for inBackoff in [false, true] {
            for statistic in SoakStatistic.allCases {
                let key = MetricKey.cancellationSoak(statistic, inBackoff: inBackoff)
                list.append(
                    value(
                        key, statistic.unit, .lower, .cancellation,
                        statistic: key.text.components(separatedBy: ".").last!))
            }
        }
        list.append(row(.cancellationSoakCancellations, "sends", .info, .cancellation))
        return list
    }()

    /// The rows every scenario ends with, and a sharded run's.
    static let run: [Metric] = [
        row(.runElapsed, "s", .info, .run), row(.runTimeScale, "x", .info, .run),
        row(.runWallElapsed, "s", .info, .run), row(.runWallSpeed, "x", .info, .run),
        row(.runWallBudget, "s", .info, .run), row(.runOverBudget, "runs", .info, .run),
        row(.runInterrupted, "runs", .mustNotGrow, .run), row(.runShards, "processes", .info, .run),
        row(.runPeakMemory, "MB", .info, .run), row(.runPeakMemoryPerMillionSends, "MB", .info, .run),
        // A scenario whose process a signal ended: a crash is a regression.
        row(.runCrashSignal, "signal", .mustNotGrow, .run),
    ]

    /// A sweep's rows (`tune`): each cell's figures (correctness strict, the rest judged by which way
    /// is better), the analytic checks (every disagreement a regression), the recommendation and
    /// what the default policy costs against it.
    static let tune: [Metric] = {
        var list: [Metric] = CellStatistic.allCases.map { row(.cell($0), $0.unit, $0.policy, .tune) }
        list += [
            row(.sanityBrownoutChecks, "cells", .info, .tune),
            row(.sanityBrownoutDisagreements, "cells", .mustNotGrow, .tune),
            row(.sanityOutageChecks, "cells", .info, .tune),
            row(.sanityOutageDisagreements, "cells", .mustNotGrow, .tune),
            row(.sanityDuplicates, "sends", .mustNotGrow, .tune), row(.sanityLost, "sends", .mustNotGrow, .tune),
            row(.ruleSingleWinner, "bool", .higher, .tune), row(.ruleTied, "policies", .info, .tune),
            row(.ruleBootstrapShare, "ratio", .higher, .tune),
            row(.ruleLeaveOneOutChanges, "seeds", .lower, .tune),
            row(.tuneSendsPerWallSecond, "sends/s", .absoluteHigher, .tune),
        ]
        for baseline in RegretBaseline.allCases {
            list += RegretStatistic.allCases.map { row(.regret($0, against: baseline.rawValue), $0.unit, .info, .tune) }
        }
        return list
    }()
}
