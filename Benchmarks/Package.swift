// swift-tools-version:6.1
// Benchmarks live in their own package so that users of the library never fetch benchmark dependencies.
// Run from this folder:  swift package --disable-sandbox benchmark
import PackageDescription

let benchmarkDependencies: [Target.Dependency] = [
    .product(name: "Benchmark", package: "benchmark"),
]
let plugins: [Target.PluginUsage] = [.plugin(name: "BenchmarkPlugin", package: "benchmark")]

let package = Package(
    name: "CoreMotionBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-core-motion", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.0", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "ReplayBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "CoreMotion", package: "swift-core-motion"),
                .product(name: "CoreMotionTesting", package: "swift-core-motion"),
                .product(name: "MotionRecordings", package: "swift-core-motion"),
            ],
            path: "ReplayBenchmarks",
            plugins: plugins
        ),
        .executableTarget(
            name: "FusionBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "MotionEngine", package: "swift-core-motion"),
                .product(name: "MotionRecordings", package: "swift-core-motion"),
            ],
            path: "FusionBenchmarks",
            plugins: plugins
        ),
        .executableTarget(
            name: "PedometerBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "MotionEngine", package: "swift-core-motion"),
                .product(name: "MotionRecordings", package: "swift-core-motion"),
            ],
            path: "PedometerBenchmarks",
            plugins: plugins
        ),
        .executableTarget(
            name: "IIOBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "MotionIIO", package: "swift-core-motion"),
                .product(name: "MotionEmulation", package: "swift-core-motion"),
            ],
            path: "IIOBenchmarks",
            plugins: plugins
        ),
        .executableTarget(
            name: "ServiceBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "CoreMotion", package: "swift-core-motion"),
                .product(name: "MotionDaemon", package: "swift-core-motion"),
                .product(name: "MotionDaemonClient", package: "swift-core-motion"),
            ],
            path: "ServiceBenchmarks",
            plugins: plugins
        ),
        .executableTarget(
            name: "NetworkBenchmarks",
            dependencies: benchmarkDependencies + [
                .product(name: "MotionNetwork", package: "swift-core-motion"),
                // SensorLoggerPushWriter: the load generator's phones.
                .product(name: "MotionEmulation", package: "swift-core-motion"),
            ],
            path: "NetworkBenchmarks",
            plugins: plugins
        ),
    ],
    swiftLanguageModes: [.v6]
)
