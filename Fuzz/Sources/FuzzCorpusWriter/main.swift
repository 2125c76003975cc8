// Writes the fuzzers' seed corpora: Corpus/ClientFrame (what a client sends), Corpus/DaemonFrame (what
// the daemon sends) and Corpus/SensorLoggerPush (what a phone POSTs to the Sensor Logger receiver). Each file is a byte stream as it arrives on the socket: one or more frames, length
// fields included. Every message type, every record kind, every reply and event, and a few malformed
// streams, each checked here against what the decoder must make of it.
//
//     swift run --package-path Fuzz --scratch-path Fuzz/.build-corpus FuzzCorpusWriter [CORPUS_DIR]
//
// CORPUS_DIR defaults to Fuzz/Corpus. Files this program did not write are kept when their name starts with
// `regression-` (inputs that once crashed a fuzzer) and removed otherwise. `--check` writes nothing and
// exits 1 when the committed corpus differs from what would be written.
import Foundation
import MotionNetwork
import MotionProtocol

// MARK: - Seeds

/// What the decoder must make of a seed.
enum Expectation {
    /// These messages, then nothing left over.
    case messages
    /// The messages before the failing frame, then this error.
    case error(ProtocolError)
    /// The messages, then this many bytes of an incomplete frame.
    case incomplete(pending: Int)
}

struct Seed {
    let name: String
    let bytes: [UInt8]
    let expectation: Expectation
}

func frames(_ messages: [ClientMessage]) -> [UInt8] { messages.flatMap(\.encoded) }
func frames(_ messages: [DaemonMessage]) -> [UInt8] { messages.flatMap(\.encoded) }

/// A frame of `type` with `payload` exactly as given (length field included).
func rawFrame(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
    var w = ByteWriter()
    w.u32(UInt32(payload.count + 1))
    w.u8(type)
    return w.bytes + payload
}

/// `message`'s frame with `extra` bytes appended inside the frame (the length field counts them).
func withTrailingBytes(_ message: [UInt8], _ extra: [UInt8]) -> [UInt8] {
    var bytes = message + extra
    let length = UInt32(bytes.count - FrameHeader.lengthFieldSize)
    withUnsafeBytes(of: length.littleEndian) { for i in 0..<4 { bytes[i] = $0[i] } }
    return bytes
}

/// `message`'s frame with the `f64` at payload offset `at` (after the type byte) replaced by `value`.
func replacingDouble(_ message: [UInt8], at: Int, with value: Double) -> [UInt8] {
    var bytes = message
    withUnsafeBytes(of: value.bitPattern.littleEndian) { for i in 0..<8 { bytes[5 + at + i] = $0[i] } }
    return bytes
}

func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
func f64(_ v: Double) -> [UInt8] { withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } }

let now = Date(timeIntervalSince1970: 1_764_086_400.125)
let hourAgo = now.addingTimeInterval(-3600)

// MARK: Client → daemon

