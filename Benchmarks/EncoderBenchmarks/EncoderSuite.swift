import BenchKit
import FakeFrontmail
import Foundation
import Frontmail
import LoadKit

/// The profiles × encoders of the encoder benchmark.
enum EncoderSuite {
    struct Mismatch: Error, CustomStringConvertible {
        var what: String
        var description: String { "outputs are not equivalent: \(what)" }
    }

    /// The positive control's built-in slowdown (the small-form writer done 1.3 times).
    static let controlSlowdown = 1.3

    /// Nonisolated: the workloads are made and called off the main actor, so no call hops between
    /// executors.
    /// The groups `run` measures (what `--profile GROUP/WORKLOAD` may name).
    static let groups = ["small_form", "order_20_items", "nested_64kb", "encodable_with_dates", "attachment_1mb"]

    static func run(_ runner: InterleavedRunner) async throws -> (
        rows: [SummaryRow], checks: [RatioCheck], controls: [PositiveControl], budgets: [AllocationTarget]
    ) {
        var rows: [SummaryRow] = []
        var checks: [RatioCheck] = []
        var controls: [PositiveControl] = []
        let valueProfiles: [(String, FrontmailValue, Double?)] = [
            ("small_form", .object(Payloads.smallForm), 15),
            ("order_20_items", .object(Payloads.order), nil),
            ("nested_64kb", .object(Payloads.nested), 5),
        ]
        for (name, value, target) in valueProfiles {
            var workloads = try valueWorkloads(name, value)
            if name == "small_form" { workloads.append(workloads[0].slowed(by: controlSlowdown)) }
            let measured = await runner.measure(group: name, workloads)
            rows += measured.results.flatMap { $0.rows(benchmark: "encoder") }
            checks.append(
                RatioCheck(
                    group: name, subject: "frontmail_value", baseline: "json_encoder",
                    estimate: measured.ratio("frontmail_value", against: "json_encoder"), target: target))
            if name == "small_form" {
                controls.append(
                    PositiveControl(
                        group: name, subject: "frontmail_value", baseline: "json_encoder", built: controlSlowdown,
                        in: measured))
            }
        }
        let encodable = await runner.measure(group: "encodable_with_dates", try encodableWorkloads())
        rows += encodable.results.flatMap { $0.rows(benchmark: "encoder") }
        checks.append(
            RatioCheck(
                group: "encodable_with_dates", subject: "encodable_path", baseline: "json_encoder",
                estimate: encodable.ratio("encodable_path", against: "json_encoder"), target: 2.5))
        let base64 = await runner.measure(group: "attachment_1mb", try base64Workloads())
        rows += base64.results.flatMap { $0.rows(benchmark: "encoder") }
        checks.append(
            RatioCheck(
                group: "attachment_1mb", subject: "sdk_base64", baseline: "foundation_base64",
                estimate: base64.ratio("sdk_base64", against: "foundation_base64"), target: 2))
        checks.append(
            RatioCheck(
                group: "attachment_1mb", subject: "sdk_base64", baseline: "memcpy",
                estimate: base64.ratio("sdk_base64", against: "memcpy"), target: nil))
        // Counted by the allocation pass, so judged when the rows are written.
        return (rows, checks, controls, [AllocationTarget(group: "small_form", subject: "frontmail_value", limit: 3)])
    }

