import Frontmail

/// The members of a send's body the fake reads (wire contract §2), found in one pass over its bytes
/// by the fake's own reader (`JSONScanner`), never the SDK's.
///
/// The rest of the body is checked as strictly as a full parse checks it (invalid JSON is still
/// `invalid_body`), but never built: parsing every body into a `FrontmailValue` (two dictionaries
/// with hashed keys, a string per value) was a sixth of an in-process send. A repeated key's last
/// value counts, as in a parsed object.
public struct SendBody: Sendable {
    var userID: FrontmailValue?
    var templateID: FrontmailValue?
    var serviceID: FrontmailValue?
    var turnstileToken: FrontmailValue?
    var turnstileKey: FrontmailValue?
    var locale: FrontmailValue?
    var attachments: FrontmailValue?
    /// `template_params`; nil when the body has none.
    var params: Params?

    struct Params: Sendable {
        /// False when `template_params` is not an object (then nothing else here is read).
        var isObject: Bool
        /// Of the params asked about, those whose value is not null.
        var present: [String] = []
        var benchSendID: FrontmailValue?
    }

    private static let topLevel = [
        "user_id", "template_id", "template_params", "service_id", "turnstile_token", "locale", "attachments",
        "turnstile_key",
    ]

    /// Reads `bytes`; nil when they are not JSON or not an object. `watchedParams` are the params
    /// whose presence `missing(_:)` can answer for (the templates' required params).
    static func read(_ bytes: [UInt8], watchedParams: [String]) -> SendBody? {
        var body = SendBody()
        let isObject = try? bytes.withUnsafeBufferPointer { buffer throws(JSONScanner.Failure) in
            try JSONScanner.readObject(buffer) { key, reader throws(JSONScanner.Failure) in
                guard let member = topLevel.firstIndex(of: key) else { return try reader.skip() }
                switch member {
                case 0: body.userID = try reader.value()
                case 1: body.templateID = try reader.value()
                case 2: body.params = try readParams(&reader, watchedParams: watchedParams)
                case 3: body.serviceID = try reader.value()
                case 4: body.turnstileToken = try reader.value()
                case 5: body.locale = try reader.value()
                case 6: body.attachments = try reader.value()
                default: body.turnstileKey = try reader.value()
                }
            }
        }
        return isObject == true ? body : nil
    }

    private static func readParams(
        _ reader: inout JSONScanner, watchedParams: [String]
    ) throws(JSONScanner.Failure) -> Params {
        var params = Params(isObject: false)
        func note(_ key: String, isNull: Bool) {
            if isNull {
                params.present.removeAll { $0 == key }
            } else if !params.present.contains(key) {
                params.present.append(key)
            }
        }
        let isObject = try reader.members { key, reader throws(JSONScanner.Failure) in
            if key == "bench_send_id" {
                let value = try reader.value()
                params.benchSendID = value
                if watchedParams.contains(key) { note(key, isNull: value == .null) }
            } else if watchedParams.contains(key) {
                let isNull = reader.isAtNull
                try reader.skip()
                note(key, isNull: isNull)
            } else {
                try reader.skip()
            }
        }
        params.isObject = isObject
        return params
    }

    /// `template_params.bench_send_id` (an integer, or a string of one), or -1.
    var benchSendID: Int64 {
        guard let params, params.isObject else { return -1 }
        switch params.benchSendID {
        case .integer(let value)?: return Int64(value)
        case .string(let text)?: return Int64(text) ?? -1
        default: return -1
        }
    }

    /// The `required` params that are absent or null (each must be among the watched params).
    func missing(_ required: [String]) -> [String] {
        let present = params?.present ?? []
        return required.filter { !present.contains($0) }
    }
}
