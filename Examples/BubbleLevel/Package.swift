// swift-tools-version:6.2
// An app that uses swift-core-motion as any app would: the `CoreMotion` product only.
import PackageDescription

let package = Package(
    name: "BubbleLevel",
    dependencies: [
        // In your own app: .package(url: "https://github.com/<owner>/swift-core-motion", from: "0.5.0")
        .package(name: "swift-core-motion", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "BubbleLevel",
            dependencies: [.product(name: "CoreMotion", package: "swift-core-motion")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
