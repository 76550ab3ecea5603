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
        .testTarget(
            name: "FrontmailTests",
            dependencies: ["Frontmail"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
