import Foundation

extension Frontmail {
    /// Sends the template `templateID` with `params`.
    ///
    /// - Parameters:
    ///   - serviceID: nil (or empty) uses the template's default service.
    /// - Returns: the message id, whether it is queued or held, and the token to read its status.
    /// - Throws: `FrontmailError`; a cancelled Task throws `aborted` at once.
    @discardableResult
    public func send(
        templateID: String,
        params: [String: FrontmailValue] = [:],
        serviceID: String? = nil,
        options: SendOptions = SendOptions()
    ) async throws -> SendResult {
        let body = try encodeSendBody(templateID: templateID, params: params, serviceID: serviceID, options: options)
        return try await send(body: body, options: options)
    }

    /// Sends the template `templateID` with any `Encodable` params that encode to a JSON object.
    ///
    /// Property names are sent as they are (rename them with `CodingKeys`), dates as ISO-8601
    /// UTC strings and `Data` as base64.
    @discardableResult
    public func send<Params: Encodable>(
        templateID: String,
        params: Params,
        serviceID: String? = nil,
        options: SendOptions = SendOptions()
    ) async throws -> SendResult {
        let body = try encodeSendBody(
            templateID: templateID, estimatedSize: 512, serviceID: serviceID, options: options
        ) { writer throws(FrontmailError) in
            try Self.writeParams(params, into: &writer)
        }
        return try await send(body: body, options: options)
    }

    /// Reads the delivery status of a message with the `statusToken` its send returned.
    ///
    /// The token travels only in the `X-Frontmail-Status-Token` header, never in the URL.
    public func status(messageID: String, statusToken: String) async throws -> MessageStatus {
        let headers = FrontmailHTTPHeaders(fields: [
            .init(name: "X-Frontmail-Public-Key", value: publicKey),
            .init(name: "X-Frontmail-Status-Token", value: statusToken),
            .init(name: "X-Frontmail-Client", value: Self.clientHeaderValue),
        ])
        let request = FrontmailHTTPRequest(
            method: "GET", url: endpoint("/v1/messages/" + Self.percentEncodePathSegment(messageID)), headers: headers,
            body: nil, timeout: timeout)
        let response = try await execute(request, operation: .status, key: nil, retry: retry)
        return try Self.parseMessageStatus(response)
    }

    /// Writes `Encodable` params as the object of `template_params`: straight into the writer,
    /// or through the tree when the value uses its containers in a way a stream cannot follow or
    /// throws (the tree then throws it with its coding path).
    package static func writeParams<Params: Encodable>(
        _ params: Params, into writer: inout JSONWriter
    ) throws(FrontmailError) {
        if StreamEncoder.writeObject(params, into: &writer) { return }
        let pairs = try encodeParams(params)
        do throws(JSONWriter.NonFiniteNumber) {
            try writer.writePairs(pairs)
        } catch {
            throw nonFiniteParams(error)
        }
    }

    /// Turns `Encodable` params into the members of `template_params` (in encoding order).
    static func encodeParams<Params: Encodable>(_ params: Params) throws(FrontmailError) -> [ValueEncoder.Pair] {
        var node: ValueEncoder.Node
        do {
            node = try ValueEncoder.encodeNode(params)
        } catch let error as EncodingError {
            throw .client(.invalidParams, "The params could not be encoded: \(Self.describe(error))")
        } catch {
            throw .client(.invalidParams, "The params could not be encoded: \(error)")
        }
        while case .box(let box) = node { node = box.node }
        switch node {
        case .object(let pairs):
            return pairs
        case .value(.object(let members)):
            return members.map { ValueEncoder.Pair(key: $0.key, value: .value($0.value)) }
        case .value(let value):
            throw .client(
                .invalidParams,
                "The params must encode to a JSON object (a struct or a dictionary), not \(Self.kind(of: value)).")
        case .array, .box:
            throw .client(
                .invalidParams, "The params must encode to a JSON object (a struct or a dictionary), not an array.")
        }
    }

    private func send(body: Data, options: SendOptions) async throws -> SendResult {
        if Task.isCancelled { throw FrontmailError.aborted }
        let key =
            options.idempotencyKey.flatMap { $0.isEmpty ? nil : $0 }
            ?? Self.makeIdempotencyKey(environment.keyWords())
        let headers = FrontmailHTTPHeaders(fields: [
            .init(name: "X-Frontmail-Public-Key", value: publicKey),
            .init(name: "Content-Type", value: "application/json"),
            .init(name: "Idempotency-Key", value: key),
            .init(name: "X-Frontmail-Client", value: Self.clientHeaderValue),
        ])
        let request = FrontmailHTTPRequest(
            method: "POST", url: sendURL, headers: headers, body: body, timeout: timeout)
        let response = try await execute(request, operation: .send, key: key, retry: retry)
        return try Self.parseSendResult(response)
    }

