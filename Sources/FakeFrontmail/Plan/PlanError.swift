import Foundation

/// A plan, config or scenario value that is wrong: names the field and the reason.
public struct PlanError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Dotted path of the field, like `rules[2].action.status`.
    public var path: String
    public var reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { path.isEmpty ? reason : "\(path): \(reason)" }

    /// The path of a `DecodingError`'s coding path.
    public static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : "." + key.stringValue
            }
        }
        return text
    }

    /// Turns any decoding failure into a `PlanError` with its field path.
    public static func from(_ error: any Error, prefix: String = "") -> PlanError {
        func joined(_ path: String) -> String {
            if prefix.isEmpty { return path }
            if path.isEmpty { return prefix }
            return path.hasPrefix("[") ? prefix + path : prefix + "." + path
        }
        switch error {
        case let error as PlanError:
            return PlanError(path: joined(error.path), reason: error.reason)
        case DecodingError.keyNotFound(let key, let context):
            return PlanError(path: joined(path(context.codingPath + [key])), reason: "is required")
        case DecodingError.typeMismatch(let type, let context):
            return PlanError(path: joined(path(context.codingPath)), reason: "expected \(describe(type))")
        case DecodingError.valueNotFound(let type, let context):
            return PlanError(path: joined(path(context.codingPath)), reason: "expected \(describe(type)), found null")
        case DecodingError.dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return PlanError(path: joined(path(context.codingPath)), reason: context.debugDescription + underlying)
        default:
            return PlanError(path: prefix, reason: "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is UInt64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "true or false"
        default:
            let name = "\(type)"
            if name.hasPrefix("Array") { return "an array" }
            if name.hasPrefix("Dictionary") { return "an object" }
            return "a value of type \(name)"
        }
    }
}

/// Decoding that rejects fields it does not know, so a typo cannot silently disable a setting.
public struct AnyKey: CodingKey, Hashable {
    public var stringValue: String
    public var intValue: Int?
    public init(_ string: String) {
        stringValue = string
        intValue = nil
    }
    public init?(stringValue: String) { self.init(stringValue) }
    public init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

extension Decoder {
    /// Throws when the object has a key outside `known`, naming the key and the accepted ones.
    public func rejectUnknownKeys(_ known: Set<String>) throws {
        let container = try self.container(keyedBy: AnyKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            let accepted = known.sorted().joined(separator: ", ")
            throw PlanError(
                path: PlanError.path(codingPath + [key]), reason: "unknown field (accepted here: \(accepted))")
        }
    }
}
