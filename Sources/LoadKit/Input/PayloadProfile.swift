import FakeFrontmail
import Foundation
import Frontmail

/// What each send carries. Every profile puts the send's number in `template_params.bench_send_id`,
/// which is how the server's ledger is joined with the client's history.
public enum PayloadProfile: Sendable, Hashable {
    /// A contact form, about 400 bytes.
    case contactForm
    /// An order with 20 line items.
    case order
    /// A nested document of about 64 KB.
    case largeNested
    /// An `Encodable` struct with dates, sent through the SDK's `Encodable` path.
    case encodableWithDates
    /// The contact form plus one inline attachment of `bytes` (base64 on the wire).
    case attachment(bytes: Int)
    /// The same contact form for every send, byte for byte: the send's number travels outside the
    /// body, in the `X-Bench-Send-Id` header the harness adds under the SDK (two identical messages
    /// from a user must still be two emails).
    case identical
    /// Every kind of value and option the guide names, different for every send, each body
    /// compared with what the driver intended (`FidelityPayload`; `payload.mismatches`).
    case fidelity

    public var name: String {
        switch self {
        case .contactForm: return "contactForm"
        case .order: return "order"
        case .largeNested: return "largeNested"
        case .encodableWithDates: return "encodableWithDates"
        case .attachment: return "attachment"
        case .identical: return "identical"
        case .fidelity: return "fidelity"
        }
    }
}

extension PayloadProfile: Decodable {
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let name = try? single.decode(String.self) {
            switch name {
            case "contactForm": self = .contactForm
            case "order": self = .order
            case "largeNested": self = .largeNested
            case "encodableWithDates": self = .encodableWithDates
            case "attachment": self = .attachment(bytes: 1_000_000)
            case "identical": self = .identical
            case "fidelity": self = .fidelity
            default:
                throw InputError(
                    path: InputError.path(decoder.codingPath),
                    reason:
                        "'\(name)' is not a payload (contactForm, order, largeNested, encodableWithDates, attachment, identical, fidelity)"
                )
            }
            return
        }
        let container = try decoder.strictContainer(["type", "bytes"])
        let type = try container.decode(String.self, forKey: AnyKey("type"))
        guard type == "attachment" else {
            throw InputError(
                path: InputError.path(decoder.codingPath + [AnyKey("type")]), reason: "only attachment takes options")
        }
        let bytes = try container.integer(Int.self, AnyKey("bytes")) ?? 1_000_000
        guard bytes >= 0 && bytes <= 9_000_000 else {
            throw InputError(path: InputError.path(decoder.codingPath + [AnyKey("bytes")]), reason: "must be 0-9000000")
        }
        self = .attachment(bytes: bytes)
    }
}

/// The `Encodable` payload: an order with dates, property names as they are.
public struct BenchOrder: Encodable, Sendable {
    public var benchSendID: Int
    public var orderID: String
    public var placedAt: Date
    public var deliverBy: Date
    public var customer: Customer
    public var items: [Item]
    public var note: String?

    public struct Customer: Encodable, Sendable {
        public var email: String
        public var name: String
    }

    public struct Item: Encodable, Sendable {
        public var sku: String
        public var quantity: Int
        public var price: Double
    }

    enum CodingKeys: String, CodingKey {
        case benchSendID = "bench_send_id"
        case orderID, placedAt, deliverBy, customer, items, note
    }
}

/// Builds each send's params from a template made once.
public struct PayloadFactory: Sendable {
    public let profile: PayloadProfile
    private let base: [String: FrontmailValue]
    private let attachment: Data?

    public enum Params: Sendable {
        case values([String: FrontmailValue])
        case encodable(BenchOrder)
        case fidelity(FidelityRecord)
    }

    public init(_ profile: PayloadProfile) {
        self.profile = profile
        switch profile {
        case .contactForm, .attachment, .encodableWithDates, .identical, .fidelity:
            base = Self.contactForm
        case .order:
            base = Self.order
        case .largeNested:
            base = Self.largeNested
        }
        if case .attachment(let bytes) = profile {
            var generator = SeededRandom(seed: 5)
            attachment = Data((0..<bytes).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        } else {
            attachment = nil
        }
    }

    /// The params of send number `sendID` (`variant` changes the body, for key-conflict scenarios).
    public func params(sendID: Int, variant: Int = 0) -> Params {
        if case .encodableWithDates = profile {
            return .encodable(Self.encodableOrder(sendID: sendID, variant: variant))
        }
        if case .fidelity = profile { return FidelityPayload.send(sendID: sendID).params }
        var params = base
        if profile != .identical { params["bench_send_id"] = .integer(sendID) }
        if variant != 0 { params["variant"] = .integer(variant) }
        return .values(params)
    }

    public var attachments: [Attachment]? {
        attachment.map { [.data($0, filename: "bench.bin", contentType: "application/octet-stream")] }
    }

    public static let contactForm: [String: FrontmailValue] = [
        "email": "jan.novak@example.com",
        "name": "Jan Novák",
        "subject": "Question about my order",
        "message": .string(
            "Hello! I ordered two items last week and would like to know when they ship. "
                + "Could you also confirm the delivery address? Thank you — Jan. \u{1F4E6} Line two\nwith a \"quote\"."),
        "newsletter": true,
        "source": "ios-app",
        "page": 3,
    ]

    public static let order: [String: FrontmailValue] = {
        let items: [FrontmailValue] = (1...20).map { index in
            [
                "sku": .string("SKU-\(1000 + index)"), "name": .string("Item number \(index)"),
                "quantity": .integer(index % 4 + 1),
                "price": .double(Double(index) * 3.25), "tags": ["gift", "express"],
            ]
        }
        return [
            "order_id": "1042", "currency": "EUR", "total": 682.5, "items": .array(items),
            "customer": ["email": "jan@example.com", "name": "Jan", "vip": false],
        ]
    }()

    /// About 64 KB of nested objects and arrays.
    public static let largeNested: [String: FrontmailValue] = {
        var sections: [FrontmailValue] = []
        for section in 0..<52 {
            var rows: [FrontmailValue] = []
            for row in 0..<12 {
                rows.append([
                    "id": .integer(section * 100 + row), "label": .string("Row \(row) of section \(section) – détails"),
                    "value": .double(Double(row) / 7), "flags": [true, false, nil],
                    "note": "lorem ipsum dolor sit amet",
                ])
            }
            sections.append(["title": .string("Section \(section)"), "rows": .array(rows)])
        }
        return ["document": ["version": 3, "sections": .array(sections)]]
    }()

    public static func encodableOrder(sendID: Int, variant: Int) -> BenchOrder {
        BenchOrder(
            benchSendID: sendID, orderID: "ord-\(sendID)", placedAt: Date(timeIntervalSince1970: 1_790_000_000),
            deliverBy: Date(timeIntervalSince1970: 1_790_500_000 + Double(variant)),
            customer: BenchOrder.Customer(email: "jan@example.com", name: "Jan"),
            items: (1...5).map { BenchOrder.Item(sku: "SKU-\($0)", quantity: $0, price: Double($0) * 9.99) },
            note: variant == 0 ? nil : "variant \(variant)")
    }
}
