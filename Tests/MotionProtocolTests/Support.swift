import Foundation
import MotionProtocol

/// A frame without its length field (type byte and payload), as `decode` takes it.
func payloadOf(_ encoded: [UInt8]) -> [UInt8] { Array(encoded.dropFirst(FrameHeader.lengthFieldSize)) }

func decodeClient(_ frame: [UInt8]) throws -> ClientMessage {
    try frame.withUnsafeBytes { try ClientMessage.decode($0) }
}

func decodeDaemon(_ frame: [UInt8]) throws -> DaemonMessage {
    try frame.withUnsafeBytes { try DaemonMessage.decode($0) }
}

/// Builds a frame body (type byte and payload) field by field.
struct FrameBytes {
    var bytes: [UInt8]
    init(_ type: UInt8) { bytes = [type] }
    init(_ type: MessageType) { bytes = [type.rawValue] }
    func u8(_ v: UInt8) -> FrameBytes { appending(v) }
    func u16(_ v: UInt16) -> FrameBytes { appending(v) }
    func u32(_ v: UInt32) -> FrameBytes { appending(v) }
    func u64(_ v: UInt64) -> FrameBytes { appending(v) }
    func f64(_ v: Double) -> FrameBytes { appending(v.bitPattern) }
    func f64s(_ vs: Double...) -> FrameBytes { vs.reduce(self) { $0.f64($1) } }
    func raw(_ bs: [UInt8]) -> FrameBytes { var c = self; c.bytes += bs; return c }
    func string(_ s: String) -> FrameBytes { u16(UInt16(s.utf8.count)).raw(Array(s.utf8)) }
    private func appending<T: FixedWidthInteger>(_ v: T) -> FrameBytes {
        var c = self
        withUnsafeBytes(of: v.littleEndian) { c.bytes += $0 }
        return c
    }
    /// With the length field, as on the socket.
    var framed: [UInt8] {
        var w = ByteWriter()
        w.u32(UInt32(bytes.count))
        return w.bytes + bytes
    }
}

/// One of every client message.
let everyClientMessage: [ClientMessage] = {
    let from = Date(timeIntervalSince1970: 1_764_000_000.5)
    let to = from.addingTimeInterval(3600)
    var list: [ClientMessage] = [
        .hello(ClientHello(appHint: "org.example.StepCounter")),
        .hello(ClientHello(version: 9, appHint: String(repeating: "ü", count: 127) + "!")),
    ]
    list += SensorKind.allCases.map { .subscribeSensor(stream: 1, sensor: $0, interval: 0.01) }
    list += AttitudeReferenceFrame.allCases.map { .subscribeDeviceMotion(stream: 2, frame: $0, interval: 0) }
    list += [
        .subscribeAltitude(stream: 3, absolute: false), .subscribeAltitude(stream: 3, absolute: true),
        .subscribePedometer(stream: 4, start: from), .subscribePedometerEvents(stream: 5), .subscribeActivity(stream: 6),
        .unsubscribe(stream: UInt32.max), .queryPedometer(request: 7, from: from, to: to),
        .queryActivity(request: 8, from: from, to: to), .recordAccelerometer(request: 9, duration: 43_200),
        .queryRecordedAccelerometer(request: 10, from: from, to: to), .status(request: 11),
        .subscribeHeadphoneConnection(stream: 13), .subscribeHeadphoneMotion(stream: 14), .subscribeHeadphoneActivity(stream: 15),
    ]
    list += PermissionOperation.allCases.map { .permissions(request: 12, operation: $0, uid: $0 == .grant ? 1000 : nil, app: "org.gnome.Maps") }
    return list
}()

let sampleDate = Date(timeIntervalSince1970: 1_764_086_400.25)
let sampleSensors = [
    SensorDescription(kind: .accelerometer, name: "lsm6dsl accel", minimumRate: 12.5, maximumRate: 416),
    SensorDescription(kind: .gyroscope, name: "lsm6dsl gyro", minimumRate: 12.5, maximumRate: 416),
    SensorDescription(kind: .magnetometer, name: "lis3mdl", minimumRate: 0.625, maximumRate: 80),
    SensorDescription(kind: .barometer, name: "bmp280", minimumRate: 1, maximumRate: 157),
]
let sampleTotals = PedometerTotals(
    start: sampleDate.addingTimeInterval(-3600), end: sampleDate, steps: 4321, distance: 3100.5, floorsAscended: 3,
    floorsDescended: 1, activeDuration: 2400, currentCadence: 1.8, currentPace: nil)
let sampleActivity = ActivityReport(startDate: sampleDate, timestamp: 100, flags: [.stationary, .automotive], confidence: .high)
let sampleRecorded = RecordedAccelerometerSample(identifier: 1, date: sampleDate, acceleration: Vector3(0, 0, -1))