    /// The body of `POST /v1/send`, written once per logical send. Keys are in sorted order and
    /// absent options are left out entirely.
    func encodeSendBody(
        templateID: String, params: [String: FrontmailValue], serviceID: String?, options: SendOptions
    ) throws(FrontmailError) -> Data {
        try encodeSendBody(
            templateID: templateID, estimatedSize: 256 + params.count * 48, serviceID: serviceID, options: options
        ) { writer throws(FrontmailError) in
            do throws(JSONWriter.NonFiniteNumber) {
                try writer.writeObject(params)
            } catch {
                throw Self.nonFiniteParams(error)
            }
        }
    }

    private static func nonFiniteParams(_ error: JSONWriter.NonFiniteNumber) -> FrontmailError {
        .client(
            .invalidParams,
            "template_params.\(error.pathDescription) is \(error.value), which JSON cannot carry (only finite numbers)."
        )
    }

    /// The body with `template_params` written by `writeParams`.
    func encodeSendBody(
        templateID: String, estimatedSize: Int, serviceID: String?, options: SendOptions,
        writeParams: (inout JSONWriter) throws(FrontmailError) -> Void
    ) throws(FrontmailError) -> Data {
        var writer = JSONWriter(capacity: Self.estimatedBodySize(estimatedSize, options: options))
        writer.writeByte(UInt8(ascii: "{"))
        var first = true
        func key(_ name: String, _ writer: inout JSONWriter) {
            if !first { writer.writeByte(UInt8(ascii: ",")) }
            first = false
            writer.writeKey(name)
        }
        if let attachments = options.attachments {
            key("attachments", &writer)
            writeAttachments(attachments, into: &writer)
        }
        if let locale = options.locale, !locale.isEmpty {
            key("locale", &writer)
            writer.writeString(locale)
        }
        if let serviceID, !serviceID.isEmpty {
            key("service_id", &writer)
            writer.writeString(serviceID)
        }
        key("template_id", &writer)
        writer.writeString(templateID)
        key("template_params", &writer)
        try writeParams(&writer)
        if let turnstileKey = options.turnstileKey {
            key("turnstile_key", &writer)
            writer.writeString(turnstileKey.rawValue)
        }
        if let token = options.turnstileToken {
            key("turnstile_token", &writer)
            writer.writeString(token)
        }
        key("user_id", &writer)
        writer.writeString(publicKey)
        writer.writeByte(UInt8(ascii: "}"))
        return writer.data()
    }

    private func writeAttachments(_ attachments: [Attachment], into writer: inout JSONWriter) {
        writer.writeByte(UInt8(ascii: "["))
        for (index, attachment) in attachments.enumerated() {
            if index > 0 { writer.writeByte(UInt8(ascii: ",")) }
            switch attachment {
            case .data(let data, let filename, let contentType):
                writer.writeByte(UInt8(ascii: "{"))
                writer.writeKey("content_base64")
                writer.writeBase64String(data)
                writer.writeByte(UInt8(ascii: ","))
                writer.writeKey("content_type")
                writer.writeString(contentType)
                writer.writeByte(UInt8(ascii: ","))
                writer.writeKey("filename")
                writer.writeString(filename)
                writer.writeByte(UInt8(ascii: "}"))
            case .upload(let id):
                writer.writeByte(UInt8(ascii: "{"))
                writer.writeKey("upload_id")
                writer.writeString(id)
                writer.writeByte(UInt8(ascii: "}"))
            }
        }
        writer.writeByte(UInt8(ascii: "]"))
    }

    private static func estimatedBodySize(_ paramsSize: Int, options: SendOptions) -> Int {
        var size = paramsSize
        for attachment in options.attachments ?? [] {
            if case .data(let data, _, _) = attachment { size += Base64.encodedCount(data.count) + 128 }
        }
        return size
    }

    /// Percent-encodes everything but letters, digits and `-._~` (a `/` becomes `%2F`).
    static func percentEncodePathSegment(_ segment: String) -> String {
        var result = ""
        result.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(hex[Int(byte >> 4)])
                result.unicodeScalars.append(hex[Int(byte & 0x0F)])
            }
        }
        return result
    }

    private static func kind(of value: FrontmailValue) -> String {
        switch value {
        case .string: return "a string"
        case .integer, .double: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    private static func describe(_ error: EncodingError) -> String {
        switch error {
        case .invalidValue(_, let context):
            var path = ""
            for key in context.codingPath {
                if let index = key.intValue {
                    path += "[\(index)]"
                } else {
                    path += path.isEmpty ? key.stringValue : "." + key.stringValue
                }
            }
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
