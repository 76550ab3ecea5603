import FakeFrontmail
import Foundation
import Frontmail

/// A client's retry budget as files name it (`client.budget`, a tune grid's `budget`): `"none"`,
/// a percentage (`"20%"`: `RetryBudget.fraction(0.2)`, a reserve of 100 retries) or `"quota"`
/// (`RetryBudget.standard`, the AWS SDKs' retry quota); retries after attempts that never reached
/// the server are free (gRFC A6's reading, the SDK's), and either with `:unsent-charged`
/// (`"quota:unsent-charged"`) charges them too (`RetryBudget.chargesUnsentAttempts`, AWS's).
public enum BudgetSetting: Sendable, Hashable, Comparable {
    case none
    /// Retries as a percentage of first-try successes, in tenths of a percent (200: 20 %).
    case percent(tenths: Int)
    case quota
    /// A percentage or the quota whose retries after unsent attempts cost tokens too.
    indirect case unsentCharged(BudgetSetting)

    /// The spelling of the charged reading after a budget.
    static let unsentChargedText = ":unsent-charged"

    /// The largest percentage a file may give.
    static let maxTenths = 10_000

    /// The SDK's budget.
    public var budget: RetryBudget? {
        switch self {
        case .none: nil
        case .percent(let tenths): .fraction(Double(tenths) / 1_000)
        case .quota: .standard
        case .unsentCharged(let free):
            free.budget.map { budget in
                var charged = budget
                charged.chargesUnsentAttempts = true
                return charged
            }
        }
    }

    /// As a file writes it: `none`, `20%`, `12.5%`, `quota`.
    public var text: String {
        switch self {
        case .none: "none"
        case .percent(let tenths): Self.percentText(tenths) + "%"
        case .quota: "quota"
        case .unsentCharged(let free): free.text + Self.unsentChargedText
        }
    }

    /// What a policy's label gets: nothing without a budget, `-budget20pct`, `-budget12_5pct`,
    /// `-quota`, `-quota-unsentcharged` (letters, digits, `-` and `_`, so it can name a scenario).
    var labelSuffix: String {
        switch self {
        case .none: ""
        case .percent(let tenths): "-budget" + Self.percentText(tenths).replacingOccurrences(of: ".", with: "_") + "pct"
        case .quota: "-quota"
        case .unsentCharged(let free): free.labelSuffix + "-unsentcharged"
        }
    }

    private static func percentText(_ tenths: Int) -> String {
        tenths % 10 == 0 ? String(tenths / 10) : "\(tenths / 10).\(tenths % 10)"
    }

    /// The SDK's reading first, then the charged one.
    private var order: (Int, Int) {
        switch self {
        case .none: (-1, 0)
        case .percent(let tenths): (tenths, 0)
        case .quota: (Int.max, 0)
        case .unsentCharged(let free): (free.order.0, 1)
        }
    }

    public static func < (lhs: BudgetSetting, rhs: BudgetSetting) -> Bool { lhs.order < rhs.order }

    /// Parses `none`, `quota` or a percentage above 0 and at most 1,000 with at most one decimal;
    /// the quota or a percentage may end in `:unsent-charged`.
    static func parse(_ text: String) -> BudgetSetting? {
        if text.hasSuffix(unsentChargedText) {
            // Only a budget has a reading to change: not none, not twice.
            switch parse(String(text.dropLast(unsentChargedText.count))) {
            case .quota: return .unsentCharged(.quota)
            case .percent(let tenths): return .unsentCharged(.percent(tenths: tenths))
            default: return nil
            }
        }
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
                    "'\(text.prefix(40))' is not a budget: none, quota (500 tokens, 5 per retry, 10 after a timeout, 1 per first-try success) or a percentage of first-try successes above 0 % and at most 1000 % with at most one decimal (20%), the quota or a percentage with :unsent-charged after it (quota:unsent-charged: retries after attempts that never reached the server cost tokens too)"
            )
        }
        self = value
    }
}
