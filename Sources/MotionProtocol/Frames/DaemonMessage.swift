import Foundation

/// The daemon's answer to a hello: who the client is to the daemon and what the device offers.
public struct DaemonWelcome: Sendable, Hashable {
    /// The daemon's protocol version (equal to the client's: otherwise the answer is a failure).
    public var version: UInt16
    /// The decision for this user and app.
    public var authorization: AuthorizationStatus
    /// The app as the daemon identified it (the key of its decisions: `coremotion permissions grant ID`).
    public var appID: String
    /// The device the daemon owns.
    public var deviceName: String
    /// Its sensors now.
    public var sensors: [SensorDescription]
    /// The reference frames usable now.
    public var referenceFrames: Set<AttitudeReferenceFrame>
    /// Whether absolute altitude is available.
    public var absoluteAltitude: Bool
    /// Whether the sensor recorder is available.
    public var recorderAvailable: Bool
    /// The most values that wait for this client while its socket is full (see docs/protocol.md).
    public var bufferCapacity: UInt32
    /// The daemon's headphone source (`coremotiond --headphone-device`), or `nil` without headphones: whether
    /// headphone motion is available (version 2).
    public var headphones: String?

    public init(
        version: UInt16 = ProtocolVersion.current, authorization: AuthorizationStatus, appID: String, deviceName: String,
        sensors: [SensorDescription], referenceFrames: Set<AttitudeReferenceFrame>, absoluteAltitude: Bool,
        recorderAvailable: Bool, bufferCapacity: UInt32, headphones: String? = nil
    ) {
        self.headphones = headphones
        self.version = version
        self.authorization = authorization
        self.appID = appID
        self.deviceName = deviceName
        self.sensors = sensors
        self.referenceFrames = referenceFrames
        self.absoluteAltitude = absoluteAltitude
        self.recorderAvailable = recorderAvailable
        self.bufferCapacity = bufferCapacity
    }
}

/// Why a request failed.
public enum ReplyErrorCode: UInt8, Sendable, Hashable {
    /// The app is not authorized (the reply carries the status).
    case notAuthorized = 1
    /// The device lacks what the request needs.
    case notAvailable = 2
    /// A parameter is out of range.
    case invalidParameter = 3
    /// The history cannot be read or written.
    case historyUnavailable = 4
    /// Anything else.
    case failed = 5
    /// The caller may not change these decisions.
    case forbidden = 6
}

/// A request's answer.
public enum Reply: Sendable, Hashable {
    /// Done, nothing to return.
    case done
    case pedometer(PedometerTotals)
    case activities([ActivityReport])
    /// A page of recorded samples; `more` says further pages follow under the same request.
    case recorded([RecordedAccelerometerSample], more: Bool)
    /// A JSON document (status, permissions).
    case document(String)
    case error(ReplyErrorCode, authorization: AuthorizationStatus, message: String)

    fileprivate var tag: UInt8 {
        switch self {
        case .done: 0
        case .pedometer: 1
        case .activities: 2
        case .recorded: 3
        case .document: 4
        case .error: 5
        }
    }
}

/// Something that happened to the device or the client's standing.
public enum DaemonEvent: Sendable, Hashable {
    /// A sensor stopped delivering; it is unavailable until it returns.
    case sensorLost(SensorKind, reason: String)
    /// A lost sensor is back.
    case sensorReturned(SensorDescription)
    /// The device's recording reached its end (a replay without loop).
    case endOfData
    /// The decision for this app changed.
    case authorizationChanged(AuthorizationStatus)
    /// The daemon ended a stream (it was refused, or the sensor went away).
    case streamEnded(stream: UInt32, reason: String)

    fileprivate var tag: UInt8 {
        switch self {
        case .sensorLost: 1
        case .sensorReturned: 2
        case .endOfData: 3
        case .authorizationChanged: 4
        case .streamEnded: 5
        }
    }
}

/// Why the daemon closes the connection. The layout of the failure message never changes.
public enum FailureCode: UInt16, Sendable, Hashable {
    /// The client speaks another protocol version.
    case unsupportedVersion = 1
    /// A frame could not be decoded.
    case malformedFrame = 2
    /// A frame was larger than allowed.
    case frameTooLarge = 3
    /// The first frame was not a hello.
    case helloExpected = 4
    /// The daemon is stopping.
    case shuttingDown = 5
    /// The client did not read its socket for too long.
    case tooSlow = 6
    /// The administrator's policy forbids this user or app.
    case restricted = 7
    /// Too many clients or streams.
    case overloaded = 8
}

