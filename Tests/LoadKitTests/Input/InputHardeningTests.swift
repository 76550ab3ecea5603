import Foundation
import Testing

@testable import FakeFrontmail
@testable import LoadKit

/// Inputs that used to trap, hang, exhaust memory or pass silently: each is now an error in the
/// file that names the field.
@Suite("input hardening: numbers, quick settings, names, JSON errors")
struct InputHardeningTests {
    static func reason(_ json: String) -> String {
        do {
            _ = try makeScenario(json)
            return "no error"
        } catch let error as InputError {
            return error.description
        } catch {
            return "\(error)"
        }
    }

    static let closed = #""load": {"type": "closed", "concurrency": 2, "sends": 10}"#
    static let open = #""load": {"type": "open", "rate": 10, "duration": "1s"}"#
    static let cancel = #""cancellation": {"samples": 5}"#
    static func plan(_ action: String) -> String {
        #""plan": {"rules": [{"action": \#(action)}]}"#
    }

    @Test(
        "numbers that trapped or never ended are refused by their range",
        arguments: [
            (#"{"name": "x", \#(cancel), "quick": {"backgroundLoad": -1}}"#, "quick.backgroundLoad: must be 0-20000"),
            (#"{"name": "x", "load": {"type": "open", "rate": 1e-12, "duration": "1h"}}"#, "load.rate: must be 0.01-"),
            (#"{"name": "x", "load": {"type": "open", "rate": 1e12, "duration": "7s"}}"#, "load.rate: must be 0.01-"),
            (
                #"{"name": "x", "load": {"type": "open", "rate": 1e6, "duration": "1h"}}"#,
                "load: plans 3600000000 sends"
            ),
            (#"{"name": "x", "timeScale": 1e-15, \#(closed)}"#, "timeScale: must be 0.0001-100"),
            (
                #"{"name": "x", \#(closed), \#(plan(#"{"type": "slowBody", "bytesPerSecond": 1e30}"#))}"#,
                "plan.rules[0].action.bytesPerSecond: must be more than 0 and at most 1e9"
            ),
            (
                #"{"name": "x", \#(closed), \#(plan(#"{"type": "respond", "status": 503, "retryAfter": {"httpDateIn": 1e300}}"#))}"#,
                "plan.rules[0].action.retryAfter.httpDateIn: must be within"
            ),
            (
                #"{"name": "x", \#(closed), "plan": {"capacity": {"workers": 1e15, "serviceTime": "1ms"}}}"#,
                "plan.capacity.workers: must be 1-100000"
            ),
            (
                #"{"name": "x", \#(closed), "plan": {"capacity": {"workers": 2, "serviceTime": "0s"}}}"#,
                "plan.capacity.serviceTime: must take time on average (a mean of 0 s is no capacity limit)"
            ),
            (#"{"name": "x", \#(closed), "client": {"baseDelay": 1e300}}"#, "client.baseDelay: must be 0 to 86400 s"),
            (
                #"{"name": "x", \#(closed), "client": {"maxDelay": "1e300s"}}"#,
                "client.maxDelay: '1e300s' is not a duration"
            ),
            (
                #"{"name": "x", \#(closed), "client": {"maxRetries": 100, "timeout": "1h"}}"#,
                "client: one send could take"
            ),
            (
                #"{"name": "x", \#(closed), "server": {"maxAttachmentBytes": 1e12}}"#,
                "server.maxAttachmentBytes: must be"
            ),
        ])
    func ranges(json: String, expected: String) {
        let reason = Self.reason(json)
        #expect(reason.hasPrefix(expected), "got \(reason)")
    }

    @Test(
        "the quick block is validated like the full run",
        arguments: [
            (#"{"name": "x", \#(closed), "quick": {"concurrency": 0}}"#, "quick.concurrency: must be 1-100000"),
            (#"{"name": "x", \#(open), "quick": {"rate": -5}}"#, "quick.rate: must be 0.01-"),
            (#"{"name": "x", \#(closed), "quick": {"sends": 0}}"#, "quick.sends: must be 1-10000000"),
            (
                #"{"name": "x", \#(closed), "quick": {"samples": 3}}"#,
                "quick.samples: applies to a cancellation experiment only"
            ),
            (#"{"name": "x", \#(cancel), "quick": {"sends": 3}}"#, "quick.sends: applies to a load only"),
            (#"{"name": "x", \#(cancel), "quick": {"samples": 0}}"#, "quick.samples: must be 1-1000000"),
        ])
    func quick(json: String, expected: String) {
        let reason = Self.reason(json)
        #expect(reason.hasPrefix(expected), "got \(reason)")
    }

    @Test(
        "error codes and cancellation cells are closed sets",
        arguments: [
            (
                #"{"name": "x", \#(closed), "assertions": ["send.errors.rate_limted == 0"]}"#,
                "no error code 'rate_limted'"
            ),
            (#"{"name": "x", \#(closed), "assertions": ["attempts.errors.nope == 0"]}"#, "no error code 'nope'"),
            (
                #"{"name": "x", \#(closed), "assertions": ["retry.budget_refused == 0"]}"#,
                "the client has no retry budget"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.inFlite.load.p99 <= 1"]}"#,
                "phase 'inFlite' is not measured"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.inFlight.lode.p99 <= 1"]}"#,
                "write idle or load"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.inFlight.load.p98 <= 1"]}"#,
                "no statistic 'p98'"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.soak.resident_growth <= 1"]}"#,
                "this scenario runs no soak"
            ),
            (
                #"{"name": "x", "cancellation": {"soak": 10}, "assertions": ["cancellation.soak.backoff_growth_per_2k <= 1"]}"#,
                "assertions[0]: 'cancellation.soak.backoff_growth_per_2k': the soak reports backoff_growth_per_1k"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.random.idle.server_retries_after_cancel == 0"]}"#,
                "assertions[0]: 'cancellation.random.idle.server_retries_after_cancel': server_retries_after_cancel is measured for inFlight, backoff, slowBody only"
            ),
            (
                #"{"name": "x", "cancellation": {"backgroundLoad": 0}, "assertions": ["cancellation.inFlight.load.p99 <= 1"]}"#,
                "backgroundLoad is 0"
            ),
            (
                #"{"name": "x", \#(cancel), "assertions": ["cancellation.raw_urlsession.inFlight.idle.p99 <= 1"]}"#,
                "the raw URLSession baseline runs only over sockets"
            ),
        ])
    func closedNames(json: String, expected: String) {
        let reason = Self.reason(json)
        #expect(reason.contains(expected), "got \(reason)")
    }

    @Test("names that exist still pass: a plan's own code, the fake's codes, every cancellation cell")
    func knownNames() throws {
        _ = try makeScenario(
            #"{"name": "x", \#(Self.closed), \#(Self.plan(#"{"type": "respond", "status": 418, "code": "teapot"}"#)), "assertions": ["send.errors.teapot >= 0", "send.errors.timeout == 0", "attempts.errors.unfinished == 0"]}"#
        )
        _ = try makeScenario(
            #"{"name": "x", "transport": "socket", "cancellation": {"soak": 10}, "assertions": ["cancellation.slowBody.load.p99.9 <= 1", "cancellation.raw_urlsession.inFlight.load.aborted_ratio == 1", "cancellation.soak.growth_per_1k <= 1", "cancellation.soak.backoff_growth_per_1k <= 1", "cancellation.backoff.load.server_retries_after_cancel == 0", "cancellation.live_requests_after == 0"]}"#
        )
    }

    @Test(
        "JSON errors give the line and column; type errors the field; enums their values",
        arguments: [
            ("{\"name\": \"x\",\n \"load\": {\"type\": \"closed\" \"sends\": 1}}", "invalid JSON at line 2, column 28"),
            (#"{"name": "x", "seed": -1, \#(closed)}"#, "seed: -1 is too small (at least 0)"),
            (
                #"{"name": "x", "load": {"type": "closed", "sends": 1, "concurrency": 2.5}}"#,
                "load.concurrency: must be a whole number, not 2.5"
            ),
            (
                #"{"name": "x", "transport": "carrierPigeon", \#(closed)}"#,
                "transport: 'carrierPigeon' is not one of socket, inProcess"
            ),
            (#"{"name": "x", "load": {"type": "closd", "sends": 1}}"#, "load.type: 'closd' is not one of closed, open"),
            // Values that passed silently or were named badly (issue: hardening, third pass).
            (#"{"name": "x", "name": "y", \#(closed)}"#, "name: given twice in one object"),
            (
                #"{"name": "x", "load": {"type": "closed", "sends": 10, "concurrency": 2, "send\u0073": 1000000}}"#,
                "load.sends: given twice in one object"
            ),
            (
                #"{"name": "x", \#(closed), "plan": {"rules": [{"action": {"type": "hang"}}, {"action": {"type": "hang", "type": "reset"}}]}}"#,
                "plan.rules[1].action.type: given twice"
            ),
            (
                #"{"name": "x", \#(closed), "assertions": ["send.ok >= nan"]}"#,
                "assertions[0]: 'send.ok >= nan': nan is not a finite"
            ),
            (
                #"{"name": "x", \#(closed), "assertions": ["send.ok < inf"]}"#,
                "assertions[0]: 'send.ok < inf': inf is not a finite"
            ),
            (
                #"{"name": "x", "load": {"type": "closed", "concurrency": 1, "sends": 99999999999999999999999}}"#,
                "load.sends: must be 1-10000000, not 1e+23"
            ),
            (
                #"{"name": "x", "load": {"type": "closed", "sends": 1, "concurrency": 1e+30}, "client": {"maxRetries": 1}}"#,
                "load.concurrency: must be 1-100000, not 1e+30"
            ),
            (
                #"{"name": "x", \#(closed), "client": {"maxRetries": -1e+19}}"#,
                "client.maxRetries: must be 0-100, not -1e+19"
            ),
            (#"{\#(closed)}"#, "name: is required"),
            (
                #"{"name": "x", "load": {"type": "open", "rate": 5, "duration": "1s", "stages": [{"rate": 1, "duration": "1s"}]}}"#,
                "load.stages: give rate (with duration) or stages, not both"
            ),
            (
                "{\"name\": \"" + String(repeating: "n", count: 101) + "\", \(closed)}",
                "name: is 101 bytes long; at most 100"
            ),
            (
                "{\"name\": \"x\", \"description\": \"" + String(repeating: "d", count: 2001) + "\", \(closed)}",
                "description: is 2001 characters long; at most 2000"
            ),
            (
                #"{"name": "x", \#(closed), "plan": {"rules": [{"match": {"endpoint": "sned"}, "action": {"type": "hang"}}]}}"#,
                "plan.rules[0].match.endpoint: 'sned' is not one of"
            ),
        ])
    func jsonErrors(json: String, expected: String) {
        let reason = Self.reason(json)
        #expect(reason.hasPrefix(expected), "got \(reason)")
    }

    @Test(
        "plan values that would reach the wire unchecked are refused",
        arguments: [
            (
                #"{"type": "respond", "status": 503, "headers": {"X-A": "1\r\nSet-Cookie: x"}}"#,
                "plan.rules[0].action.headers.X-A"
            ),
            (
                #"{"type": "respond", "status": 503, "headers": {"Bad Name": "1"}}"#,
                "plan.rules[0].action.headers.Bad Name"
            ),
            (#"{"type": "respond", "status": 503, "headers": {"Content-Length": "1"}}"#, "is set by the server itself"),
            (
                #"{"type": "respond", "status": 503, "retryAfter": "1\r\nX-Injected: 1"}"#,
                "plan.rules[0].action.retryAfter: must be printable"
            ),
        ])
    func wireValues(action: String, expected: String) {
        let reason = Self.reason(#"{"name": "x", \#(Self.closed), \#(Self.plan(action))}"#)
        #expect(reason.contains(expected), "got \(reason)")
    }
}