    /// JSON equality with numbers compared by value (JSONEncoder writes 13.0 as 13).
    static func equivalent(_ a: FrontmailValue, _ b: FrontmailValue) -> Bool {
        switch (a, b) {
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1) }
        case (.object(let x), .object(let y)):
            return x.count == y.count && x.allSatisfy { key, value in y[key].map { equivalent(value, $0) } ?? false }
        default:
            if let x = a.doubleValue, let y = b.doubleValue { return x == y }
            return a == b
        }
    }

    static func writerOutput(_ members: [String: FrontmailValue]) -> Data {
        var writer = JSONWriter(capacity: 512)
        try? writer.writeObject(members)
        return writer.data()
    }

    /// The SDK's writer first (the control copies it), then its baselines.
    static func valueWorkloads(_ name: String, _ value: FrontmailValue) throws -> [Workload] {
        guard case .object(let members) = value else { return [] }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let foundationObject = try JSONSerialization.jsonObject(with: writerOutput(members))
        let ours = writerOutput(members)
        let viaEncoder = try encoder.encode(value)
        let viaSerialization = try JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys])
        for (label, data) in [("JSONEncoder", viaEncoder), ("JSONSerialization", viaSerialization)] {
            guard try equivalent(JSONReader.parse(data), JSONReader.parse(ours)) else {
                throw Mismatch(what: "\(name): \(label)")
            }
        }
        let size = ours.count
        var destination = [UInt8](repeating: 0, count: size)
        let source = [UInt8](ours)
        return [
            Workload("frontmail_value", bytesPerOperation: size) {
                blackHole(writerOutput(members))
            },
            Workload("json_encoder", bytesPerOperation: size) {
                blackHole(try? encoder.encode(value))
            },
            Workload("json_serialization", bytesPerOperation: size) {
                blackHole(try? JSONSerialization.data(withJSONObject: foundationObject, options: [.sortedKeys]))
            },
            Workload("memcpy", bytesPerOperation: size) {
                destination.withUnsafeMutableBytes { target in
                    source.withUnsafeBytes { target.copyMemory(from: $0) }
                }
                blackHole(destination)
            },
        ]
    }

    static func encodableWorkloads() throws -> [Workload] {
        let order = PayloadFactory.encodableOrder(sendID: 7, variant: 1)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        // What `send` does with Encodable params.
        func encodablePath() -> Data {
            var writer = JSONWriter(capacity: 512)
            try? Frontmail.writeParams(order, into: &writer)
            return writer.data()
        }
        let ours = encodablePath()
        guard try equivalent(JSONReader.parse(ours), JSONReader.parse(encoder.encode(order))) else {
            throw Mismatch(what: "encodable_with_dates: JSONEncoder")
        }
        return [
            Workload("encodable_path", bytesPerOperation: ours.count) {
                blackHole(encodablePath())
            },
            Workload("json_encoder", bytesPerOperation: ours.count) {
                blackHole(try? encoder.encode(order))
            },
        ]
    }

    static func base64Workloads() throws -> [Workload] {
        var generator = SeededRandom(seed: 5)
        let attachment = Data((0..<1_000_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
        func sdkBase64() -> Data {
            var writer = JSONWriter(capacity: Base64.encodedCount(attachment.count) + 2)
            writer.writeBase64String(attachment)
            return writer.data()
        }
        guard String(decoding: sdkBase64(), as: UTF8.self) == "\"\(attachment.base64EncodedString())\"" else {
            throw Mismatch(what: "base64")
        }
        let size = Base64.encodedCount(attachment.count)
        // The physical limit: copying a buffer of the output's size into a fresh one.
        let output = Data(count: size)
        return [
            Workload("sdk_base64", bytesPerOperation: size) {
                blackHole(sdkBase64())
            },
            Workload("foundation_base64", bytesPerOperation: size) {
                blackHole(attachment.base64EncodedString())
            },
            Workload("memcpy", bytesPerOperation: size) {
                var writer = JSONWriter(capacity: size)
                output.withUnsafeBytes { writer.writeBytes($0) }
                blackHole(writer.data())
            },
        ]
    }
}

/// The payload profiles, with the harness's own shapes.
enum Payloads {
    static let smallForm: [String: FrontmailValue] = {
        var form = PayloadFactory.contactForm
        form["bench_send_id"] = 7
        return form
    }()

    static let order: [String: FrontmailValue] = PayloadFactory.order

    static let nested: [String: FrontmailValue] = PayloadFactory.largeNested
}