/// A message from the daemon to a client.
public enum DaemonMessage: Sendable, Hashable {
    case welcome(DaemonWelcome)
    /// Values of one stream, all of one ``RecordKind``.
    case samples(stream: UInt32, values: [StreamValue])
    /// `count` values of `stream` were discarded because the client did not read its socket fast enough.
    case dropped(stream: UInt32, count: UInt64)
    case reply(request: UInt32, Reply)
    case event(DaemonEvent)
    /// The daemon closes the connection after this.
    case failure(FailureCode, message: String)

    /// Longest message or name in a frame, bytes.
    public static let maximumTextLength = 4096
    /// Longest JSON document, bytes.
    public static let maximumDocumentLength = 512 * 1024

    public var type: MessageType {
        switch self {
        case .welcome: .welcome
        case .samples: .samples
        case .dropped: .dropped
        case .reply: .reply
        case .event: .event
        case .failure: .failure
        }
    }

    /// Appends the whole frame. A samples message must hold values of one kind and at most
    /// ``RecordCodec/maximumRecordsPerFrame`` of them (the encoder checks).
    public func encode(into w: inout ByteWriter) {
        w.beginFrame(type)
        switch self {
        case .welcome(let welcome):
            w.u16(welcome.version)
            w.u8(UInt8(welcome.authorization.rawValue))
            var flags: UInt8 = 0
            if welcome.absoluteAltitude { flags |= 1 }
            if welcome.recorderAvailable { flags |= 2 }
            if welcome.headphones != nil { flags |= 4 }
            w.u8(flags)
            w.u8(UInt8(welcome.referenceFrames.reduce(0) { $0 | $1.rawValue }))
            w.u32(welcome.bufferCapacity)
            w.string(welcome.appID, limit: Self.maximumTextLength)
            w.string(welcome.deviceName, limit: Self.maximumTextLength)
            w.string(welcome.headphones ?? "", limit: Self.maximumTextLength)
            w.u8(UInt8(min(welcome.sensors.count, SensorKind.allCases.count)))
            for sensor in welcome.sensors.prefix(SensorKind.allCases.count) {
                Self.encode(sensor, into: &w)
            }
        case .samples(let stream, let values):
            precondition(values.count <= RecordCodec.maximumRecordsPerFrame, "too many records for one frame")
            let kind = values.first?.kind ?? .accelerometer
            w.u32(stream)
            w.u8(kind.rawValue)
            w.u16(UInt16(values.count))
            for value in values {
                precondition(value.kind == kind, "a samples frame holds one kind")
                RecordCodec.encode(value, into: &w)
            }
        case .dropped(let stream, let count):
            w.u32(stream)
            w.u64(count)
        case .reply(let request, let reply):
            w.u32(request)
            w.u8(reply.tag)
            switch reply {
            case .done:
                break
            case .pedometer(let totals):
                RecordCodec.encode(.pedometer(totals), into: &w)
            case .activities(let list):
                w.u32(UInt32(list.count))
                for a in list { RecordCodec.encode(.activity(a), into: &w) }
            case .recorded(let list, let more):
                w.u8(more ? 1 : 0)
                w.u32(UInt32(list.count))
                for s in list { RecordCodec.encode(.recorded(s), into: &w) }
            case .document(let text):
                w.longString(text, limit: Self.maximumDocumentLength)
            case .error(let code, let authorization, let message):
                w.u8(code.rawValue)
                w.u8(UInt8(authorization.rawValue))
                w.string(message, limit: Self.maximumTextLength)
            }
        case .event(let event):
            w.u8(event.tag)
            switch event {
            case .sensorLost(let sensor, let reason):
                w.u8(RecordKind(sensor: sensor).rawValue)
                w.string(reason, limit: Self.maximumTextLength)
            case .sensorReturned(let description):
                Self.encode(description, into: &w)
            case .endOfData:
                break
            case .authorizationChanged(let status):
                w.u8(UInt8(status.rawValue))
            case .streamEnded(let stream, let reason):
                w.u32(stream)
                w.string(reason, limit: Self.maximumTextLength)
            }
        case .failure(let code, let message):
            w.u16(code.rawValue)
            w.string(message, limit: Self.maximumTextLength)
        }
        w.endFrame()
    }

