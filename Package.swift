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
    ],
    swiftLanguageModes: [.v6]
)
