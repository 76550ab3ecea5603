// MARK: Units and policies of the statistics' families

extension CancellationStatistic {
    var unit: String {
        switch self {
        case .abortedRatio: return "ratio"
        case .finishedBeforeCancel, .backgroundLoad: return "sends"
        case .attemptsAfterCancel: return "attempts"
        case .serverRetriesAfterCancel, .arrivalsAfterCancel: return "requests"
        case .serverCloseP50, .referenceP50, .referenceP99, .referenceMax, .excessP90, .excessMax: return "ms"
        case .residentGrowth: return "KiB"
        case .wallSeconds, .clientCPUSeconds, .serverCPUSeconds: return "s"
        case .connectionsOpened, .connectionsActive: return "connections"
        }
    }

    var policy: MetricPolicy {
        switch self {
        case .abortedRatio: return .mustNotShrink
        case .attemptsAfterCancel, .serverRetriesAfterCancel: return .mustNotGrow
        case .serverCloseP50, .residentGrowth: return .lower
        default: return .info
        }
    }

    /// Measured beside the SDK's samples only (the reference task's latency and the SDK's excess
    /// over it): not in the baseline's cells.
    var isSDKCellOnly: Bool { [.referenceP50, .referenceP99, .referenceMax, .excessP90, .excessMax].contains(self) }
}

/// The cells of the cancellation experiment: the SDK's (`<phase>.<idle|load>`) and the raw
/// URLSession baseline's.
enum CancellationCell {
    static let sdk = "<phase>.<idle|load>"
    static let rawURLSession = "raw_urlsession.inFlight.<idle|load>"
}

extension SoakStatistic {
    var unit: String { self == .growthPerThousand ? "KiB/1k" : "KiB" }
}

extension CellStatistic {
    var unit: String {
        switch self {
        case .successRate, .successRateLow, .successRateHigh, .peakLoad: return "ratio"
        case .latencyP50, .latencyP99, .latencyP999: return "policy_ms"
        case .amplification: return "requests/send"
        case .duplicates, .lost, .sends: return "sends"
        case .deadWork: return "requests"
        case .metastable: return "runs"
        case .recovery: return "s"
        }
    }

    var policy: MetricPolicy {
        switch self {
        case .duplicates, .lost: return .mustNotGrow
        case .successRate: return .higher
        case .latencyP50, .latencyP99, .latencyP999, .amplification, .peakLoad, .deadWork, .recovery, .metastable:
            return .lower
        case .successRateLow, .successRateHigh, .sends: return .info
        }
    }
}

/// The policies a sweep's default is measured against (`regret_vs_<baseline>`).
package enum RegretBaseline: String, CaseIterable, Sendable {
    /// The environment's best cell (highest success; within the margin, the lowest server load,
    /// then the lowest p99).
    case best
    /// The sweep's recommendation.
    case recommended
}

extension RegretStatistic {
    var unit: String {
        switch self {
        case .sendsLostPer10k: return "sends"
        case .extraP99: return "policy_ms"
        case .extraServerLoad: return "%"
        case .extraDeadWorkPer10k: return "requests"
        }
    }
}
