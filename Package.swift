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
        .target(
            name: "FakeFrontmail",
            dependencies: ["Frontmail"]
        ),
        .testTarget(
            name: "FrontmailTests",
            dependencies: ["Frontmail"]
        ),
        .testTarget(
            name: "FakeFrontmailTests",
            dependencies: ["FakeFrontmail", "Frontmail"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