    /// The frame as bytes.
    public var encoded: [UInt8] {
        var w = ByteWriter()
        encode(into: &w)
        return w.bytes
    }

    /// Records of one reply page or samples frame that fit in a daemon frame.
    public static func recordsPerFrame(_ kind: RecordKind) -> Int {
        min(RecordCodec.maximumRecordsPerFrame, (FrameHeader.maximumDaemonFrame - 64) / kind.size)
    }

    /// Rates a sensor description may carry, Hz (a device outside it is described at the nearest bound, so
    /// that an odd recording or driver never makes every client refuse the welcome).
    public static let sensorRateRange: ClosedRange<Double> = 1e-6...10_000_000

    private static func encode(_ sensor: SensorDescription, into w: inout ByteWriter) {
        w.u8(RecordKind(sensor: sensor.kind).rawValue)
        func clamped(_ rate: Double) -> Double {
            rate.isFinite ? min(max(rate, sensorRateRange.lowerBound), sensorRateRange.upperBound) : sensorRateRange.lowerBound
        }
        let minimum = clamped(sensor.minimumRate)
        w.f64(minimum)
        w.f64(max(minimum, clamped(sensor.maximumRate)))
        w.string(sensor.name, limit: maximumTextLength)
    }

    private static func decodeSensor(_ r: inout ByteReader) throws(ProtocolError) -> SensorDescription {
        let raw = try r.u8("sensor")
        guard let kind = RecordKind(rawValue: raw)?.sensor else { throw .invalidValue(field: "sensor", value: "\(raw)") }
        let minimum = try r.finite("minimum rate")
        let maximum = try r.finite("maximum rate")
        guard sensorRateRange.contains(minimum), sensorRateRange.contains(maximum), maximum >= minimum else {
            throw .invalidValue(field: "sensor rates", value: "\(minimum)…\(maximum) Hz")
        }
        let name = try r.string("sensor name", limit: maximumTextLength)
        return SensorDescription(kind: kind, name: name, minimumRate: minimum, maximumRate: maximum)
    }

    private static func status(_ r: inout ByteReader) throws(ProtocolError) -> AuthorizationStatus {
        let raw = try r.u8("authorization")
        guard let status = AuthorizationStatus(rawValue: Int(raw)) else { throw .invalidValue(field: "authorization", value: "\(raw)") }
        return status
    }

