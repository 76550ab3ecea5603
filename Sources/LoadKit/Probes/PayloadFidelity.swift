import FakeFrontmail
import Foundation
import Synchronization

/// The `fidelity` payload's oracle: every send body the server receives (every attempt) is
/// read by the suite's own parser (`JSONText`), never by the SDK's reader or writer, and compared
/// member by member with the body the driver intended (`FidelityPayload`), Turnstile fields
/// included. Integers must be exact integers, doubles the same bits, strings the same scalars.
final class PayloadFidelity: Sendable {
    struct Figures: Sendable, Equatable {
        var checked = 0
        var mismatches = 0
        /// The first difference seen, for the console and the tests.
        var first: String?
    }

    private let turnstile: ClientSettings.TurnstileSettings?
    private let state = Mutex(Figures())
    /// The judgement of each body already judged: it depends on the bytes alone, and a retry
    /// carries its first attempt's bytes, so it is parsed once (at most `rememberedBodies` kept).
    private let judged = Mutex([Body: String?]())
    static let rememberedBodies = 4_096

    init(_ scenario: Scenario) {
        turnstile = scenario.client.turnstile
    }

    var figures: Figures { state.withLock { $0 } }

    /// Judges one request the server received (sends only; the fake calls it for each).
    func inspect(_ request: ServerRequest) {
        let difference: String?
        let body = Body(bytes: request.body)
        if let known = judged.withLock({ $0[body] }) {
            difference = known
        } else {
            difference = self.difference(request.body)
            judged.withLock { judged in
                if judged.count >= Self.rememberedBodies { judged.removeAll(keepingCapacity: true) }
                judged[body] = difference
            }
        }
        state.withLock { figures in
            figures.checked += 1
            if let difference {
                figures.mismatches += 1
                if figures.first == nil { figures.first = difference }
            }
        }
    }

    /// Where `body` differs from what its send should carry (nil: nowhere).
    func difference(_ body: [UInt8]) -> String? {
        let document: JSONText
        do {
            document = try JSONText.parse(body)
        } catch {
            return "the body is not JSON (\(error.reason) at byte \(error.offset))"
        }
        guard case .object(let members) = document,
            case .object(let params)? = members.first(where: { $0.name == "template_params" })?.value,
            case .number(let text)? = params.first(where: { $0.name == "bench_send_id" })?.value,
            let sendID = Int(text)
        else { return "template_params.bench_send_id is missing or not an integer" }
        var expected = FidelityPayload.send(sendID: sendID).expected
        if let turnstile {
            expected["turnstile_token"] = .string(turnstile.token(sendID))
            switch turnstile.key {
            case .org?: expected["turnstile_key"] = .string("org")
            case .frontmail?: expected["turnstile_key"] = .string("frontmail")
            case nil: break
            }
        }
        return Self.difference(document, .object(expected), at: "body")
    }

    /// Where a JSON value as written differs from the expected one (nil: nowhere).
    static func difference(_ actual: JSONText, _ expected: ExpectedJSON, at path: String) -> String? {
        switch (expected, actual) {
        case (.null, .null): return nil
        case (.bool(let flag), .bool(let written)) where flag == written: return nil
        // An integer must be written as its digits, not as a fraction or an exponent.
        case (.integer(let value), .number(let text)) where text == String(value): return nil
        case (.double(let value), .number(let text)) where Double(text)?.bitPattern == value.bitPattern: return nil
        case (.string(let value), .string(let written))
        where Array(value.unicodeScalars) == Array(written.unicodeScalars):
            return nil
        case (.array(let items), .array(let written)) where items.count == written.count:
            for (index, item) in items.enumerated() {
                if let difference = difference(written[index], item, at: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (.object(let members), .object(let written)):
            var seen: [[Unicode.Scalar]: JSONText] = [:]
            for member in written {
                let name = Array(member.name.unicodeScalars)
                guard seen[name] == nil else { return "\(path).\(member.name): written twice" }
                seen[name] = member.value
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                guard let value = seen.removeValue(forKey: Array(name.unicodeScalars)) else {
                    return "\(path).\(name): missing (or its name changed)"
                }
                if let difference = difference(value, member, at: "\(path).\(name)") { return difference }
            }
            if let extra = seen.keys.map({ String(String.UnicodeScalarView($0)) }).sorted().first {
                return "\(path).\(extra): not expected"
            }
            return nil
        default:
            return "\(path): expected \(expected), got \(actual)"
        }
    }
}

extension PayloadFidelity {
    /// A body as a dictionary key, hashed as one run of bytes (an array hashes byte by byte).
    struct Body: Hashable {
        let bytes: [UInt8]

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
