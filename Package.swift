// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "frontmail-swift",
    platforms: [.iOS(.v15), .macOS(.v12), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "Frontmail", targets: ["Frontmail"])
    ],
    targets: [
        .target(
            name: "Frontmail",
            resources: [.copy("PrivacyInfo.xcprivacy")]
        ),
        .target(name: "CFakeFrontmailSystem"),
        // The suite's deliberately broken clients, built on the SDK's seams (transport, clock,
        // observer, entropy, budget bucket): the SDK itself ships none of them.
        .target(
            name: "FrontmailMutants",
            dependencies: ["Frontmail"]
        ),
        // Virtual time: a deterministic executor and its clock, for any test or tool that runs the
        // SDK, the fake and a load in one simulated run (docs/simulation.md).
        .target(
            name: "Simulator",
            dependencies: ["Frontmail", "CFakeFrontmailSystem"]
        ),
        .target(
            name: "FakeFrontmail",
            dependencies: ["Frontmail", "CFakeFrontmailSystem"]
        ),
        .target(name: "CProcessMemory"),
        // Runs a certified client under a guard process that leaves nothing of it running.
        .target(name: "CProcessGuard"),
        .target(
            name: "LoadKit",
            dependencies: [
                "Frontmail", "FrontmailMutants", "FakeFrontmail", "Simulator", "CProcessMemory", "CProcessGuard",
            ]
        ),
        // The command line on top of LoadKit: each command parses, makes one call and prints.
        .target(
            name: "FrontmailBenchCLI",
            dependencies: ["LoadKit", "FakeFrontmail", "Frontmail", "FrontmailMutants", "Simulator"]
        ),
        .executableTarget(
            name: "frontmail-bench",
            dependencies: ["FrontmailBenchCLI"]
        ),
        // The Swift SDK as a `certify` client (docs/certify.md), broken on request.
        .executableTarget(
            name: "frontmail-certify-client",
            dependencies: ["LoadKit", "FrontmailMutants"]
        ),
        .target(
            name: "BenchKit",
            dependencies: ["LoadKit", "CAllocationCounter"],
            path: "Benchmarks/BenchKit"
        ),
        .executableTarget(
            name: "EncoderBenchmarks",
            dependencies: ["BenchKit", "Frontmail"],
            path: "Benchmarks/EncoderBenchmarks"
        ),
        .executableTarget(
            name: "SendPathBenchmarks",
            dependencies: ["BenchKit", "FakeFrontmail", "Frontmail"],
            path: "Benchmarks/SendPathBenchmarks"
        ),
        .executableTarget(
            name: "CancelLatency",
            dependencies: ["LoadKit"],
            path: "Benchmarks/CancelLatency"
        ),
        .executableTarget(
            name: "URLSessionStress",
            dependencies: ["LoadKit", "FakeFrontmail", "Frontmail"],
            path: "Benchmarks/URLSessionStress"
        ),
        .testTarget(
            name: "FrontmailTests",
            dependencies: ["Frontmail", "FrontmailMutants", "TestSupport"],
            // Read by path (#filePath): the Retry-After values other projects' suites assert.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "SimulatorTests",
            dependencies: ["Simulator", "FakeFrontmail", "Frontmail"]
        ),
        // What the test targets share: a task executor with a thread of its own, and the trait that
        // runs a suite's CPU-bound tests on it.
        .target(
            name: "TestSupport",
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "FakeFrontmailTests",
            dependencies: ["FakeFrontmail", "Frontmail", "TestSupport"]
        ),
        .testTarget(
            name: "LoadKitTests",
            dependencies: [
                "LoadKit", "FakeFrontmail", "Simulator", "Frontmail", "FrontmailMutants", "CProcessGuard",
                "TestSupport",
            ],
            // Read by path (#filePath), not bundled: the report's fixed result set and its golden files.
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "FrontmailBenchCLITests",
            dependencies: ["FrontmailBenchCLI", "LoadKit", "FakeFrontmail", "Frontmail", "FrontmailMutants"]
        ),
        .testTarget(
            name: "BenchKitTests",
            dependencies: ["BenchKit", "LoadKit"]
        ),
        // Allocation counts from jemalloc's hooks when the benchmarks' allocation pass runs with
        // jemalloc preloaded; found at run time, so nothing about jemalloc is decided at build time.
        .target(
            name: "CAllocationCounter",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// scripts/sanitize.sh builds one part of the package under each sanitizer (FRONTMAIL_PACKAGE_PART=sanitized):
// the SDK, the fake and their tests, and frontmail-bench for the socket scenarios. The other test
// targets and the benchmarks never run sanitized; building them too took a sanitized build from
// about 2 to 5 minutes on 2 cores.
if let part = Context.environment["FRONTMAIL_PACKAGE_PART"] {
    guard part == "sanitized" else { fatalError("FRONTMAIL_PACKAGE_PART may only be sanitized, not \(part)") }
    let kept: Set<String> = [
        "Frontmail", "FrontmailMutants", "CFakeFrontmailSystem", "FakeFrontmail", "Simulator", "CProcessMemory",
        "CProcessGuard", "LoadKit", "FrontmailBenchCLI", "frontmail-bench", "TestSupport", "FrontmailTests",
        "FakeFrontmailTests",
    ]
    package.targets.removeAll { !kept.contains($0.name) }
}