    /// Reads a message from `frame` (type byte and payload, without the length field).
    public static func decode(_ frame: UnsafeRawBufferPointer) throws(ProtocolError) -> DaemonMessage {
        var r = ByteReader(frame)
        let rawType = try r.u8("message type")
        guard let type = MessageType(rawValue: rawType) else { throw .unknownMessageType(rawType) }
        let message: DaemonMessage
        switch type {
        case .welcome:
            let version = try r.u16("version")
            let authorization = try status(&r)
            let flags = try r.u8("flags")
            let rawFrames = try r.u8("reference frames")
            let frames = Set(AttitudeReferenceFrame.allCases.filter { UInt8($0.rawValue) & rawFrames != 0 })
            let capacity = try r.u32("buffer capacity")
            let appID = try r.string("app id", limit: maximumTextLength)
            let device = try r.string("device name", limit: maximumTextLength)
            let headphones = try r.string("headphone source", limit: maximumTextLength)
            guard flags & 4 != 0 || headphones.isEmpty else {
                throw .invalidValue(field: "headphone source", value: "named without the headphone flag")
            }
            let count = Int(try r.u8("sensor count"))
            guard count <= SensorKind.allCases.count else { throw .invalidValue(field: "sensor count", value: "\(count)") }
            var sensors: [SensorDescription] = []
            for _ in 0..<count { sensors.append(try decodeSensor(&r)) }
            guard Set(sensors.map(\.kind)).count == sensors.count else { throw .invalidValue(field: "sensors", value: "a sensor listed twice") }
            message = .welcome(DaemonWelcome(
                version: version, authorization: authorization, appID: appID, deviceName: device, sensors: sensors,
                referenceFrames: frames, absoluteAltitude: flags & 1 != 0, recorderAvailable: flags & 2 != 0,
                bufferCapacity: capacity, headphones: flags & 4 != 0 ? headphones : nil))
        case .samples:
            let stream = try r.u32("stream")
            let rawKind = try r.u8("record kind")
            guard let kind = RecordKind(rawValue: rawKind) else { throw .invalidValue(field: "record kind", value: "\(rawKind)") }
            let count = Int(try r.u16("record count"))
            guard r.remaining == count * kind.size else {
                throw .invalidValue(field: "record count", value: "\(count) records of \(kind.size) bytes in \(r.remaining) bytes")
            }
            var values: [StreamValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try RecordCodec.decode(kind, from: &r)) }
            message = .samples(stream: stream, values: values)
        case .dropped:
            message = .dropped(stream: try r.u32("stream"), count: try r.u64("count"))
        case .reply:
            let request = try r.u32("request")
            let tag = try r.u8("reply kind")
            let reply: Reply
            switch tag {
            case 0:
                reply = .done
            case 1:
                guard case .pedometer(let totals) = try RecordCodec.decode(.pedometerTotals, from: &r) else {
                    throw .invalidValue(field: "reply", value: "not pedometer totals")
                }
                reply = .pedometer(totals)
            case 2:
                let count = Int(try r.u32("activity count"))
                guard r.remaining == count * RecordKind.activity.size else {
                    throw .invalidValue(field: "activity count", value: "\(count)")
                }
                var list: [ActivityReport] = []
                for _ in 0..<count {
                    if case .activity(let a) = try RecordCodec.decode(.activity, from: &r) { list.append(a) }
                }
                reply = .activities(list)
            case 3:
                let more = try r.u8("more")
                guard more <= 1 else { throw .invalidValue(field: "more", value: "\(more)") }
                let count = Int(try r.u32("sample count"))
                guard r.remaining == count * RecordKind.recordedAccelerometer.size else {
                    throw .invalidValue(field: "sample count", value: "\(count)")
                }
                var list: [RecordedAccelerometerSample] = []
                list.reserveCapacity(count)
                for _ in 0..<count {
                    if case .recorded(let s) = try RecordCodec.decode(.recordedAccelerometer, from: &r) { list.append(s) }
                }
                reply = .recorded(list, more: more == 1)
            case 4:
                reply = .document(try r.longString("document", limit: maximumDocumentLength))
            case 5:
                let raw = try r.u8("error code")
                guard let code = ReplyErrorCode(rawValue: raw) else { throw .invalidValue(field: "error code", value: "\(raw)") }
                let authorization = try status(&r)
                reply = .error(code, authorization: authorization, message: try r.string("error message", limit: maximumTextLength))
            default:
                throw .invalidValue(field: "reply kind", value: "\(tag)")
            }
            message = .reply(request: request, reply)
        case .event:
            let tag = try r.u8("event kind")
            switch tag {
            case 1:
                let raw = try r.u8("sensor")
                guard let sensor = RecordKind(rawValue: raw)?.sensor else { throw .invalidValue(field: "sensor", value: "\(raw)") }
                message = .event(.sensorLost(sensor, reason: try r.string("reason", limit: maximumTextLength)))
            case 2:
                message = .event(.sensorReturned(try decodeSensor(&r)))
            case 3:
                message = .event(.endOfData)
            case 4:
                message = .event(.authorizationChanged(try status(&r)))
            case 5:
                let stream = try r.u32("stream")
                message = .event(.streamEnded(stream: stream, reason: try r.string("reason", limit: maximumTextLength)))
            default:
                throw .invalidValue(field: "event kind", value: "\(tag)")
            }
        case .failure:
            let raw = try r.u16("failure code")
            let message_ = try r.string("failure message", limit: maximumTextLength)
            // Unknown codes from a newer daemon still carry a readable message.
            message = .failure(FailureCode(rawValue: raw) ?? .malformedFrame, message: message_)
        default:
            throw .unexpectedMessageType(type)
        }
        try r.expectEnd("\(type)")
        return message
    }
}
