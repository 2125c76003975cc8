// swift-tools-version:6.2
// An app that only talks to the system service `coremotiond`: the `CoreMotion` product without the package's
// default trait `InProcessDevices`, so that it links the API and the daemon connection only (no HTTP server,
// no SQLite, no recording reader, no simulator, no emulator; BENCHMARKS.md §10 measures it). Its tests use
// CoreMotionTesting (recordings, the simulator), which builds without the HTTP server and SQLite too.
import PackageDescription

let package = Package(
    name: "DaemonOnly",
    dependencies: [
        // In your own app: .package(url: "https://github.com/<owner>/swift-core-motion", from: "0.5.0", traits: [])
        .package(name: "swift-core-motion", path: "../..", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "DaemonOnly",
            dependencies: [.product(name: "CoreMotion", package: "swift-core-motion")]
        ),
        // The app's tests: its code on recordings and the simulator (CoreMotionTesting), still without the
        // HTTP server and SQLite.
        .testTarget(
            name: "DaemonOnlyTests",
            dependencies: [
                "DaemonOnly",
                .product(name: "CoreMotion", package: "swift-core-motion"),
                .product(name: "CoreMotionTesting", package: "swift-core-motion"),
            ],
            resources: [.copy("Recordings")]  // a Sensor Logger export, so that the tests run wherever the package is
        ),
    ],
    swiftLanguageModes: [.v6]
)
