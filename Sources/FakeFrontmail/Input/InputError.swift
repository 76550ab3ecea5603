import Foundation

/// A value in an input file (fault plan, emulator config, scenario) that is wrong: names the field
/// and the reason. `InputFileError` adds the file.
public struct InputError: Error, Sendable, Hashable, CustomStringConvertible {
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

    /// Turns any decoding failure into a `InputError` with its field path.
    public static func from(_ error: any Error, prefix: String = "") -> InputError {
        func joined(_ path: String) -> String {
            if prefix.isEmpty { return path }
            if path.isEmpty { return prefix }
            return path.hasPrefix("[") ? prefix + path : prefix + "." + path
        }
        switch error {
        case let error as InputError:
            return InputError(path: joined(error.path), reason: error.reason)
        case DecodingError.keyNotFound(let key, let context):
            return InputError(path: joined(path(context.codingPath + [key])), reason: "is required")
        case DecodingError.typeMismatch(let type, let context):
            return InputError(path: joined(path(context.codingPath)), reason: "expected \(describe(type))")
        case DecodingError.valueNotFound(let type, let context):
            return InputError(path: joined(path(context.codingPath)), reason: "expected \(describe(type)), found null")
        case DecodingError.dataCorrupted(let context):
            let underlying = context.underlyingError.map { " (\($0.localizedDescription))" } ?? ""
            return InputError(path: joined(path(context.codingPath)), reason: context.debugDescription + underlying)
        default:
            return InputError(path: prefix, reason: "\(error)")
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

/// `FILE: field.path: reason`, the form every bad input file is reported in.
public struct InputFileError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var error: InputError

    public init(file: String, error: InputError) {
        self.file = file
        self.error = error
    }

    public var description: String { "\(file): \(error.path.isEmpty ? "" : error.path + ": ")\(error.reason)" }

    public static func read(_ path: String) throws(InputFileError) -> Data {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputFileError(
                file: path, error: InputError(path: "", reason: "cannot be read (\(error.localizedDescription))"))
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
            throw InputError(
                path: InputError.path(codingPath + [key]), reason: "unknown field (accepted here: \(accepted))")
        }
    }
}
