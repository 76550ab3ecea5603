import Testing

/// Runs each test of a suite (each case of a parameterized one) on a thread of its own
/// (`DedicatedExecutor`), for CPU-bound tests of seconds: run on Swift's cooperative pool (one thread
/// per core), two of them held it for 30-50 s in a full `swift test` on two cores, and the tests
/// whose clients wait on the real clock beside them missed their timeouts. The test still runs in
/// its own task, so its expectations are recorded as any test's.
public struct OwnThreadTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public init() {}

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil else { return try await function() }
        try await withTaskExecutorPreference(DedicatedExecutor(label: "test \(test.name)")) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test on a thread of its own, off the cooperative pool.
    public static var onItsOwnThread: Self { Self() }
}
