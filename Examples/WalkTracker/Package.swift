// swift-tools-version:6.2
// An app as a package with tests: its motion code in a library (`WalkTracking`), the program that shows it
// (`WalkTracker`), and a test target that replays a walk recorded on an iPhone through CoreMotionTesting.
// The app depends on the `CoreMotion` product only; the tests add `CoreMotionTesting`.
import PackageDescription

let package = Package(
    name: "WalkTracker",
    dependencies: [
        // In your own app: .package(url: "https://github.com/<owner>/swift-core-motion", from: "0.5.0")
        .package(name: "swift-core-motion", path: "../.."),
    ],
    targets: [
        // The model: a walk's steps and distance from CMPedometer.
        .target(
            name: "WalkTracking",
            dependencies: [.product(name: "CoreMotion", package: "swift-core-motion")]
        ),
        .executableTarget(
            name: "WalkTracker",
            dependencies: ["WalkTracking", .product(name: "CoreMotion", package: "swift-core-motion")]
        ),
        // The model's tests on a bundled recording (Recordings/: 20 s of a MotionSense walk, MIT).
        .testTarget(
            name: "WalkTrackingTests",
            dependencies: [
                "WalkTracking",
                .product(name: "CoreMotion", package: "swift-core-motion"),
                .product(name: "CoreMotionTesting", package: "swift-core-motion"),
            ],
            resources: [.copy("Recordings")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
