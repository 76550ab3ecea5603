import FakeFrontmail
import Foundation
import Frontmail

/// A client's retry budget as files name it (`client.budget`, a tune grid's `budget`): `"none"`,
/// a percentage (`"20%"`: `RetryBudget.fraction(0.2)`, a reserve of 100 retries) or `"quota"`
/// (`RetryBudget.standard`, the AWS SDKs' retry quota).
public enum BudgetSetting: Sendable, Hashable, Comparable {
    case none
    /// Retries as a percentage of first-try successes, in tenths of a percent (200: 20 %).
    case percent(tenths: Int)
    case quota

    /// The largest percentage a file may give.
    static let maxTenths = 10_000

    /// The SDK's budget.
    public var budget: RetryBudget? {
        switch self {
        case .none: nil
        case .percent(let tenths): .fraction(Double(tenths) / 1_000)
        case .quota: .standard
        }
    }

    /// As a file writes it: `none`, `20%`, `12.5%`, `quota`.
    public var text: String {
        switch self {
        case .none: "none"
        case .percent(let tenths): Self.percentText(tenths) + "%"
        case .quota: "quota"
        }
    }

    /// What a policy's label gets: nothing without a budget, `-budget20pct`, `-budget12_5pct`,
    /// `-quota` (letters, digits, `-` and `_`, so it can name a scenario).
    var labelSuffix: String {
        switch self {
        case .none: ""
        case .percent(let tenths): "-budget" + Self.percentText(tenths).replacingOccurrences(of: ".", with: "_") + "pct"
        case .quota: "-quota"
        }
    }

    private static func percentText(_ tenths: Int) -> String {
        tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }

    private var order: Int {
        switch self {
        case .none: -1
        case .percent(let tenths): tenths
        case .quota: Int.max
        }
    }

    public static func < (lhs: BudgetSetting, rhs: BudgetSetting) -> Bool { lhs.order < rhs.order }

    /// Parses `none`, `quota` or a percentage above 0 and at most 1,000 with at most one decimal.
    static func parse(_ text: String) -> BudgetSetting? {
        switch text {
        case "none": return BudgetSetting.none
        case "quota": return .quota
        default:
            guard text.hasSuffix("%"), text.count <= 12 else { return nil }
            let number = text.dropLast()
            guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
                number.filter({ $0 == "." }).count <= 1, number.first != ".", number.last != "."
            else { return nil }
            let parts = number.split(separator: ".")
            guard let whole = Int(parts[0]), parts.count == 1 || parts[1].count == 1,
                let tenth = parts.count == 2 ? Int(parts[1]) : 0
            else { return nil }
            let tenths = whole * 10 + tenth
            guard (1...maxTenths).contains(tenths) else { return nil }
            return .percent(tenths: tenths)
        }
    }
}

extension BudgetSetting: Decodable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self.parse(text) else {
            throw InputError(
                path: InputError.path(decoder.codingPath),
                reason:
                    "'\(text.prefix(40))' is not a budget: none, quota (500 tokens, 5 per retry, 10 after a timeout, 1 per first-try success) or a percentage of first-try successes above 0 % and at most 1000 % with at most one decimal (20%)"
            )
        }
        self = value
    }
}
