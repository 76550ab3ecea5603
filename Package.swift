// swift-tools-version:6.0
import Foundation
import PackageDescription

// jemalloc (Debian: libjemalloc-dev) gives the benchmarks exact allocation counts. It is detected,
// never required: without it the counter target builds as stubs and allocation columns say n/a.
let jemallocHeaders = [
    "/usr/include/jemalloc/jemalloc.h", "/usr/local/include/jemalloc/jemalloc.h",
    "/opt/homebrew/include/jemalloc/jemalloc.h",
]
let hasJemalloc =
    ProcessInfo.processInfo.environment["FRONTMAIL_NO_JEMALLOC"] == nil
    && jemallocHeaders.contains { FileManager.default.fileExists(atPath: $0) }

var allocationCounter: [Target] = [
    .target(
        name: "CAllocationCounter",
        dependencies: hasJemalloc ? ["CJemalloc"] : [],
        cSettings: hasJemalloc ? [.define("FRONTMAIL_HAVE_JEMALLOC")] : []
    )
]
if hasJemalloc {
    allocationCounter.append(
        .systemLibrary(
            name: "CJemalloc", pkgConfig: "jemalloc", providers: [.apt(["libjemalloc-dev"]), .brew(["jemalloc"])]))
}

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
        .target(
            name: "FakeFrontmail",
            dependencies: ["Frontmail", "CFakeFrontmailSystem"]
        ),
        .target(
            name: "LoadKit",
            dependencies: ["Frontmail", "FakeFrontmail"]
        ),
        .executableTarget(
            name: "frontmail-bench",
            dependencies: ["LoadKit"]
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
        .testTarget(
            name: "FrontmailTests",
            dependencies: ["Frontmail"]
        ),
        .testTarget(
            name: "FakeFrontmailTests",
            dependencies: ["FakeFrontmail", "Frontmail"]
        ),
        .testTarget(
            name: "LoadKitTests",
            dependencies: ["LoadKit", "FakeFrontmail", "Frontmail"]
        ),
        .testTarget(
            name: "BenchKitTests",
            dependencies: ["BenchKit", "LoadKit"]
        ),
    ] + allocationCounter,
    swiftLanguageModes: [.v6]
)
