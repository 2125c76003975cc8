// swift-tools-version:6.1
// libFuzzer targets for the coremotiond wire protocol (MotionProtocol), the phone network decoders
// (MotionNetwork: Sensor Logger's HTTP push, phyphox, SensorServer) and `coremotion view`'s page commands. A package of its own, like
// Benchmarks/, so that the main build and `swift test` never see the fuzzers.
//
// Run from the repository root:  Fuzz/run.sh [SECONDS]      (see Fuzz/README.md)
// One fuzzer by hand:            swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address \
//                                    --product ClientFrameFuzzer
import PackageDescription

// The fuzz targets define `LLVMFuzzerTestOneInput` and `<Target>_main` (see FuzzSupport/FuzzDriver.swift),
// so their only file is parsed as a library. Unsafe flags are allowed: this is a root package, never a
// dependency.
let fuzzTarget: [SwiftSetting] = [.unsafeFlags(["-parse-as-library"])]

let package = Package(
    name: "CoreMotionFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-core-motion", path: ".."),
        // NIOEmbedded: runs the daemon's own `MessageFrameDecoder` in an `EmbeddedChannel`.
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
    ],
    targets: [
        // The checks both fuzzers share (split, decode, round-trip, compare with the NIO decoder) and their
        // `main`.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "MotionProtocol", package: "swift-core-motion"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
        // libFuzzer's driver, weakly referenced (see Sources/FuzzSupport/FuzzDriver.swift).
        .target(name: "CLibFuzzer"),
        // The daemon's side: what a client may send (`ClientMessage`).
        .executableTarget(
            name: "ClientFrameFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionProtocol", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // The client's side: what the daemon may send (`DaemonMessage`).
        .executableTarget(
            name: "DaemonFrameFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionProtocol", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // What any peer may POST to the Sensor Logger receiver: the body decoder and the receiver behind it.
        .executableTarget(
            name: "SensorLoggerPushFuzzer",
            dependencies: [
                "FuzzSupport", .product(name: "MotionNetwork", package: "swift-core-motion"),
                // SensorLoggerPushWriter: the round trip writes a decoded message back.
                .product(name: "MotionEmulation", package: "swift-core-motion"),
            ],
            swiftSettings: fuzzTarget
        ),
        // An ingest node's spool files: framing and records (MotionIngest).
        .executableTarget(
            name: "PushSpoolFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionIngest", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // The Sensor Logger receiver's judgement of a request's `Host` and `Origin` headers (loopback by address).
        .executableTarget(
            name: "ReceiverAddressFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionNetwork", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // The phone network decoders (MotionNetwork): phyphox `/get`; `/config`, `/meta`, `/time`; SensorServer messages.
        .executableTarget(
            name: "PhyphoxGetFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionNetwork", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        .executableTarget(
            name: "PhyphoxConfigFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionNetwork", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        .executableTarget(
            name: "SensorServerMessageFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionNetwork", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // `coremotion view`'s server: what a web page may send over the WebSocket (`PageCommand`).
        .executableTarget(
            name: "PageCommandFuzzer",
            dependencies: ["FuzzSupport", .product(name: "MotionLiveViewProtocol", package: "swift-core-motion")],
            swiftSettings: fuzzTarget
        ),
        // Writes the seed corpora under Corpus/ (an ordinary executable, built without the fuzzer flags).
        .executableTarget(
            name: "FuzzCorpusWriter",
            dependencies: [
                .product(name: "MotionProtocol", package: "swift-core-motion"),
                .product(name: "MotionNetwork", package: "swift-core-motion"),
                // SensorLoggerPushWriter: the Sensor Logger seeds.
                .product(name: "MotionEmulation", package: "swift-core-motion"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
