import Foundation
import MotionProtocol
import Testing

/// A frame body (no length field) and the error that must name what is wrong with it.
struct Hostile: Sendable, CustomTestStringConvertible {
    let name: String
    let frame: [UInt8]
    let error: ProtocolError
    var testDescription: String { name }

    init(_ name: String, _ frame: FrameBytes, _ error: ProtocolError) {
        self.name = name
        self.frame = frame.bytes
        self.error = error
    }
}

let magicHello = FrameBytes(.hello).u32(ProtocolVersion.magic).u16(1).u16(0)

let hostileClientFrames: [Hostile] = [
    Hostile("type 0", FrameBytes(0), .unknownMessageType(0)),
    Hostile("unknown type", FrameBytes(0x7F), .unknownMessageType(0x7F)),
    Hostile("daemon message", FrameBytes(.welcome), .unexpectedMessageType(.welcome)),
    Hostile("wrong magic", FrameBytes(.hello).raw(Array("GET ".utf8)).u16(1).u16(0).string(""),
        .notCoreMotion("the hello does not start with CMOT")),
    Hostile("hello without version", FrameBytes(.hello).u32(ProtocolVersion.magic), .truncated("version")),
    Hostile("hello without flags", FrameBytes(.hello).u32(ProtocolVersion.magic).u16(1), .truncated("flags")),
    Hostile("hello without hint", magicHello, .truncated("app hint")),
    Hostile("hint shorter than its count", magicHello.u16(10).raw(Array("abc".utf8)), .truncated("app hint")),
    Hostile("hint over 255 bytes", magicHello.u16(256).raw([UInt8](repeating: 0x61, count: 256)),
        .invalidValue(field: "app hint", value: "256 bytes (at most 255)")),
    Hostile("hint count 65535", magicHello.u16(UInt16.max), .invalidValue(field: "app hint", value: "65535 bytes (at most 255)")),
    Hostile("hint not UTF-8", magicHello.u16(2).raw([0xC3, 0x28]), .invalidValue(field: "app hint", value: "bytes that are not UTF-8")),
    Hostile("hint with a lone surrogate", magicHello.u16(3).raw([0xED, 0xA0, 0x80]),
        .invalidValue(field: "app hint", value: "bytes that are not UTF-8")),
    Hostile("trailing byte after hello", magicHello.string("a").u8(0), .trailingBytes(message: "hello", count: 1)),
    Hostile("sensor kind 5", FrameBytes(.subscribeSensor).u32(1).u8(5).f64(0.1), .invalidValue(field: "sensor", value: "5")),
    Hostile("sensor kind 0", FrameBytes(.subscribeSensor).u32(1).u8(0).f64(0.1), .invalidValue(field: "sensor", value: "0")),
    Hostile("NaN interval", FrameBytes(.subscribeSensor).u32(1).u8(1).f64(.nan), .invalidValue(field: "interval", value: "nan")),
    Hostile("infinite interval", FrameBytes(.subscribeSensor).u32(1).u8(1).f64(.infinity), .invalidValue(field: "interval", value: "inf")),
    Hostile("negative interval", FrameBytes(.subscribeSensor).u32(1).u8(1).f64(-0.5), .invalidValue(field: "interval", value: "-0.5")),
    Hostile("interval cut", FrameBytes(.subscribeSensor).u32(1).u8(1).raw([0, 0, 0]), .truncated("interval")),
    Hostile("reference frame 3", FrameBytes(.subscribeDeviceMotion).u32(1).u8(3).f64(0),
        .invalidValue(field: "reference frame", value: "3")),
    Hostile("absolute 2", FrameBytes(.subscribeAltitude).u32(1).u8(2), .invalidValue(field: "absolute", value: "2")),
    Hostile("start date NaN", FrameBytes(.subscribePedometer).u32(1).f64(.nan), .invalidValue(field: "start date", value: "nan")),
    Hostile("stream cut", FrameBytes(.unsubscribe).raw([1, 0]), .truncated("stream")),
    Hostile("to date missing", FrameBytes(.queryPedometer).u32(1).f64(0), .truncated("to date")),
    Hostile("to date -inf", FrameBytes(.queryActivity).u32(1).f64s(0, -.infinity), .invalidValue(field: "to date", value: "-inf")),
    Hostile("zero duration", FrameBytes(.recordAccelerometer).u32(1).f64(0), .invalidValue(field: "duration", value: "0.0")),
    Hostile("request cut", FrameBytes(.status).raw([1]), .truncated("request")),
    Hostile("trailing bytes after status", FrameBytes(.status).u32(1).u32(0), .trailingBytes(message: "status", count: 4)),
    Hostile("operation 4", FrameBytes(.permissions).u32(1).u8(4).u32(0).string("a"), .invalidValue(field: "operation", value: "4")),
    Hostile("uid missing", FrameBytes(.permissions).u32(1).u8(0), .truncated("uid")),
    Hostile("app over 255 bytes", FrameBytes(.permissions).u32(1).u8(1).u32(0).u16(300),
        .invalidValue(field: "app", value: "300 bytes (at most 255)")),
]