/// Values of every record kind, two of each where the kind has a "none".
let valuesOfEveryKind: [RecordKind: [StreamValue]] = [
    .accelerometer: [.sensor(.accelerometer(TimedVector(time: 1, value: Vector3(0.01, -0.02, -0.98))))],
    .gyroscope: [.sensor(.gyroscope(TimedVector(time: 2, value: Vector3(0.5, -0.5, 0))))],
    .magnetometer: [.sensor(.magnetometer(TimedVector(time: 3, value: Vector3(20, -5, -40))))],
    .barometer: [
        .sensor(.barometer(PressureReading(time: 4, kilopascals: 101.325, celsius: 21.5))),
        .sensor(.barometer(PressureReading(time: 4.1, kilopascals: 101.3, celsius: nil))),
    ],
    .deviceMotion: [.deviceMotion(.motion(DeviceMotionValue(
        time: 5, attitude: Quaternion(w: 0.9238795, x: 0, y: 0, z: 0.3826834), rotationRate: Vector3(0.1, 0, -0.1),
        gravity: Vector3(0, 0, -1), userAcceleration: Vector3(0.01, 0.02, 0.03), magneticField: Vector3(20, -5, -40),
        magneticFieldAccuracy: -1, heading: -1)))],
    .needsMovement: [.deviceMotion(.needsMovement)],
    .altitude: [
        .altitude(AltitudeValue(time: 6, relativeAltitude: 1.5, pressure: 101.2)),
        .altitude(AltitudeValue(time: 6.1, relativeAltitude: 1.6, pressure: 101.2,
            absolute: AbsoluteAltitudeValue(altitude: 312.4, accuracy: 5, precision: 0.1))),
    ],
    .pedometerTotals: [.pedometer(sampleTotals), .pedometer(PedometerTotals(start: sampleDate, end: sampleDate))],
    .pedometerEvent: [.pedometerEvent(PedometerPauseEvent(date: sampleDate, resumed: false)),
        .pedometerEvent(PedometerPauseEvent(date: sampleDate, resumed: true))],
    .activity: [.activity(sampleActivity)],
    .recordedAccelerometer: [.recorded(sampleRecorded)],
    .headphoneMotion: [
        .headphoneMotion(HeadphoneMotionSample(
            time: 271_844.7283335835, attitude: Quaternion(w: 0.9934391194882508, x: -0.11430224957642005, y: 0.0036830314614673047, z: 0),
            rotationRate: Vector3(-0.47760558128356934, -0.6112117767333984, 0.6482784748077393),
            userAcceleration: Vector3(-0.019733818247914314, -0.0025246955920010805, 0.061296071857213974),
            gravity: Vector3(0.0073177325539290905, 0.2271045744419098, -0.9738428592681885), location: .left)),
        .headphoneMotion(HeadphoneMotionSample(
            time: 7, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1), location: .unknown)),
        .headphoneMotion(HeadphoneMotionSample(
            time: 7.02, attitude: .identity, rotationRate: .zero, userAcceleration: .zero, gravity: Vector3(0, 0, -1), location: .right)),
    ],
    .headphoneConnection: [
        .headphoneConnection(HeadphoneConnectionState(time: 8, isConnected: true)),
        .headphoneConnection(HeadphoneConnectionState(time: 9, isConnected: false)),
    ],
]

/// One of every daemon message: every record kind, reply and event.
let everyDaemonMessage: [DaemonMessage] = {
    var list: [DaemonMessage] = [
        .welcome(DaemonWelcome(
            authorization: .authorized, appID: "org.example.StepCounter", deviceName: "PinePhone Pro", sensors: sampleSensors,
            referenceFrames: Set(AttitudeReferenceFrame.allCases), absoluteAltitude: true, recorderAvailable: true,
            bufferCapacity: 4096)),
        .welcome(DaemonWelcome(
            authorization: .notDetermined, appID: "", deviceName: "", sensors: [], referenceFrames: [],
            absoluteAltitude: false, recorderAvailable: true, bufferCapacity: 0)),
        .welcome(DaemonWelcome(
            authorization: .authorized, appID: "org.example.HeadTracker", deviceName: "none", sensors: [], referenceFrames: [],
            absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 8192,
            headphones: "replay:head-shake.jsonl (headphone capture (JSON lines), 50 Hz)")),
        .welcome(DaemonWelcome(
            authorization: .denied, appID: "a", deviceName: "d", sensors: [], referenceFrames: [],
            absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 1, headphones: "")),
    ]
    list += RecordKind.allCases.map { .samples(stream: UInt32($0.rawValue), values: valuesOfEveryKind[$0]!) }
    list += [
        .samples(stream: 1, values: []),
        .dropped(stream: 1, count: UInt64.max),
        .reply(request: 1, .done),
        .reply(request: 2, .pedometer(sampleTotals)),
        .reply(request: 3, .activities([sampleActivity, sampleActivity])),
        .reply(request: 3, .activities([])),
        .reply(request: 4, .recorded([sampleRecorded], more: true)),
        .reply(request: 4, .recorded([], more: false)),
        .reply(request: 5, .document(#"{"clients":[]}"#)),
        .reply(request: 6, .error(.forbidden, authorization: .denied, message: "only root may change another user's decisions")),
        .event(.sensorLost(.magnetometer, reason: "unbound")),
        .event(.sensorReturned(sampleSensors[2])),
        .event(.endOfData),
        .event(.authorizationChanged(.restricted)),
        .event(.streamEnded(stream: 7, reason: "refused")),
        .failure(.unsupportedVersion, message: "version 1 only"),
        .failure(.overloaded, message: ""),
    ]
    return list
}()
