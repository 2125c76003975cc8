// swift-tools-version:6.2
// swift-core-motion: Apple's Core Motion API on Linux, fed by IIO sensors, recordings and a simulator.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// A product of a package that only the default configuration uses (the HTTP server, the tools' argument
/// parser, service lifecycle, the PostgreSQL client): guarded by `InProcessDevices`, so that an app built
/// without the trait does not even resolve its package (SwiftPM prunes a dependency every reference of which
/// is trait-guarded).
func withDevices(_ name: String, _ package: String) -> Target.Dependency {
    .product(name: name, package: package, condition: .when(traits: ["InProcessDevices"]))
}

/// GRDB (SQLite), guarded by `SQLiteHistory` in the same way.
let grdb = Target.Dependency.product(name: "GRDB", package: "GRDB.swift", condition: .when(traits: ["SQLiteHistory"]))

let package = Package(
    name: "swift-core-motion",
    platforms: [.macOS(.v15)],
    products: [
        // Apple's API, under Apple's module name.
        .library(name: "CoreMotion", targets: ["CoreMotion"]),
        // Deterministic devices on a virtual clock for an app's own tests (the idea of NIOEmbedded).
        .library(name: "CoreMotionTesting", targets: ["CoreMotionTesting"]),
        // The layers below the API, for tools and advanced users.
        .library(name: "MotionEngine", targets: ["MotionEngine"]),
        .library(name: "MotionRecordings", targets: ["MotionRecordings"]),
        .library(name: "MotionIIO", targets: ["MotionIIO"]),
        // Stand-ins for hardware, for tests, benchmarks and fuzzers (no app links it): fake IIO trees and the
        // emulator that feeds them; fake phones (phyphox, SensorServer) and Sensor Logger's push bodies.
        .library(name: "MotionEmulation", targets: ["MotionEmulation"]),
        // Live phones over the network (Sensor Logger's HTTP push, …), for tools, benchmarks and fuzzers.
        .library(name: "MotionNetwork", targets: ["MotionNetwork"]),
        // The system service's parts, for tools that talk to `coremotiond` directly, benchmarks and fuzzers.
        .library(name: "MotionDaemonClient", targets: ["MotionDaemonClient"]),
        .library(name: "MotionDaemon", targets: ["MotionDaemon"]),
        .library(name: "MotionProtocol", targets: ["MotionProtocol"]),
        // The history in PostgreSQL: coremotiond and coremotion link it; an app that wants
        // COREMOTION_HISTORY=postgres://… in its own process depends on it and calls PostgresHistoryStore.register().
        .library(name: "MotionHistoryPostgres", targets: ["MotionHistoryPostgres"]),
        // Raw pushes of ingest nodes and their spool (also for the fuzzers).
        .library(name: "MotionIngest", targets: ["MotionIngest"]),
        // `coremotion view`'s page↔server messages, for its fuzzer.
        .library(name: "MotionLiveViewProtocol", targets: ["MotionLiveViewProtocol"]),
        .executable(name: "coremotion", targets: ["CoreMotionCLI"]),
        // The motion coprocessor as a Linux system service.
        .executable(name: "coremotiond", targets: ["CoreMotionDaemon"]),
    ],
    // `InProcessDevices` (on by default): the API can open devices in the app's own process (recordings, the
    // simulator, Linux IIO sensors, phones over the network). `SQLiteHistory` (on by default): a process keeps
    // pedometer, activity and accelerometer history in SQLite. An app that only talks to `coremotiond`
    // declares `traits: []` and links the client interface and the daemon connection only: no HTTP server,
    // no SQLite, no recording reader, no simulator, no emulator (Examples/DaemonOnly, BENCHMARKS.md §10); its
    // tests may still use `CoreMotionTesting` (recordings and the simulator, no history). The tools and the
    // daemon need both.
    traits: [
        .trait(
            name: "InProcessDevices",
            description: "Open devices in the app's process (COREMOTION_DEVICE=replay:, sim:, iio, phones); without it the API talks only to coremotiond."
        ),
        .trait(
            name: "SQLiteHistory",
            description: "Keep motion history in process in SQLite (GRDB); without it a process's own history is unavailable (coremotiond keeps it)."
        ),
        .default(enabledTraits: ["InProcessDevices", "SQLiteHistory"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/weichsel/ZIPFoundation", from: "0.9.19"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The PostgreSQL history (MotionHistoryPostgres).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
        // NIOHTTPTypes: the Sensor Logger receiver's connection guard sees Hummingbird's HTTP parts (already a
        // dependency of Hummingbird).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.20.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        // The HTTP server of the network devices (MotionNetwork). No default traits: neither
        // swift-configuration nor the full-Foundation extras are needed.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // `coremotion view`: its WebSocket stream.
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        // Plugin only (`swift package generate-documentation`): no target links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        // Layer 1–2: sample value types, vector maths, clocks and the device protocol.
        .target(name: "MotionSamples", swiftSettings: strict),
        // Layer 1: recordings of real phones (every reader converts to Apple's axes and units) and replay.
        .target(
            name: "MotionRecordings",
            dependencies: ["MotionSamples", .product(name: "ZIPFoundation", package: "ZIPFoundation")],
            swiftSettings: strict
        ),
        // Layer 1: physics-based simulator with a sensor error model.
        .target(name: "MotionSimulator", dependencies: ["MotionSamples"], swiftSettings: strict),
        // Layer 1: Linux Industrial I/O sensors.
        .target(
            name: "MotionIIO",
            dependencies: ["MotionSamples", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Layer 1: live phones over the network: Sensor Logger's HTTP push (a Hummingbird server), phyphox (REST
        // polling) and SensorServer (WebSocket) on SwiftNIO, with the pieces every network source shares (phone
        // clock mapping, jitter buffer, live device).
        .target(
            name: "MotionNetwork",
            dependencies: [
                "MotionSamples", "MotionRecordings",
                .product(name: "Logging", package: "swift-log"),
                withDevices("Hummingbird", "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                withDevices("NIOHTTPTypes", "swift-nio-extras"),
                withDevices("ServiceLifecycle", "swift-service-lifecycle"),
            ],
            swiftSettings: strict
        ),
        // Layer 1 (testing): stand-ins for hardware: fake IIO trees with real drivers' layouts and the emulator
        // that plays samples into them; fake phyphox and SensorServer phones (SwiftNIO servers speaking
        // MotionNetwork's message types) and the writer of Sensor Logger's push bodies. For the tool's
        // `iio-emulate` and `phone-emulate`, tests, benchmarks and fuzzers; not the daemon's.
        .target(
            name: "MotionEmulation",
            dependencies: [
                "MotionSamples", "MotionIIO", "MotionNetwork",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Layer 3: pure algorithms: fusion, steps, activity, altitude, geomagnetism.
        .target(name: "MotionEngine", dependencies: ["MotionSamples"], resources: [.copy("Resources")], swiftSettings: strict),
        // Layer 3 (tool): the engines scored on recorded data sets, the activity model's training. For the
        // tool and the tests; no app links it.
        .target(
            name: "MotionEvaluation",
            dependencies: ["MotionSamples", "MotionEngine", "MotionRecordings", "MotionSimulator"],
            swiftSettings: strict
        ),
        // Layer 5: pedometer and activity history in SQLite.
        .target(
            name: "MotionHistory",
            dependencies: ["MotionSamples", grdb],
            swiftSettings: strict
        ),
        // Layer 5: what ingest nodes store for phones: raw pushes and the local spool that keeps them while the
        // database is away; the lease and records of phones' engines. No database here: the PostgreSQL history
        // stores them (RawPushStorage, PhoneEngineStorage).
        .target(
            name: "MotionIngest",
            dependencies: ["MotionSamples", "MotionHistory", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")],
            swiftSettings: strict
        ),
        // Layer 5: the same history in PostgreSQL, shared by many machines and ingest nodes.
        .target(
            name: "MotionHistoryPostgres",
            dependencies: [
                "MotionHistory", "MotionIngest", "MotionSamples",
                // Guarded like the HTTP server: an app built without the default traits (a daemon-only client)
                // does not resolve postgres-nio and its TLS and crypto packages at all.
                withDevices("PostgresNIO", "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Layer 4 boundary: the one client interface the API talks to (value types, subscriptions, queue
        // delivery), with two implementations: the in-process service and the connection to `coremotiond`.
        .target(
            name: "MotionClient",
            dependencies: [
                "MotionSamples",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Layer 1→4 composition: chooses and opens devices from a specification (`COREMOTION_DEVICE`,
        // `COREMOTION_HEADPHONE_DEVICE`, the daemon's `--device`). The only module that knows every kind of device.
        .target(
            name: "MotionDevices",
            dependencies: ["MotionSamples", "MotionRecordings", "MotionSimulator", "MotionIIO", "MotionNetwork", "MotionEngine"],
            swiftSettings: strict
        ),
        // Layer 4: the service over `any MotionDevice`: engines run once, fan-out, decimation, history recording.
        .target(
            name: "MotionService",
            dependencies: [
                "MotionClient", "MotionSamples", "MotionEngine", "MotionHistory",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        // Layer 4 (system service): the wire protocol between `coremotiond` and its clients. Bytes in, frames
        // out: no I/O (NIOCore only for its byte buffers), so that the decoder can be fuzzed alone.
        .target(
            name: "MotionProtocol",
            dependencies: ["MotionSamples", "MotionClient", .product(name: "NIOCore", package: "swift-nio")],
            swiftSettings: strict
        ),
        // Layer 4 (system service): who a peer is and what it may do: per-user, per-app decisions and the
        // administrator's policy.
        .target(
            name: "MotionAuthorization",
            dependencies: ["MotionSamples", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        // Layer 4 (system service): systemd socket activation and readiness notification, without libsystemd;
        // the unit files.
        .target(name: "MotionSystemd", swiftSettings: strict),
        // Layer 4 (system service): `coremotiond`'s library: one service for every process over a Unix socket.
        .target(
            name: "MotionDaemon",
            dependencies: [
                "MotionService", "MotionDevices", "MotionProtocol", "MotionAuthorization", "MotionClient", "MotionSamples",
                "MotionHistory", "MotionIngest", "MotionNetwork",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                withDevices("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // Layer 4 (system service): a process's connection to `coremotiond`, the second implementation of
        // the client interface.
        .target(
            name: "MotionDaemonClient",
            dependencies: [
                "MotionClient", "MotionProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Layer 6: Apple's names. Talks to the client interface only (`MotionClient`); the other imports only
        // choose which implementation a process uses. In-process devices come with the `InProcessDevices` trait.
        .target(
            name: "CoreMotion",
            dependencies: [
                "MotionClient", "MotionDaemonClient", "MotionSamples",
                .target(name: "MotionService", condition: .when(traits: ["InProcessDevices"])),
                .target(name: "MotionDevices", condition: .when(traits: ["InProcessDevices"])),
            ],
            swiftSettings: strict
        ),
        .target(
            name: "CoreMotionTesting",
            dependencies: ["CoreMotion", "MotionService", "MotionRecordings", "MotionSimulator", "MotionHistory"],
            swiftSettings: strict
        ),
        // Layer 7: the `coremotiond` daemon.
        .executableTarget(
            name: "CoreMotionDaemon",
            dependencies: [
                "MotionDaemon", "MotionService", "MotionDevices", "MotionHistory", "MotionIngest", "MotionSamples", "MotionSystemd", "MotionAuthorization",
                "MotionHistoryPostgres",
                withDevices("ArgumentParser", "swift-argument-parser"),
                withDevices("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Layer 7 (tool): the messages between `coremotion view` and its page, without I/O (fuzzed alone).
        .target(name: "MotionLiveViewProtocol", swiftSettings: strict),
        // Layer 7 (tool): `coremotion view`'s server: a local web page and a WebSocket that streams decimated
        // motion to it. Fed by the tool with plain values; knows no device.
        .target(
            name: "MotionLiveView",
            dependencies: [
                "MotionLiveViewProtocol",
                "MotionSamples",  // LogSafeText: a peer's Host or Origin reaches the log escaped
                withDevices("Hummingbird", "hummingbird"),
                withDevices("HummingbirdWebSocket", "hummingbird-websocket"),
                withDevices("ServiceLifecycle", "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/page")],
            swiftSettings: strict
        ),
        // Layer 7: the `coremotion` tool.
        .executableTarget(
            name: "CoreMotionCLI",
            dependencies: [
                "MotionSamples", "MotionRecordings", "MotionSimulator", "MotionIIO", "MotionNetwork", "MotionEngine",
                "MotionEvaluation", "MotionEmulation", "MotionService", "MotionDevices", "CoreMotion", "MotionDaemonClient", "MotionSystemd", "MotionAuthorization", "MotionLiveView",
                "MotionLiveViewProtocol", "MotionHistory", "MotionHistoryPostgres",
                withDevices("ArgumentParser", "swift-argument-parser"),
            ],
            resources: [.copy("Resources")],
            swiftSettings: strict
        ),

        // Tests
        .target(
            name: "TestSupport",
            dependencies: ["MotionSamples", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            swiftSettings: strict
        ),
        .testTarget(name: "MotionSamplesTests", dependencies: ["MotionSamples"], swiftSettings: strict),
        .testTarget(
            name: "MotionRecordingsTests",
            dependencies: ["MotionRecordings", "TestSupport"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionSimulatorTests",
            dependencies: [
                "MotionSimulator", "MotionRecordings", "MotionSamples", "TestSupport", .product(name: "ZIPFoundation", package: "ZIPFoundation"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "MotionIIOTests", dependencies: ["MotionIIO", "MotionEmulation", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "MotionNetworkTests",
            dependencies: [
                "MotionNetwork", "MotionEmulation", "MotionSamples", "MotionRecordings", "MotionService", "MotionDevices", "CoreMotion",
                "CoreMotionTesting", "TestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionEngineTests",
            dependencies: ["MotionEngine", "MotionEvaluation", "MotionRecordings", "MotionSimulator", "MotionSamples", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionEvaluationTests",
            dependencies: ["MotionEvaluation"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionHistoryTests",
            dependencies: ["MotionHistory", "MotionSimulator", "TestSupport", grdb],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionIngestTests",
            dependencies: ["MotionIngest"],
            swiftSettings: strict
        ),
        // One suite of history behaviour, run on the SQLite store and on PostgreSQL (COREMOTION_TEST_POSTGRES).
        .testTarget(
            name: "HistoryBehaviourTests",
            dependencies: [
                "MotionHistory", "MotionHistoryPostgres", "MotionIngest", "MotionSamples", "MotionSimulator", "TestSupport",
                // A connection of the test's own, to hold a row while a push waits on it.
                withDevices("PostgresNIO", "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionServiceTests",
            dependencies: ["MotionService", "MotionDevices", "MotionEngine", "MotionSimulator", "MotionHistory", "MotionSamples", "TestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoreMotionTests",
            dependencies: ["CoreMotion", "CoreMotionTesting", "MotionService", "MotionRecordings", "MotionSimulator", "MotionHistory", "TestSupport"],
            swiftSettings: strict
        ),
        // An app's own test target: only `CoreMotion` and the testing product, as an app would use them.
        .testTarget(name: "ExampleAppTests", dependencies: ["CoreMotion", "CoreMotionTesting"], swiftSettings: strict),
        .testTarget(name: "MotionProtocolTests", dependencies: ["MotionProtocol"], swiftSettings: strict),
        .testTarget(
            name: "MotionAuthorizationTests",
            dependencies: ["MotionAuthorization", "TestSupport", .product(name: "Logging", package: "swift-log")],
            swiftSettings: strict
        ),
        .testTarget(name: "MotionSystemdTests", dependencies: ["MotionSystemd"], swiftSettings: strict),
        .testTarget(
            name: "MotionDaemonTests",
            dependencies: [
                "MotionDaemon", "MotionDaemonClient", "MotionService", "MotionDevices", "MotionProtocol", "MotionIIO", "MotionEmulation",
                "MotionRecordings", "MotionSimulator", "MotionAuthorization", "CoreMotion", "TestSupport", "MotionIngest", "MotionNetwork",
                "MotionHistory", "MotionHistoryPostgres", "MotionSamples",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "MotionLiveViewTests",
            dependencies: ["MotionLiveView", "MotionLiveViewProtocol", "MotionSamples"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "CoreMotionCLITests",
            dependencies: [
                "CoreMotionCLI", "MotionSamples", "MotionRecordings", "MotionSimulator", "MotionEngine", "MotionEvaluation",
                "MotionLiveViewProtocol",
                "TestSupport",
                withDevices("ArgumentParser", "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
