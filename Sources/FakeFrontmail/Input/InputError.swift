import Foundation
import Frontmail

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

    /// Decodes one input file's bytes as `T`, lets `complete` fill in what the bytes do not say
    /// (the file's own path, say), and validates the result: any error reads `FILE: field.path: reason`.
    public static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, file: String, complete: (inout T) -> Void = { _ in },
        validate: (T) throws(InputError) -> Void
    ) throws(InputFileError) -> T {
        do throws(InputError) {
            var value = try InputError.decode(T.self, from: data)
            complete(&value)
            try validate(value)
            return value
        } catch {
            throw InputFileError(file: file, error: error)
        }
    }

    public static func read(_ path: String) throws(InputFileError) -> Data {
        if let problem = unreadable(path) {
            throw InputFileError(file: path, error: InputError(path: "", reason: problem))
        }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw InputFileError(
                file: path, error: InputError(path: "", reason: "cannot be read (\(String(cString: strerror(EIO))))"))
        }
    }

    /// Why the file at `path` cannot be read, in the words of its cause (Foundation's say
    /// `Code=260 "The file doesn't exist."`), or nil when it can.
    public static func unreadable(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT ? "no such file" : "cannot be read (\(String(cString: strerror(errno))))"
        }
        if status.st_mode & S_IFMT == S_IFDIR { return "is a folder, not a file" }
        guard access(path, R_OK) == 0 else { return "cannot be read (\(String(cString: strerror(errno))))" }
        return nil
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

    /// The object's fields, once no key outside `known` is found (`rejectUnknownKeys`).
    public func strictContainer(_ known: Set<String>) throws -> KeyedDecodingContainer<AnyKey> {
        try rejectUnknownKeys(known)
        return try container(keyedBy: AnyKey.self)
    }

    /// The object's fields by `Keys`, once every key is found to be one of its cases.
    public func strictContainer<Keys: CodingKey & CaseIterable>(
        keyedBy keys: Keys.Type
    ) throws -> KeyedDecodingContainer<Keys> {
        try rejectUnknownKeys(Set(Keys.allCases.map(\.stringValue)))
        return try container(keyedBy: keys)
    }
}

extension InputError {
    /// The longest duration an input file may state: a day (a fault, a window, a delay, a timeout).
    public static let longestSpan = 86_400.0

    /// Throws `path: must be LOW-HIGH` unless `value` is in `range`.
    public static func check<Value: Comparable>(
        _ value: Value, in range: ClosedRange<Value>, _ path: String, unit: String = ""
    ) throws(InputError) {
        guard range.contains(value) else {
            throw InputError(path: path, reason: "must be \(range.lowerBound)-\(range.upperBound)\(unit)")
        }
    }
}

extension InputError {
    /// Reads an input file's JSON: a syntax error names its line and column (Foundation's decoder
    /// says only that the data is invalid), every other error its field.
    public static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws(InputError) -> Value {
        // A UTF-8 byte-order mark (editors on Windows write one) is not part of the JSON text.
        let data = data.starts(with: [0xEF, 0xBB, 0xBF]) ? Data(data.dropFirst(3)) : data
        do throws(JSONScanner.Failure) {
            try Array(data).withUnsafeBufferPointer { bytes throws(JSONScanner.Failure) in
                try JSONScanner.validate(bytes)
            }
        } catch {
            let (line, column) = position(of: error.offset, in: data)
            throw InputError(path: "", reason: "invalid JSON at line \(line), column \(column): \(error.reason)")
        }
        if let path = DuplicateKeys.first(in: Array(data)) {
            throw InputError(path: path, reason: "given twice in one object (which one is meant?)")
        }
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw InputError.from(error)
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    static func position(of offset: Int, in data: Data) -> (line: Int, column: Int) {
        let prefix = data.prefix(max(0, offset))
        let line = prefix.reduce(1) { $1 == 10 ? $0 + 1 : $0 }
        let lineStart = prefix.lastIndex(of: 10).map { $0 + 1 } ?? prefix.startIndex
        return (line, String(decoding: prefix[lineStart...], as: UTF8.self).count + 1)
    }
}

extension KeyedDecodingContainer {
    /// A whole number in range. Foundation reports a fraction (`2.5`) or a number out of the type's
    /// range (`-1` for an unsigned field) as "not valid JSON" without a field: this names both, a
    /// number past the type's range by the field's own `range` when given (the type's otherwise).
    public func integer<Value: FixedWidthInteger & Decodable>(
        _ type: Value.Type, _ key: Key, in range: ClosedRange<Value>? = nil
    ) throws -> Value? {
        guard contains(key) else { return nil }
        if let value = try? decodeIfPresent(Value.self, forKey: key) { return value }
        let path = InputError.path(codingPath + [key])
        if let number = try? decode(Double.self, forKey: key) {
            guard number == number.rounded(), number.isFinite else {
                throw InputError(path: path, reason: "must be a whole number, not \(number)")
            }
            let shown = String(format: "%.6g", number)
            if let range {
                throw InputError(path: path, reason: "must be \(range.lowerBound)-\(range.upperBound), not \(shown)")
            }
            let bound = number < 0 ? "too small (at least \(Value.min))" : "too large (at most \(Value.max))"
            throw InputError(path: path, reason: "\(shown) is \(bound)")
        }
        return try decodeIfPresent(Value.self, forKey: key)
    }
}

extension KeyedDecodingContainer {
    /// `integer`, for a field that must be there.
    public func requiredInteger<Value: FixedWidthInteger & Decodable>(_ type: Value.Type, _ key: Key) throws -> Value {
        guard let value = try integer(type, key) else {
            throw InputError(path: InputError.path(codingPath + [key]), reason: "is required")
        }
        return value
    }
}

/// An enum an input file names by its raw value; any other value is an error that lists the
/// accepted ones (`transport: 'carrierPigeon' is not one of socket, inProcess`).
public protocol InputChoice: RawRepresentable, CaseIterable, Decodable where RawValue == String {}

extension InputChoice {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let value = Self(rawValue: text) else {
            let accepted = Self.allCases.map(\.rawValue).joined(separator: ", ")
            throw InputError(
                path: InputError.path(decoder.codingPath), reason: "'\(text)' is not one of \(accepted)")
        }
        self = value
    }
}
