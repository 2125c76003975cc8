import Foundation

/// The first frame a client sends. Its layout is the same in every protocol version.
///
/// ```
/// u32 magic    'C' 'M' 'O' 'T'
/// u16 version  the client's protocol version
/// u16 flags    0 (reserved)
/// str app      the app's own name for itself (a hint for logs; never used for decisions)
/// ```
public struct ClientHello: Sendable, Hashable {
    public var version: UInt16
    /// The app's own name for itself, at most 255 bytes. The daemon identifies the app from the kernel
    /// (the process's executable or sandbox) and only logs this.
    public var appHint: String

    public init(version: UInt16 = ProtocolVersion.current, appHint: String) {
        self.version = version
        self.appHint = appHint
    }
}

/// What a client may ask of `permissions`.
public enum PermissionOperation: UInt8, Sendable, Hashable, CaseIterable {
    case list = 0
    case grant = 1
    case deny = 2
    case reset = 3
}

/// A message from a client to the daemon.
public enum ClientMessage: Sendable, Hashable {
    case hello(ClientHello)
    /// Raw samples of `sensor` thinned to `interval` seconds, on `stream`.
    case subscribeSensor(stream: UInt32, sensor: SensorKind, interval: Double)
    /// Device motion in `frame`, thinned to `interval` seconds.
    case subscribeDeviceMotion(stream: UInt32, frame: AttitudeReferenceFrame, interval: Double)
    /// Altitude updates (with absolute altitude when `absolute`).
    case subscribeAltitude(stream: UInt32, absolute: Bool)
    /// Live pedometer totals cumulative from `start`.
    case subscribePedometer(stream: UInt32, start: Date)
    /// Pedometer pause and resume events.
    case subscribePedometerEvents(stream: UInt32)
    /// Live activity.
    case subscribeActivity(stream: UInt32)
    /// Ends a stream.
    case unsubscribe(stream: UInt32)
    /// The headphones' connection: the state now, then every change (version 2).
    case subscribeHeadphoneConnection(stream: UInt32)
    /// Headphone device motion, anchored at the stream's first sample (version 2).
    case subscribeHeadphoneMotion(stream: UInt32)
    /// Activity from headphone motion (version 2).
    case subscribeHeadphoneActivity(stream: UInt32)
    case queryPedometer(request: UInt32, from: Date, to: Date)
    case queryActivity(request: UInt32, from: Date, to: Date)
    case recordAccelerometer(request: UInt32, duration: Double)
    case queryRecordedAccelerometer(request: UInt32, from: Date, to: Date)
    /// The daemon's state as JSON (`coremotion service status`).
    case status(request: UInt32)
    /// Lists or changes authorization decisions. `uid` nil: the caller's own.
    case permissions(request: UInt32, operation: PermissionOperation, uid: UInt32?, app: String)

    /// Longest app name or hint, bytes.
    public static let maximumNameLength = 255

    public var type: MessageType {
        switch self {
        case .hello: .hello
        case .subscribeSensor: .subscribeSensor
        case .subscribeDeviceMotion: .subscribeDeviceMotion
        case .subscribeAltitude: .subscribeAltitude
        case .subscribePedometer: .subscribePedometer
        case .subscribePedometerEvents: .subscribePedometerEvents
        case .subscribeActivity: .subscribeActivity
        case .unsubscribe: .unsubscribe
        case .subscribeHeadphoneConnection: .subscribeHeadphoneConnection
        case .subscribeHeadphoneMotion: .subscribeHeadphoneMotion
        case .subscribeHeadphoneActivity: .subscribeHeadphoneActivity
        case .queryPedometer: .queryPedometer
        case .queryActivity: .queryActivity
        case .recordAccelerometer: .recordAccelerometer
        case .queryRecordedAccelerometer: .queryRecordedAccelerometer
        case .status: .status
        case .permissions: .permissions
        }
    }

    /// Appends the whole frame.
    public func encode(into w: inout ByteWriter) {
        w.beginFrame(type)
        switch self {
        case .hello(let h):
            w.u32(ProtocolVersion.magic)
            w.u16(h.version)
            w.u16(0)
            w.string(h.appHint, limit: Self.maximumNameLength)
        case .subscribeSensor(let stream, let sensor, let interval):
            w.u32(stream)
            w.u8(RecordKind(sensor: sensor).rawValue)
            w.f64(interval)
        case .subscribeDeviceMotion(let stream, let frame, let interval):
            w.u32(stream)
            w.u8(UInt8(frame.rawValue))
            w.f64(interval)
        case .subscribeAltitude(let stream, let absolute):
            w.u32(stream)
            w.u8(absolute ? 1 : 0)
        case .subscribePedometer(let stream, let start):
            w.u32(stream)
            w.f64(start.timeIntervalSince1970)
        case .subscribePedometerEvents(let stream), .subscribeActivity(let stream), .unsubscribe(let stream),
            .subscribeHeadphoneConnection(let stream), .subscribeHeadphoneMotion(let stream), .subscribeHeadphoneActivity(let stream):
            w.u32(stream)
        case .queryPedometer(let request, let from, let to), .queryActivity(let request, let from, let to),
            .queryRecordedAccelerometer(let request, let from, let to):
            w.u32(request)
            w.f64(from.timeIntervalSince1970)
            w.f64(to.timeIntervalSince1970)
        case .recordAccelerometer(let request, let duration):
            w.u32(request)
            w.f64(duration)
        case .status(let request):
            w.u32(request)
        case .permissions(let request, let operation, let uid, let app):
            w.u32(request)
            w.u8(operation.rawValue)
            w.u32(uid ?? UInt32.max)
            w.string(app, limit: Self.maximumNameLength)
        }
        w.endFrame()
    }

