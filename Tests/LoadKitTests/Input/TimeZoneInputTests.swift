import Foundation
import TestSupport
import Testing

@testable import LoadKit

/// A scenario's `timeZone`: the `TZ` of its own process, checked where it is read, and set in the
/// child that runs it.
@Suite("scenario time zones: read with range checks, fuzzed, set in the scenario's child", .onItsOwnThread)
struct TimeZoneInputTests {
    static func scenario(zone: String) -> String {
        #"{"name": "z", "timeZone": \#(zone), "load": {"type": "closed", "concurrency": 1, "sends": 1}}"#
    }

    @Test(
        "a known IANA zone is kept",
        arguments: ["Pacific/Kiritimati", "Etc/GMT+12", "UTC", "America/Argentina/Buenos_Aires"])
    func known(zone: String) throws {
        #expect(try makeScenario(Self.scenario(zone: "\"\(zone)\"")).timeZone == zone)
    }

    @Test(
        "a zone that is not a name, not known here or not a string names the field",
        arguments: [
            ("\"\"", "timeZone: must be an IANA time zone name"),
            ("\"../../etc/passwd\"", "timeZone: must be an IANA time zone name"),
            ("\"/etc/localtime\"", "timeZone: must be an IANA time zone name"),
            ("\"Mars/Olympus_Mons\"", "timeZone: 'Mars/Olympus_Mons' is not a time zone this machine knows"),
            ("\"UTC;rm -rf\"", "timeZone: must be an IANA time zone name"),
            ("\"" + String(repeating: "A", count: 65) + "\"", "timeZone: must be an IANA time zone name"),
            ("14", "timeZone"),
        ])
    func refused(zone: String, reason: String) {
        let message = InputHardeningTests.reason(Self.scenario(zone: zone))
        #expect(message.contains(reason), "\(message)")
    }

    @Test("fuzzed zone names never trap: kept only when this machine knows them")
    func fuzz() {
        let alphabet = Array("abcXYZ019/_+-.;$ \\\"Etc/GMT+12Pacific")
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let zone = String(
                (0..<Int.random(in: 0...20, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let escaped = zone.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            if let scenario = try? makeScenario(Self.scenario(zone: "\"\(escaped)\"")) {
                #expect(scenario.timeZone.flatMap { TimeZone(identifier: $0) } != nil, "\(zone)")
            }
        }
    }

    @Test("the child gets the scenario's TZ on top of this process's environment")
    func childEnvironment() throws {
        let set = ChildProcess.environment(overriding: ["TZ": "Pacific/Kiritimati"])
        defer { for pointer in set { free(pointer) } }
        let entries = set.compactMap { $0.map { String(cString: $0) } }
        #expect(entries.filter { $0.hasPrefix("TZ=") } == ["TZ=Pacific/Kiritimati"])
        #expect(set.last == .some(nil))
        let child = try #require(
            ChildProcess.spawn("/bin/sh", ["-c", "printf %s \"$TZ\""], environment: ["TZ": "Etc/GMT+12"]))
        let output = FileHandle(fileDescriptor: child.stdout, closeOnDealloc: true).readDataToEndOfFile()
        var status: Int32 = 0
        waitpid(child.pid, &status, 0)
        #expect(String(decoding: output, as: UTF8.self) == "Etc/GMT+12")
    }

    @Test("the standard suite runs HTTP-date Retry-After scenarios far from UTC, on both sides")
    func standardSuite() throws {
        let zones = try ["rate-limit-retry-after-http-date", "retry-after-spellings"].map {
            try PolicyBoundaryTests.scenario($0).timeZone.flatMap { TimeZone(identifier: $0) }
        }
        let offsets = zones.compactMap { $0?.secondsFromGMT() }
        #expect(offsets.count == 2 && offsets.contains { $0 >= 12 * 3600 } && offsets.contains { $0 <= -10 * 3600 })
    }

    @Test("client.instances is 1-1000", arguments: [(0, false), (1, true), (1000, true), (1001, false), (-3, false)])
    func instances(count: Int, kept: Bool) {
        let load = #""load": {"type": "closed", "concurrency": 1, "sends": 1}"#
        let json = #"{"name": "i", "client": {"instances": \#(count)}, \#(load)}"#
        let message = InputHardeningTests.reason(json)
        #expect(kept ? message == "no error" : message.contains("client.instances: must be 1-1000"), "\(message)")
    }
}