/// A welcome's fixed fields, before the strings.
let welcomeHead = FrameBytes(.welcome).u16(1).u8(3).u8(3).u8(15).u32(64)
/// A samples frame of one record of `kind`.
func samplesHead(_ kind: RecordKind, count: UInt16 = 1) -> FrameBytes {
    FrameBytes(.samples).u32(1).u8(kind.rawValue).u16(count)
}
let deviceMotionFields = samplesHead(.deviceMotion).f64s(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, -1, 0, 0, 0, 20, 0, -40)

let hostileDaemonFrames: [Hostile] = [
    Hostile("type 0", FrameBytes(0), .unknownMessageType(0)),
    Hostile("unknown type", FrameBytes(0x86), .unknownMessageType(0x86)),
    Hostile("client message", FrameBytes(.hello), .unexpectedMessageType(.hello)),
    Hostile("authorization 4", FrameBytes(.welcome).u16(1).u8(4), .invalidValue(field: "authorization", value: "4")),
    Hostile("welcome cut", FrameBytes(.welcome).u16(1).u8(3).u8(0), .truncated("reference frames")),
    Hostile("app id over 4096 bytes", welcomeHead.u16(4097), .invalidValue(field: "app id", value: "4097 bytes (at most 4096)")),
    Hostile("device name not UTF-8", welcomeHead.string("a").u16(1).u8(0xFF),
        .invalidValue(field: "device name", value: "bytes that are not UTF-8")),
    Hostile("headphone source without the flag", welcomeHead.string("a").string("d").string("AirPods"),
        .invalidValue(field: "headphone source", value: "named without the headphone flag")),
    Hostile("headphone source cut", welcomeHead.string("a").string("d").u8(0), .truncated("headphone source")),
    Hostile("sensor location 3", samplesHead(.headphoneMotion).f64s(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, -1).u8(3).raw([UInt8](repeating: 0, count: 7)),
        .invalidValue(field: "sensor location", value: "3")),
    Hostile("NaN headphone attitude", samplesHead(.headphoneMotion).f64s(1, 0, .nan).raw([UInt8](repeating: 0, count: 96)),
        .invalidValue(field: "attitude y", value: "nan")),
    Hostile("connected 2", samplesHead(.headphoneConnection).f64(1).u8(2).raw([UInt8](repeating: 0, count: 7)),
        .invalidValue(field: "connected", value: "2")),
    Hostile("infinite connection time", samplesHead(.headphoneConnection).f64(.infinity).u8(1).raw([UInt8](repeating: 0, count: 7)),
        .invalidValue(field: "connection time", value: "inf")),
    Hostile("5 sensors", welcomeHead.string("a").string("d").string("").u8(5), .invalidValue(field: "sensor count", value: "5")),
    Hostile("sensor missing", welcomeHead.string("a").string("d").string("").u8(1), .truncated("sensor")),
    Hostile("sensor kind 6", welcomeHead.string("a").string("d").string("").u8(1).u8(6), .invalidValue(field: "sensor", value: "6")),
    Hostile("zero minimum rate", welcomeHead.string("a").string("d").string("").u8(1).u8(1).f64s(0, 100).string("s"),
        .invalidValue(field: "sensor rates", value: "0.0…100.0 Hz")),
    Hostile("maximum below minimum", welcomeHead.string("a").string("d").string("").u8(1).u8(1).f64s(100, 10).string("s"),
        .invalidValue(field: "sensor rates", value: "100.0…10.0 Hz")),
    Hostile("infinite maximum rate", welcomeHead.string("a").string("d").string("").u8(1).u8(1).f64s(1, .infinity),
        .invalidValue(field: "maximum rate", value: "inf")),
    Hostile("a sensor listed twice",
        welcomeHead.string("a").string("d").string("").u8(2).u8(1).f64s(1, 100).string("x").u8(1).f64s(1, 100).string("y"),
        .invalidValue(field: "sensors", value: "a sensor listed twice")),
    Hostile("record kind 0", FrameBytes(.samples).u32(1).u8(0).u16(0), .invalidValue(field: "record kind", value: "0")),
    Hostile("record count cut", FrameBytes(.samples).u32(1).u8(1).u8(0), .truncated("record count")),
    Hostile("more records than bytes", samplesHead(.accelerometer, count: 2).f64s(1, 0, 0, 0),
        .invalidValue(field: "record count", value: "2 records of 32 bytes in 32 bytes")),
    Hostile("65535 records in none", samplesHead(.deviceMotion, count: UInt16.max),
        .invalidValue(field: "record count", value: "65535 records of 152 bytes in 0 bytes")),
    Hostile("a byte after the records", samplesHead(.needsMovement).f64(0).u8(0),
        .invalidValue(field: "record count", value: "1 records of 8 bytes in 9 bytes")),
    Hostile("NaN sample time", samplesHead(.accelerometer).f64s(.nan, 0, 0, 0), .invalidValue(field: "sample time", value: "nan")),
    Hostile("infinite z", samplesHead(.magnetometer).f64s(0, 0, 0, -.infinity), .invalidValue(field: "z", value: "-inf")),
    Hostile("NaN pressure", samplesHead(.barometer).f64s(0, .nan, 20), .invalidValue(field: "pressure", value: "nan")),
    Hostile("infinite temperature", samplesHead(.barometer).f64s(0, 100, .infinity),
        .invalidValue(field: "temperature", value: "inf")),
    Hostile("NaN attitude", samplesHead(.deviceMotion).f64s(1, 0, .nan).raw([UInt8](repeating: 0, count: 128)),
        .invalidValue(field: "attitude y", value: "nan")),
    Hostile("field accuracy 3", deviceMotionFields.u32(3).u32(0).f64(0), .invalidValue(field: "field accuracy", value: "3")),
    Hostile("field accuracy -2", deviceMotionFields.u32(UInt32(bitPattern: -2)).u32(0).f64(0),
        .invalidValue(field: "field accuracy", value: "-2")),
    Hostile("NaN heading", deviceMotionFields.u32(0).u32(0).f64(.nan), .invalidValue(field: "heading", value: "nan")),
    Hostile("absolute altitude partly given", samplesHead(.altitude).f64s(0, 0, 101, 300, .nan, .nan),
        .invalidValue(field: "absolute altitude", value: "partly given")),
    Hostile("infinite absolute altitude", samplesHead(.altitude).f64s(0, 0, 101, .infinity, 1, 1),
        .invalidValue(field: "absolute altitude", value: "inf")),
    Hostile("steps above Int32.max", samplesHead(.pedometerTotals).f64s(0, 1).u64(UInt64(Int32.max) + 1).raw([UInt8](repeating: 0, count: 40)),
        .invalidValue(field: "steps", value: "2147483648")),
    Hostile("NaN distance", samplesHead(.pedometerTotals).f64s(0, 1).u64(1).f64(.nan).raw([UInt8](repeating: 0, count: 32)),
        .invalidValue(field: "distance", value: "nan")),
    Hostile("resumed 2", samplesHead(.pedometerEvent).f64(0).u8(2).raw([UInt8](repeating: 0, count: 7)),
        .invalidValue(field: "resumed", value: "2")),
    Hostile("activity flag 0x40 set", samplesHead(.activity).f64s(0, 0).u8(0x41).u8(0).raw([UInt8](repeating: 0, count: 6)),
        .invalidValue(field: "activity flags", value: "0x41")),
    Hostile("confidence 3", samplesHead(.activity).f64s(0, 0).u8(1).u8(3).raw([UInt8](repeating: 0, count: 6)),
        .invalidValue(field: "confidence", value: "3")),
    Hostile("infinite sample date", samplesHead(.recordedAccelerometer).u64(1).f64s(.infinity, 0, 0, 0),
        .invalidValue(field: "sample date", value: "inf")),
    Hostile("dropped count cut", FrameBytes(.dropped).u32(1).u32(0), .truncated("count")),
    Hostile("reply kind 6", FrameBytes(.reply).u32(1).u8(6), .invalidValue(field: "reply kind", value: "6")),
    Hostile("trailing byte after done", FrameBytes(.reply).u32(1).u8(0).u8(0), .trailingBytes(message: "reply", count: 1)),
    Hostile("pedometer reply cut", FrameBytes(.reply).u32(1).u8(1).f64(0), .truncated("end date")),
    Hostile("4 billion activities", FrameBytes(.reply).u32(1).u8(2).u32(UInt32.max),
        .invalidValue(field: "activity count", value: "4294967295")),
    Hostile("more 2", FrameBytes(.reply).u32(1).u8(3).u8(2).u32(0), .invalidValue(field: "more", value: "2")),
    Hostile("4 billion samples", FrameBytes(.reply).u32(1).u8(3).u8(0).u32(UInt32.max),
        .invalidValue(field: "sample count", value: "4294967295")),
    Hostile("document over 512 KiB", FrameBytes(.reply).u32(1).u8(4).u32(UInt32(512 * 1024 + 1)),
        .invalidValue(field: "document", value: "524289 bytes (at most 524288)")),
    Hostile("document shorter than its count", FrameBytes(.reply).u32(1).u8(4).u32(10).raw([0x7B]), .truncated("document")),
    Hostile("error code 0", FrameBytes(.reply).u32(1).u8(5).u8(0).u8(0).string(""), .invalidValue(field: "error code", value: "0")),
    Hostile("error authorization 9", FrameBytes(.reply).u32(1).u8(5).u8(1).u8(9), .invalidValue(field: "authorization", value: "9")),
    Hostile("event kind 6", FrameBytes(.event).u8(6), .invalidValue(field: "event kind", value: "6")),
    Hostile("lost sensor 7", FrameBytes(.event).u8(1).u8(7).string(""), .invalidValue(field: "sensor", value: "7")),
    Hostile("reason cut", FrameBytes(.event).u8(5).u32(1).u16(5).raw([0x61]), .truncated("reason")),
    Hostile("trailing byte after end of data", FrameBytes(.event).u8(3).u8(0), .trailingBytes(message: "event", count: 1)),
    Hostile("failure message over 4096 bytes", FrameBytes(.failure).u16(2).u16(5000),
        .invalidValue(field: "failure message", value: "5000 bytes (at most 4096)")),
]