    /// The frame as bytes.
    public var encoded: [UInt8] {
        var w = ByteWriter()
        encode(into: &w)
        return w.bytes
    }

    /// Reads a message from `frame` (type byte and payload, without the length field).
    public static func decode(_ frame: UnsafeRawBufferPointer) throws(ProtocolError) -> ClientMessage {
        var r = ByteReader(frame)
        let rawType = try r.u8("message type")
        guard let type = MessageType(rawValue: rawType) else { throw .unknownMessageType(rawType) }
        let message: ClientMessage
        switch type {
        case .hello:
            let magic = try r.u32("magic")
            guard magic == ProtocolVersion.magic else { throw .notCoreMotion("the hello does not start with CMOT") }
            let version = try r.u16("version")
            _ = try r.u16("flags")
            let hint = try r.string("app hint", limit: maximumNameLength)
            message = .hello(ClientHello(version: version, appHint: hint))
        case .subscribeSensor:
            let stream = try r.u32("stream")
            let raw = try r.u8("sensor")
            guard let sensor = RecordKind(rawValue: raw)?.sensor else { throw .invalidValue(field: "sensor", value: "\(raw)") }
            message = .subscribeSensor(stream: stream, sensor: sensor, interval: try interval(&r))
        case .subscribeDeviceMotion:
            let stream = try r.u32("stream")
            let raw = try r.u8("reference frame")
            guard let frame = AttitudeReferenceFrame(rawValue: UInt(raw)) else {
                throw .invalidValue(field: "reference frame", value: "\(raw)")
            }
            message = .subscribeDeviceMotion(stream: stream, frame: frame, interval: try interval(&r))
        case .subscribeAltitude:
            let stream = try r.u32("stream")
            let raw = try r.u8("absolute")
            guard raw <= 1 else { throw .invalidValue(field: "absolute", value: "\(raw)") }
            message = .subscribeAltitude(stream: stream, absolute: raw == 1)
        case .subscribePedometer:
            let stream = try r.u32("stream")
            message = .subscribePedometer(stream: stream, start: try date(&r, "start date"))
        case .subscribePedometerEvents:
            message = .subscribePedometerEvents(stream: try r.u32("stream"))
        case .subscribeActivity:
            message = .subscribeActivity(stream: try r.u32("stream"))
        case .unsubscribe:
            message = .unsubscribe(stream: try r.u32("stream"))
        case .subscribeHeadphoneConnection:
            message = .subscribeHeadphoneConnection(stream: try r.u32("stream"))
        case .subscribeHeadphoneMotion:
            message = .subscribeHeadphoneMotion(stream: try r.u32("stream"))
        case .subscribeHeadphoneActivity:
            message = .subscribeHeadphoneActivity(stream: try r.u32("stream"))
        case .queryPedometer, .queryActivity, .queryRecordedAccelerometer:
            let request = try r.u32("request")
            let from = try date(&r, "from date")
            let to = try date(&r, "to date")
            switch type {
            case .queryPedometer: message = .queryPedometer(request: request, from: from, to: to)
            case .queryActivity: message = .queryActivity(request: request, from: from, to: to)
            default: message = .queryRecordedAccelerometer(request: request, from: from, to: to)
            }
        case .recordAccelerometer:
            let request = try r.u32("request")
            let duration = try r.finite("duration")
            guard duration > 0 else { throw .invalidValue(field: "duration", value: "\(duration)") }
            message = .recordAccelerometer(request: request, duration: duration)
        case .status:
            message = .status(request: try r.u32("request"))
        case .permissions:
            let request = try r.u32("request")
            let raw = try r.u8("operation")
            guard let operation = PermissionOperation(rawValue: raw) else { throw .invalidValue(field: "operation", value: "\(raw)") }
            let uid = try r.u32("uid")
            let app = try r.string("app", limit: maximumNameLength)
            message = .permissions(request: request, operation: operation, uid: uid == UInt32.max ? nil : uid, app: app)
        default:
            throw .unexpectedMessageType(type)
        }
        try r.expectEnd("\(type)")
        return message
    }

    /// An interval: finite and not negative (0 means "as fast as the device runs").
    private static func interval(_ r: inout ByteReader) throws(ProtocolError) -> Double {
        let value = try r.finite("interval")
        guard value >= 0 else { throw .invalidValue(field: "interval", value: "\(value)") }
        return value
    }

    private static func date(_ r: inout ByteReader, _ field: StaticString) throws(ProtocolError) -> Date {
        Date(timeIntervalSince1970: try r.finite(field))
    }
}
