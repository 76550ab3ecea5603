import FakeFrontmail
import Foundation
import Frontmail

/// The `fidelity` payload: every kind of value and option the guide names, different for every
/// send, and beside it the body the server must decode, written down by the suite itself (never by
/// the SDK's writer): nulls, nested and empty containers, unicode keys and values (one of them
/// decomposed, which must not be normalised), escapes and control characters, the largest and
/// smallest integers, integers beyond a double's precision, doubles at the edges, dates, `Data`
/// and URLs through the `Encodable` path, attachments with filenames and content types, an
/// upload, the locale and the service.
public enum FidelityPayload {
    /// What one send carries and what the server must receive for it.
    public struct Send: Sendable {
        public var params: PayloadFactory.Params
        public var serviceID: String
        public var options: SendOptions
        /// The whole body as JSON, as the server must decode it (Turnstile fields are added by
        /// `expectedBody(turnstile:)`).
        public var expected: [String: ExpectedJSON]
    }

    public static let serviceID = "svc_fidelity"
    /// The public key every load's client is made with (the harness's): the body carries it as `user_id`.
    public static let publicKey = "pk_bench"
    public static let locale = "de-AT"
    /// An upload every fake knows from the start (`EmulatorConfig.uploads`).
    public static let upload = "upl_preset"

    /// Send `sendID`: even numbers send `FrontmailValue` params, odd ones an `Encodable` record.
    public static func send(sendID: Int) -> Send {
        let attachment = Data((0..<(sendID % 97 + 1)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ sendID) })
        let filename = "résumé \(sendID) – “final”.txt"
        let options = SendOptions(
            attachments: [
                .data(attachment, filename: filename, contentType: "text/plain; charset=utf-8"),
                .data(Data(), filename: "empty.bin", contentType: "application/octet-stream"),
                .upload(id: upload),
            ],
            locale: locale)
        let attachments: [ExpectedJSON] = [
            .object([
                "filename": .string(filename), "content_type": .string("text/plain; charset=utf-8"),
                "content_base64": .string(attachment.base64EncodedString()),
            ]),
            .object([
                "filename": .string("empty.bin"), "content_type": .string("application/octet-stream"),
                "content_base64": .string(""),
            ]),
            .object(["upload_id": .string(upload)]),
        ]
        let params: PayloadFactory.Params
        let expectedParams: ExpectedJSON
        if sendID % 2 == 0 {
            let values = self.values(sendID: sendID)
            params = .values(values)
            expectedParams = .object(values.mapValues(ExpectedJSON.init))
        } else {
            let record = FidelityRecord(sendID: sendID)
            params = .fidelity(record)
            expectedParams = record.expected
        }
        return Send(
            params: params, serviceID: serviceID, options: options,
            expected: [
                "template_id": .string("tpl_bench"), "template_params": expectedParams, "user_id": .string(publicKey),
                "service_id": .string(serviceID), "locale": .string(locale), "attachments": .array(attachments),
            ])
    }

    /// The `FrontmailValue` params of an even send.
    static func values(sendID: Int) -> [String: FrontmailValue] {
        [
            "bench_send_id": .integer(sendID),
            "nothing": .null,
            "nested": [[1, "two", nil, 3.5], ["deep": [true, false, []]], [], [:]],
            "ünïcödé_kéy 🔑": "välue – ✓ 漢字 🇦🇹 مرحبا",
            "decomposed": "e\u{301}",
            "escapes":
                "quote \" backslash \\ slash / tab \t newline \n return \r bell \u{7} nul \u{0} \u{2028}\u{2029} del \u{7F}",
            "largest": .integer(Int.max), "smallest": .integer(Int.min),
            "beyond_double": .integer(9_007_199_254_740_993),
            "negative": -42, "zero": 0,
            "doubles": [0.1, -2.5e-8, 1e300, .double(.leastNonzeroMagnitude), 123456.789, .double(Double(sendID) / 7)],
            "text": .string("send-\(sendID)"),
            "flags": [true, false],
        ]
    }
}

/// A JSON value as the server must decode it: integers and doubles kept apart, strings compared
/// scalar by scalar.
public indirect enum ExpectedJSON: Sendable, Hashable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    case null
    case array([ExpectedJSON])
    case object([String: ExpectedJSON])

    /// The JSON a `FrontmailValue` stands for, by the suite's own mapping.
    init(_ value: FrontmailValue) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(Int64(number))
        case .double(let number): self = .double(number)
        case .bool(let flag): self = .bool(flag)
        case .null: self = .null
        case .array(let items): self = .array(items.map(ExpectedJSON.init))
        case .object(let members): self = .object(members.mapValues(ExpectedJSON.init))
        }
    }
}

/// The `Encodable` params of an odd send: dates (whole seconds, before 1970 and after 2038),
/// `Data`, a URL, an optional left out and one set, nested collections.
public struct FidelityRecord: Encodable, Sendable {
    var benchSendID: Int
    var createdAt = Date(timeIntervalSince1970: 1_796_430_545)
    var epoch = Date(timeIntervalSince1970: 0)
    var before1970 = Date(timeIntervalSince1970: -946_771_200)
    var after2038 = Date(timeIntervalSince1970: 4_102_444_800)
    var blob: Data
    var link = URL(string: "https://example.com/a/b?q=1&r=two#frag")!
    var missing: String? = nil
    var present: String? = "here"
    var counts: [String: Int]
    var matrix: [[Double]] = [[1.5, -2.25], [], [1e-7]]
    var flag = true
    var largest = Int64.max
    var unicode = "Grüße aus Wien – 👋"

    enum CodingKeys: String, CodingKey {
        case benchSendID = "bench_send_id"
        case createdAt, epoch, before1970, after2038, blob, link, missing, present, counts, matrix, flag, largest
        case unicode
    }

    init(sendID: Int) {
        benchSendID = sendID
        blob = Data((0..<(sendID % 61 + 3)).map { UInt8(truncatingIfNeeded: 255 &- $0 &* 7 &+ sendID) })
        counts = ["a": sendID, "b": -sendID, "ä": 0]
    }

    /// What the SDK's `Encodable` path must write, by the guide: names as they are, dates as
    /// ISO-8601 UTC strings, `Data` as base64, a URL as its absolute string, a nil optional left out.
    var expected: ExpectedJSON {
        func date(_ value: Date) -> ExpectedJSON { .string(HTTPDate.iso8601(from: value)) }
        return .object([
            "bench_send_id": .integer(Int64(benchSendID)), "createdAt": date(createdAt), "epoch": date(epoch),
            "before1970": date(before1970), "after2038": date(after2038),
            "blob": .string(blob.base64EncodedString()), "link": .string(link.absoluteString),
            "present": .string("here"), "counts": .object(counts.mapValues { .integer(Int64($0)) }),
            "matrix": .array(matrix.map { .array($0.map(ExpectedJSON.double)) }), "flag": .bool(true),
            "largest": .integer(largest), "unicode": .string(unicode),
        ])
    }
}
