/// A small command-line parser: `--name value`, `--name=value`, repeated options, flags and
/// positionals. Unknown options are errors (exit 64).
public struct Arguments: Sendable {
    public struct Spec: Sendable {
        /// Options that take a value (without the leading `--`).
        public var options: Set<String>
        /// Options that take no value.
        public var flags: Set<String>
        /// Options that may be given more than once (every other one is an error when repeated).
        public var repeatable: Set<String>
        /// Options and flags a parent gives its children, left out of the list of known ones.
        public var unlisted: Set<String>

        public init(
            options: Set<String> = [], flags: Set<String> = [], repeatable: Set<String> = [],
            unlisted: Set<String> = []
        ) {
            self.options = options
            self.flags = flags
            self.repeatable = repeatable
            self.unlisted = unlisted
        }
    }

    public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var description: String { message }

        public init(message: String) {
            self.message = message
        }
    }

    public private(set) var values: [String: [String]] = [:]
    public private(set) var setFlags: Set<String> = []
    public private(set) var positionals: [String] = []

    public init(_ arguments: [String], spec: Spec) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            guard argument.hasPrefix("--") else {
                if argument == "-h" {
                    setFlags.insert("help")
                    continue
                }
                throw UsageError(message: "unknown option '\(argument)' (options are written --name)")
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if spec.flags.contains(name) {
                guard inlineValue == nil else { throw UsageError(message: "--\(name) takes no value") }
                setFlags.insert(name)
            } else if spec.options.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = arguments[index]
                    // `--out --quick`: the value is missing, not a folder named --quick.
                    if value.hasPrefix("--"), value.count > 2 {
                        throw UsageError(
                            message:
                                "--\(name) needs a value (found the option \(value); write --\(name)=\(value) if that is the value)"
                        )
                    }
                    index += 1
                }
                guard !value.isEmpty else { throw UsageError(message: "--\(name) needs a value, not an empty one") }
                if let earlier = values[name]?.last, !spec.repeatable.contains(name) {
                    throw UsageError(message: "--\(name) is given twice ('\(earlier)', then '\(value)'); give it once")
                }
                values[name, default: []].append(value)
            } else {
                let known = spec.options.union(spec.flags).subtracting(spec.unlisted).sorted().map { "--\($0)" }
                    .joined(separator: ", ")
                throw UsageError(message: "unknown option '--\(name)' (known: \(known))")
            }
        }
    }

    public func flag(_ name: String) -> Bool { setFlags.contains(name) }

    /// The last value given for `name`.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// Every value given for a repeatable option.
    public func all(_ name: String) -> [String] { values[name] ?? [] }

    public func integer(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw UsageError(message: "--\(name) needs a whole number, not '\(text)'") }
        return number
    }

    /// A finite number of seconds (or any quantity) within `range`.
    public func number(_ name: String, in range: ClosedRange<Double>) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw UsageError(
                message: "--\(name) needs a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    public func unsigned(_ name: String) throws(UsageError) -> UInt64? {
        guard let text = value(name) else { return nil }
        guard let number = UInt64(text) else {
            throw UsageError(message: "--\(name) needs a non-negative whole number, not '\(text)'")
        }
        return number
    }
}
