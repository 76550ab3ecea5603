import Foundation

// libFuzzer's entry point for the SDK's server readers. scripts/fuzz.sh compiles it with the SDK's
// sources and Tests/FrontmailTests/Fuzz/ServerReaderChecks.swift, and names the reader to fuzz in
// FRONTMAIL_FUZZ_TARGET; a violation of the reader's contract traps, which the fuzzer reports as a
// crash with its input.
private let fuzzCheck: @Sendable ([UInt8]) -> String? = {
    let name = ProcessInfo.processInfo.environment["FRONTMAIL_FUZZ_TARGET"] ?? ""
    guard let check = ServerReaderChecks.targets[name] else {
        let names = ServerReaderChecks.targets.keys.sorted().joined(separator: ", ")
        fatalError("FRONTMAIL_FUZZ_TARGET must name a reader (\(names)), not \(name.debugDescription)")
    }
    return check
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func frontmailFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let violation = fuzzCheck(Array(UnsafeBufferPointer(start: data, count: size))) {
        fatalError(violation)
    }
    return 0
}