@Suite struct HostileFrameTests {
    @Test func anEmptyFrameHasNoType() {
        #expect(throws: ProtocolError.truncated("message type")) { try decodeClient([]) }
        #expect(throws: ProtocolError.truncated("message type")) { try decodeDaemon([]) }
    }

    @Test(arguments: hostileClientFrames)
    func clientFrame(_ hostile: Hostile) {
        #expect(throws: hostile.error) { try decodeClient(hostile.frame) }
    }

    @Test(arguments: hostileDaemonFrames)
    func daemonFrame(_ hostile: Hostile) {
        #expect(throws: hostile.error) { try decodeDaemon(hostile.frame) }
    }

    /// Every proper prefix of a valid frame is refused (never read past its end), and so is the frame with
    /// a byte more.
    @Test func everyTruncationAndEveryExtraByteIsRefused() {
        let frames = everyClientMessage.map { (payloadOf($0.encoded), true) } + everyDaemonMessage.map { (payloadOf($0.encoded), false) }
        for (frame, fromClient) in frames {
            let decode: ([UInt8]) throws -> Void = fromClient ? { _ = try decodeClient($0) } : { _ = try decodeDaemon($0) }
            for length in 0..<frame.count {
                #expect(throws: ProtocolError.self, "\(frame.prefix(8)) cut to \(length) bytes") { try decode(Array(frame.prefix(length))) }
            }
            #expect(throws: ProtocolError.self) { try decode(frame + [0]) }
        }
    }

    /// Each message's errors name the field in their description, for the peer's log.
    @Test func descriptionsNameTheField() {
        #expect(ProtocolError.truncated("app hint").description == "frame ends inside app hint")
        #expect(ProtocolError.invalidValue(field: "sensor", value: "5").description == "sensor is invalid: 5")
        #expect(ProtocolError.frameLength(0, limit: 65536).description == "frame length 0 is outside 1…65536")
        #expect(ProtocolError.unknownMessageType(0x7F).description == "unknown message type 0x7f")
        #expect(ProtocolError.trailingBytes(message: "status", count: 4).description == "4 bytes after the end of status")
    }
}