func clientSeeds() -> [(Seed, [ClientMessage])] {
    var seeds: [(Seed, [ClientMessage])] = []
    func valid(_ name: String, _ messages: [ClientMessage]) {
        seeds.append((Seed(name: name, bytes: frames(messages), expectation: .messages), messages))
    }
    func hostile(_ name: String, _ bytes: [UInt8], _ error: ProtocolError, before: [ClientMessage] = []) {
        seeds.append((Seed(name: name, bytes: bytes, expectation: .error(error)), before))
    }

    let hello = ClientMessage.hello(ClientHello(appHint: "org.example.StepCounter"))
    valid("hello", [hello])
    // 255 bytes, the limit, ending in a 4-byte character.
    let longHint = String(repeating: "é", count: 119) + "-org.example.🚶"
    precondition(longHint.utf8.count == ClientMessage.maximumNameLength)
    valid("hello-long-app-hint", [.hello(ClientHello(appHint: longHint))])
    valid("hello-empty-app-hint", [.hello(ClientHello(version: 7, appHint: ""))])
    for sensor in SensorKind.allCases {
        valid("subscribe-sensor-\(sensor)", [.subscribeSensor(stream: 1, sensor: sensor, interval: 0.01)])
    }
    for frame in AttitudeReferenceFrame.allCases {
        valid("subscribe-device-motion-\(frame)", [.subscribeDeviceMotion(stream: 2, frame: frame, interval: 0.02)])
    }
    valid("subscribe-altitude-relative", [.subscribeAltitude(stream: 3, absolute: false)])
    valid("subscribe-altitude-absolute", [.subscribeAltitude(stream: 3, absolute: true)])
    valid("subscribe-pedometer", [.subscribePedometer(stream: 4, start: hourAgo)])
    valid("subscribe-pedometer-events", [.subscribePedometerEvents(stream: 5)])
    valid("subscribe-activity", [.subscribeActivity(stream: 6)])
    valid("unsubscribe", [.unsubscribe(stream: 6)])
    valid("subscribe-headphone-connection", [.subscribeHeadphoneConnection(stream: 7)])
    valid("subscribe-headphone-motion", [.subscribeHeadphoneMotion(stream: 8)])
    valid("subscribe-headphone-activity", [.subscribeHeadphoneActivity(stream: 9)])
    valid("query-pedometer", [.queryPedometer(request: 10, from: hourAgo, to: now)])
    valid("query-activity", [.queryActivity(request: 11, from: hourAgo, to: now)])
    valid("record-accelerometer", [.recordAccelerometer(request: 12, duration: 600)])
    valid("query-recorded-accelerometer", [.queryRecordedAccelerometer(request: 13, from: hourAgo, to: now)])
    valid("status", [.status(request: 14)])
    valid("permissions-list", [.permissions(request: 15, operation: .list, uid: nil, app: "")])
    valid("permissions-grant", [.permissions(request: 16, operation: .grant, uid: 1000, app: "org.gnome.Maps")])
    valid("permissions-deny", [.permissions(request: 17, operation: .deny, uid: nil, app: "firefox")])
    valid("permissions-reset", [.permissions(request: 18, operation: .reset, uid: 0, app: "org.example.StepCounter")])
    // A whole session: hello, subscriptions, a query, an unsubscribe.
    valid("session", [
        hello, .subscribeSensor(stream: 1, sensor: .accelerometer, interval: 0),
        .subscribeDeviceMotion(stream: 2, frame: .xMagneticNorthZVertical, interval: 0.01),
        .queryPedometer(request: 3, from: hourAgo, to: now), .unsubscribe(stream: 1),
    ])

    let helloBytes = hello.encoded
    // A stream that stops inside a frame: the reader waits for the rest.
    seeds.append((Seed(name: "malformed-truncated-hello", bytes: Array(helloBytes.prefix(helloBytes.count - 5)),
        expectation: .incomplete(pending: helloBytes.count - 5)), []))
    // A frame whose length field is honest but whose payload stops inside a field.
    hostile("malformed-short-payload", rawFrame(MessageType.hello.rawValue, le32(ProtocolVersion.magic) + [1]), .truncated("version"))
    hostile("malformed-length-zero", le32(0) + [0x01], .frameLength(0, limit: FrameHeader.maximumClientFrame))
    hostile("malformed-length-huge", le32(UInt32.max) + [0x01], .frameLength(Int(UInt32.max), limit: FrameHeader.maximumClientFrame))
    hostile("malformed-length-over-limit", le32(UInt32(FrameHeader.maximumClientFrame + 1)) + [0x01],
        .frameLength(FrameHeader.maximumClientFrame + 1, limit: FrameHeader.maximumClientFrame))
    hostile("malformed-wrong-magic", rawFrame(0x01, Array("HTTP".utf8) + le16(1) + le16(0) + le16(0)),
        .notCoreMotion("the hello does not start with CMOT"))
    hostile("malformed-trailing-bytes", withTrailingBytes(ClientMessage.status(request: 1).encoded, [0]),
        .trailingBytes(message: "status", count: 1))
    hostile("malformed-after-hello", frames([hello]) + rawFrame(0x42, []), .unknownMessageType(0x42), before: [hello])
    hostile("malformed-daemon-message", DaemonMessage.dropped(stream: 1, count: 2).encoded, .unexpectedMessageType(.dropped))
    hostile("malformed-sensor", rawFrame(0x02, le32(1) + [5] + f64(0.01)), .invalidValue(field: "sensor", value: "5"))
    hostile("malformed-nan-interval",
        replacingDouble(ClientMessage.subscribeSensor(stream: 1, sensor: .gyroscope, interval: 0.01).encoded, at: 5, with: .nan),
        .invalidValue(field: "interval", value: "nan"))
    hostile("malformed-negative-duration",
        replacingDouble(ClientMessage.recordAccelerometer(request: 1, duration: 1).encoded, at: 4, with: -1),
        .invalidValue(field: "duration", value: "-1.0"))
    hostile("malformed-app-hint-not-utf8", rawFrame(0x01, le32(ProtocolVersion.magic) + le16(1) + le16(0) + le16(2) + [0xC3, 0x28]),
        .invalidValue(field: "app hint", value: "bytes that are not UTF-8"))
    hostile("malformed-app-hint-too-long",
        rawFrame(0x01, le32(ProtocolVersion.magic) + le16(1) + le16(0) + le16(256) + Array(repeating: 0x61, count: 256)),
        .invalidValue(field: "app hint", value: "256 bytes (at most 255)"))
    return seeds
}

