/// A JSON value: what template params, error details and extra response keys are made of.
///
/// Write it with ordinary literals (`"a"`, `2`, `0.5`, `true`, `nil`, arrays, dictionaries) or with
/// the cases for values held in variables (`.string(email)`). Integers stay integers on the wire.
public enum FrontmailValue: Sendable, Hashable {
    case string(String)
    case integer(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([FrontmailValue])
    case object([String: FrontmailValue])
}

extension FrontmailValue {
    /// The string, when this value is `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this value is `.integer` (or a `.double` with an exact integer value).
    public var intValue: Int? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return Int(exactly: value)
        default: return nil
        }
    }

    /// The number as a `Double`, when this value is `.integer` or `.double`.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }

    /// The boolean, when this value is `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this value is `.array`.
    public var arrayValue: [FrontmailValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The members, when this value is `.object`.
    public var objectValue: [String: FrontmailValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this value is `.null`.
    public var isNull: Bool { self == .null }

    /// The member named `key`, when this value is an object that has it.
    public subscript(key: String) -> FrontmailValue? {
        objectValue?[key]
    }
}

extension FrontmailValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension FrontmailValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .integer(value) }
}

extension FrontmailValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension FrontmailValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension FrontmailValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension FrontmailValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: FrontmailValue...) { self = .array(elements) }
}

extension FrontmailValue: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, FrontmailValue)...) {
        var object = [String: FrontmailValue](minimumCapacity: elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

extension FrontmailValue: CustomStringConvertible {
    /// The value as compact JSON with sorted keys (`"nan"` stands in for non-finite numbers).
    public var description: String {
        var writer = JSONWriter()
        writer.writeLenient(self)
        return writer.string
    }
}

extension FrontmailValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([FrontmailValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: FrontmailValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "Not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
