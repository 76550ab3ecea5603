import Foundation

/// Carries one HTTP exchange for the client: the seam for tests, fakes and custom networking.
///
/// The client enforces the per-attempt deadline and cancellation itself by cancelling the Task that
/// calls `send`, so a transport must end promptly when its Task is cancelled (throwing any error).
/// Errors a transport throws become `network_error`, except `CancellationError` and
/// `URLError(.cancelled)` while the caller is cancelled (`aborted`), `URLError(.timedOut)`
/// (`timeout`) and a `FrontmailError`, which is passed on as it is.
public protocol FrontmailTransport: Sendable {
    func send(_ request: FrontmailHTTPRequest) async throws -> FrontmailHTTPResponse
}

/// Header fields in order, looked up without regard to case.
public struct FrontmailHTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [Field]

    public struct Field: Sendable, Hashable {
        public var name: String
        public var value: String
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(_ fields: [(String, String)] = []) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The fields as they are (one allocation: the client's own requests are built this way).
    package init(fields: [Field]) {
        self.fields = fields
    }

    /// Room for `count` fields, so adding them does not grow the storage step by step.
    package mutating func reserveCapacity(_ count: Int) {
        fields.reserveCapacity(count)
    }

    /// The first value of the field named `name` (any case).
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Appends a field (it does not replace one of the same name).
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field named `name` with one field.
    public mutating func set(name: String, value: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        fields.append(Field(name: name, value: value))
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    /// Whether two header names are equal, ignoring ASCII case.
    public static func namesEqual(_ lhs: String, _ rhs: String) -> Bool { lhs.caseInsensitiveEquals(rhs) }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}

/// One request as the client sends it.
public struct FrontmailHTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: FrontmailHTTPHeaders
    /// The exact body bytes; the same value goes out on every attempt of one send.
    public var body: Data?
    /// The client's per-attempt deadline in seconds, for transports that want a backstop of their own.
    public var timeout: TimeInterval

    public init(
        method: String, url: URL, headers: FrontmailHTTPHeaders = [:], body: Data? = nil, timeout: TimeInterval = 15
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// One response as a transport hands it back: status, headers and the whole body.
public struct FrontmailHTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: FrontmailHTTPHeaders
    public var body: Data

    public init(status: Int, headers: FrontmailHTTPHeaders = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

extension String {
    /// ASCII case-insensitive equality (header names are ASCII tokens).
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in Self.asciiCaseInsensitiveEqual(lhs, rhs) }
        }
        if let result = fast ?? nil { return result }
        return zip(utf8, other.utf8).allSatisfy { Self.asciiLower($0) == Self.asciiLower($1) }
    }

    private static func asciiCaseInsensitiveEqual(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        for index in 0..<lhs.count where lhs[index] != rhs[index] {
            if asciiLower(lhs[index]) != asciiLower(rhs[index]) { return false }
        }
        return true
    }

    private static func asciiLower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