// MARK: Daemon → client

func daemonSeeds() -> [(Seed, [DaemonMessage])] {
    var seeds: [(Seed, [DaemonMessage])] = []
    func valid(_ name: String, _ messages: [DaemonMessage]) {
        seeds.append((Seed(name: name, bytes: frames(messages), expectation: .messages), messages))
    }
    func hostile(_ name: String, _ bytes: [UInt8], _ error: ProtocolError, before: [DaemonMessage] = []) {
        seeds.append((Seed(name: name, bytes: bytes, expectation: .error(error)), before))
    }

    let sensors = [
        SensorDescription(kind: .accelerometer, name: "lsm6dsl accel", minimumRate: 12.5, maximumRate: 416),
        SensorDescription(kind: .gyroscope, name: "lsm6dsl gyro", minimumRate: 12.5, maximumRate: 416),
        SensorDescription(kind: .magnetometer, name: "lis3mdl", minimumRate: 0.625, maximumRate: 80),
        SensorDescription(kind: .barometer, name: "bmp280", minimumRate: 1, maximumRate: 157),
    ]
    let welcome = DaemonMessage.welcome(DaemonWelcome(
        authorization: .authorized, appID: "org.example.StepCounter", deviceName: "PinePhone Pro", sensors: sensors,
        referenceFrames: Set(AttitudeReferenceFrame.allCases), absoluteAltitude: true, recorderAvailable: true,
        bufferCapacity: 4096))
    valid("welcome-4-sensors", [welcome])
    valid("welcome-no-sensors", [.welcome(DaemonWelcome(
        authorization: .notDetermined, appID: "", deviceName: "simulator", sensors: [], referenceFrames: [.xArbitraryZVertical],
        absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 0))])
    valid("welcome-headphones", [.welcome(DaemonWelcome(
        authorization: .authorized, appID: "org.example.HeadTracker", deviceName: "none", sensors: [], referenceFrames: [],
        absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 8192, headphones: "sim:head-shake (seed 1, 50 Hz)"))])

    let v = Vector3(0.01, -0.02, -0.98)
    let motion = DeviceMotionValue(
        time: 1234.5, attitude: Quaternion(w: 0.9238795, x: 0, y: 0, z: 0.3826834), rotationRate: Vector3(0.1, 0, -0.1),
        gravity: Vector3(0, 0, -1), userAcceleration: Vector3(0.01, 0.02, 0.03), magneticField: Vector3(20, -5, -40),
        magneticFieldAccuracy: 2, heading: 45)
    let totals = PedometerTotals(
        start: hourAgo, end: now, steps: 4321, distance: 3100.5, floorsAscended: 3, floorsDescended: 1, activeDuration: 2400,
        currentCadence: 1.8, currentPace: 0.55)
    let activity = ActivityReport(startDate: hourAgo, timestamp: 1000, flags: [.stationary, .automotive], confidence: .high)
    let recorded = RecordedAccelerometerSample(identifier: 77, date: now, acceleration: v)
    let valuesByKind: [RecordKind: [StreamValue]] = [
        .accelerometer: [.sensor(.accelerometer(TimedVector(time: 1.0, value: v))), .sensor(.accelerometer(TimedVector(time: 1.01, value: v)))],
        .gyroscope: [.sensor(.gyroscope(TimedVector(time: 2.0, value: Vector3(0.5, -0.5, 0))))],
        .magnetometer: [.sensor(.magnetometer(TimedVector(time: 3.0, value: Vector3(20, -5, -40))))],
        .barometer: [
            .sensor(.barometer(PressureReading(time: 4.0, kilopascals: 101.325, celsius: 21.5))),
            .sensor(.barometer(PressureReading(time: 4.1, kilopascals: 101.3, celsius: nil))),
        ],
        .deviceMotion: [.deviceMotion(.motion(motion))],
        .needsMovement: [.deviceMotion(.needsMovement)],
        .altitude: [
            .altitude(AltitudeValue(time: 5.0, relativeAltitude: 1.5, pressure: 101.2)),
            .altitude(AltitudeValue(time: 5.1, relativeAltitude: 1.6, pressure: 101.2,
                absolute: AbsoluteAltitudeValue(altitude: 312.4, accuracy: 5, precision: 0.1))),
        ],
        .pedometerTotals: [
            .pedometer(totals),
            .pedometer(PedometerTotals(start: hourAgo, end: now)),
        ],
        .pedometerEvent: [
            .pedometerEvent(PedometerPauseEvent(date: hourAgo, resumed: false)),
            .pedometerEvent(PedometerPauseEvent(date: now, resumed: true)),
        ],
        .activity: [.activity(activity), .activity(ActivityReport(startDate: now, timestamp: 0, flags: [], confidence: .low))],
        .recordedAccelerometer: [.recorded(recorded)],
        .headphoneMotion: [
            .headphoneMotion(HeadphoneMotionSample(
                time: 1234.52, attitude: Quaternion(w: 0.9934391194882508, x: -0.11430224957642005, y: 0.0036830314614673047, z: 0),
                rotationRate: Vector3(-0.4776, -0.6112, 0.6483), userAcceleration: Vector3(-0.0197, -0.0025, 0.0613),
                gravity: Vector3(0.0073, 0.2271, -0.9738), location: .left)),
            .headphoneMotion(HeadphoneMotionSample(
                time: 1234.54, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1),
                location: .unknown)),
        ],
        .headphoneConnection: [
            .headphoneConnection(HeadphoneConnectionState(time: 1234.26, isConnected: true)),
            .headphoneConnection(HeadphoneConnectionState(time: 1240, isConnected: false)),
        ],
    ]
    for kind in RecordKind.allCases {
        valid("samples-\(kind)", [.samples(stream: UInt32(kind.rawValue), values: valuesByKind[kind]!)])
    }
    valid("samples-empty", [.samples(stream: 9, values: [])])
    valid("dropped", [.dropped(stream: 1, count: 12_345)])
    valid("reply-done", [.reply(request: 1, .done)])
    valid("reply-pedometer", [.reply(request: 2, .pedometer(totals))])
    valid("reply-activities", [.reply(request: 3, .activities([activity, ActivityReport(
        startDate: now, timestamp: 3600, flags: [.walking], confidence: .medium)]))])
    valid("reply-activities-empty", [.reply(request: 3, .activities([]))])
    valid("reply-recorded", [.reply(request: 4, .recorded([recorded, RecordedAccelerometerSample(
        identifier: 78, date: now.addingTimeInterval(0.02), acceleration: v)], more: true))])
    valid("reply-document", [.reply(request: 5, .document(#"{"device":"PinePhone Pro","clients":[{"pid":4242,"app":"org.example.StepCounter","streams":2}]}"#))])
    valid("reply-error", [.reply(request: 6, .error(.notAuthorized, authorization: .denied, message: "the user denied motion data to this app"))])
    valid("event-sensor-lost", [.event(.sensorLost(.gyroscope, reason: "iio:device1 was unbound"))])
    valid("event-sensor-returned", [.event(.sensorReturned(sensors[1]))])
    valid("event-end-of-data", [.event(.endOfData)])
    valid("event-authorization-changed", [.event(.authorizationChanged(.restricted))])
    valid("event-stream-ended", [.event(.streamEnded(stream: 2, reason: "the magnetometer went away"))])
    valid("failure-unsupported-version", [.failure(.unsupportedVersion, message: "this daemon speaks version 2, the client 1")])
    valid("failure-overloaded", [.failure(.overloaded, message: "too many clients")])
    // A whole session: welcome, samples, a reply, an event.
    valid("session", [
        welcome, .samples(stream: 1, values: valuesByKind[.accelerometer]!), .reply(request: 2, .pedometer(totals)),
        .event(.authorizationChanged(.denied)), .failure(.shuttingDown, message: "coremotiond is stopping"),
    ])

    let limit = FrameHeader.maximumDaemonFrame
    let welcomeBytes = welcome.encoded
    // A stream that stops inside a frame: the reader waits for the rest.
    seeds.append((Seed(name: "malformed-truncated-welcome", bytes: Array(welcomeBytes.prefix(40)),
        expectation: .incomplete(pending: 40)), []))
    hostile("malformed-short-payload", rawFrame(MessageType.dropped.rawValue, le32(1) + [1, 2, 3]), .truncated("count"))
    hostile("malformed-length-zero", le32(0) + [0x81], .frameLength(0, limit: limit))
    hostile("malformed-length-huge", le32(UInt32.max) + [0x82], .frameLength(Int(UInt32.max), limit: limit))
    hostile("malformed-length-over-limit", le32(UInt32(limit + 1)) + [0x82], .frameLength(limit + 1, limit: limit))
    hostile("malformed-trailing-bytes", withTrailingBytes(DaemonMessage.event(.endOfData).encoded, [0, 0]),
        .trailingBytes(message: "event", count: 2))
    hostile("malformed-client-message", ClientMessage.status(request: 1).encoded, .unexpectedMessageType(.status))
    hostile("malformed-unknown-type", rawFrame(0x99, [1, 2, 3]), .unknownMessageType(0x99))
    hostile("malformed-record-count",
        rawFrame(0x82, le32(1) + [RecordKind.accelerometer.rawValue] + le16(3) + Array(repeating: 0, count: 64)),
        .invalidValue(field: "record count", value: "3 records of 32 bytes in 64 bytes"))
    hostile("malformed-record-kind", rawFrame(0x82, le32(1) + [14] + le16(0)), .invalidValue(field: "record kind", value: "14"))
    hostile("malformed-sensor-location",
        rawFrame(0x82, le32(1) + [RecordKind.headphoneMotion.rawValue] + le16(1) + (0..<14).flatMap { f64($0 == 4 ? 1 : 0) } + [3]
            + Array(repeating: 0, count: 7)),
        .invalidValue(field: "sensor location", value: "3"))
    hostile("malformed-nan-sample",
        rawFrame(0x82, le32(1) + [RecordKind.gyroscope.rawValue] + le16(1) + f64(1) + f64(0) + f64(.nan) + f64(0)),
        .invalidValue(field: "y", value: "nan"))
    hostile("malformed-partial-absolute-altitude",
        rawFrame(0x82, le32(1) + [RecordKind.altitude.rawValue] + le16(1) + f64(1) + f64(0) + f64(101) + f64(300) + f64(.nan) + f64(0.1)),
        .invalidValue(field: "absolute altitude", value: "partly given"))
    hostile("malformed-activity-flags",
        rawFrame(0x82, le32(1) + [RecordKind.activity.rawValue] + le16(1) + f64(0) + f64(0) + [0x40, 0] + Array(repeating: 0, count: 6)),
        .invalidValue(field: "activity flags", value: "0x40"))
    var duplicate = sensors
    duplicate[1] = sensors[0]
    hostile("malformed-welcome-duplicate-sensor", DaemonMessage.welcome(DaemonWelcome(
        authorization: .authorized, appID: "a", deviceName: "d", sensors: duplicate, referenceFrames: [], absoluteAltitude: false,
        recorderAvailable: false, bufferCapacity: 1)).encoded, .invalidValue(field: "sensors", value: "a sensor listed twice"))
    hostile("malformed-welcome-5-sensors", {
        var bytes = DaemonMessage.welcome(DaemonWelcome(
            authorization: .authorized, appID: "a", deviceName: "d", sensors: [], referenceFrames: [], absoluteAltitude: false,
            recorderAvailable: false, bufferCapacity: 1)).encoded
        bytes[bytes.count - 1] = 5
        return bytes
    }(), .invalidValue(field: "sensor count", value: "5"))
    hostile("malformed-reply-kind", rawFrame(0x84, le32(1) + [9]), .invalidValue(field: "reply kind", value: "9"))
    hostile("malformed-event-kind", rawFrame(0x85, [0]), .invalidValue(field: "event kind", value: "0"))
    hostile("malformed-after-welcome", frames([welcome]) + rawFrame(0x85, [4, 9]), .invalidValue(field: "authorization", value: "9"),
        before: [welcome])
    return seeds
}

// MARK: - Checking

/// Splits `bytes` as the reader does and compares with what the seed promises.
func verify<Message: Hashable>(
    _ seed: Seed, _ messages: [Message], limit: Int, decode: (UnsafeRawBufferPointer) throws(ProtocolError) -> Message
) -> String? {
    var splitter = FrameSplitter(limit: limit)
    splitter.append(seed.bytes)
    var decoded: [Message] = []
    var failure: ProtocolError?
    while failure == nil {
        let next: [UInt8]?
        do {
            next = try splitter.nextFrame()
        } catch {
            failure = error
            break
        }
        guard let frame = next else { break }
        switch frame.withUnsafeBytes({ raw in Result { () throws(ProtocolError) in try decode(raw) } }) {
        case .success(let message): decoded.append(message)
        case .failure(let error): failure = error
        }
    }
    if decoded != messages { return "decodes to \(decoded), not \(messages)" }
    switch seed.expectation {
    case .messages:
        if let failure { return "fails with \(failure)" }
        if splitter.pendingByteCount != 0 { return "leaves \(splitter.pendingByteCount) bytes" }
    case .error(let expected):
        if failure != expected { return "ends with \(String(describing: failure)), not \(expected)" }
    case .incomplete(let pending):
        if let failure { return "fails with \(failure)" }
        if splitter.pendingByteCount != pending { return "leaves \(splitter.pendingByteCount) bytes, not \(pending)" }
    }
    return nil
}

// MARK: - Writing

let arguments = CommandLine.arguments.dropFirst()
let check = arguments.contains("--check")
let corpus = arguments.first { !$0.hasPrefix("--") }.map { URL(fileURLWithPath: $0) }
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

var problems: [String] = []
var sets: [(String, [Seed])] = []
let client = clientSeeds()
for (seed, messages) in client {
    if let problem = verify(seed, messages, limit: FrameHeader.maximumClientFrame, decode: ClientMessage.decode) {
        problems.append("ClientFrame/\(seed.name): \(problem)")
    }
}
sets.append(("ClientFrame", client.map(\.0)))
let daemon = daemonSeeds()
for (seed, messages) in daemon {
    if let problem = verify(seed, messages, limit: FrameHeader.maximumDaemonFrame, decode: DaemonMessage.decode) {
        problems.append("DaemonFrame/\(seed.name): \(problem)")
    }
}
sets.append(("DaemonFrame", daemon.map(\.0)))
let sensorLogger = sensorLoggerSeeds()
for seed in sensorLogger {
    let refusal: SensorLoggerDecodingError.Kind?
    switch seed.bytes.withUnsafeBytes({ SensorLoggerDecoder.decode(buffer: $0) }) {
    case .success: refusal = nil
    case .failure(let error): refusal = error.kind
    }
    if refusal != seed.refusal {
        problems.append("SensorLoggerPush/\(seed.name): \(refusal.map { "refused (\($0))" } ?? "decodes"), expected \(seed.refusal.map { "a refusal (\($0))" } ?? "it to decode")")
    }
}
sets.append(("SensorLoggerPush", sensorLogger.map { Seed(name: $0.name, bytes: $0.bytes, expectation: .messages) }))
guard problems.isEmpty else {
    for problem in problems { print("seed does not decode as intended: \(problem)") }
    exit(2)
}

let files = FileManager.default
var differences: [String] = []
var written = 0
var total = 0
for (folder, seeds) in sets {
    let directory = corpus.appendingPathComponent(folder)
    precondition(Set(seeds.map(\.name)).count == seeds.count, "two seeds named alike in \(folder)")
    if !check { try files.createDirectory(at: directory, withIntermediateDirectories: true) }
    let existing = Set((try? files.contentsOfDirectory(atPath: directory.path)) ?? [])
    for seed in seeds {
        let url = directory.appendingPathComponent(seed.name)
        total += seed.bytes.count
        if let old = files.contents(atPath: url.path), Array(old) == seed.bytes { continue }
        differences.append("\(folder)/\(seed.name)")
        if !check {
            try Data(seed.bytes).write(to: url)
            written += 1
        }
    }
    for stale in existing.subtracting(seeds.map(\.name)) where !stale.hasPrefix("regression-") {
        differences.append("\(folder)/\(stale) (not a seed)")
        if !check { try files.removeItem(at: directory.appendingPathComponent(stale)) }
    }
}
if check {
    if differences.isEmpty {
        print("the corpus at \(corpus.path) is up to date (\(client.count) + \(daemon.count) + \(sensorLogger.count) seeds)")
    } else {
        print("the corpus at \(corpus.path) differs: \(differences.joined(separator: ", "))")
        exit(1)
    }
} else {
    print("\(client.count) client, \(daemon.count) daemon and \(sensorLogger.count) Sensor Logger seeds (\(total) bytes) in \(corpus.path); \(differences.count) changed")
}
