import Foundation
import MotionEmulation
import MotionNetwork

/// Seeds of `SensorLoggerPushFuzzer`: push bodies in the real shape (synthesised: double-rendered ns, string
/// booleans, unsorted payloads, the empty test `values`), each with what the decoder must answer: `nil` (it
/// decodes) or the kind of refusal.
func sensorLoggerSeeds() -> [(name: String, bytes: [UInt8], refusal: SensorLoggerDecodingError.Kind?)] {
    var seeds: [(String, [UInt8], SensorLoggerDecodingError.Kind?)] = []
    let writer = SensorLoggerPushWriter()
    let t0: Int64 = 1_745_877_875_760_478_500
    typealias R = SensorLoggerPushWriter.Reading
    func ms(_ k: Int) -> Int64 { t0 + Int64(k) * 10_000_000 }
    func valid(_ name: String, _ readings: [R], id: Int64 = 7, device: String = "3F2A0C1E-5B6D-4E7F-8A9B-0C1D2E3F4A5B") {
        seeds.append((name, writer.body(messageId: id, sessionId: "9B1D2E3F-4A5B-4C6D-8E7F-0A1B2C3D4E5F", deviceId: device, readings: readings), nil))
    }
    func text(_ name: String, _ body: String, _ refusal: SensorLoggerDecodingError.Kind?) {
        seeds.append((name, Array(body.utf8), refusal))
    }
    // iOS with standardisation off: raw accelerometer in g, Apple's outputs, slower sensors; not time-sorted.
    valid("ios-batch", [
        R(name: "gyroscopeuncalibrated", time: ms(1), values: [("z", .number(0.0165)), ("y", .number(-0.5845)), ("x", .number(0.1330))]),
        R(name: "accelerometeruncalibrated", time: ms(0), values: [("z", .number(-0.9183502197265625)), ("y", .number(-0.47406005859375)), ("x", .number(0.089385986328125))]),
        R(name: "magnetometeruncalibrated", time: ms(0), values: [("z", .number(-35.408)), ("y", .number(54.946)), ("x", .number(67.088))]),
        R(name: "gravity", time: ms(2), values: [("z", .number(-8.5868)), ("y", .number(-4.5569)), ("x", .number(1.2929))]),
        R(name: "accelerometer", time: ms(2), values: [("z", .number(0.1911)), ("y", .number(-0.1218)), ("x", .number(-0.5513))]),
        R(name: "orientation", time: ms(2), values: [("yaw", .number(-1.483)), ("qx", .number(-0.2249)), ("qz", .number(0.6408)), ("roll", .number(0.1494)), ("qw", .number(-0.7261)), ("qy", .number(0.1077)), ("pitch", .number(0.4833))]),
        R(name: "accelerometeruncalibrated", time: ms(1), values: [("z", .number(-0.8811)), ("y", .number(-0.4750)), ("x", .number(0.0752))]),
        R(name: "barometer", time: ms(3), values: [("relativeAltitude", .number(-0.0211)), ("pressure", .number(1019.531))]),
        R(name: "pedometer", time: ms(4), values: [("steps", .number(13))]),
        R(name: "compass", time: ms(2), values: [("magneticBearing", .number(95.637))]),
        R(name: "activity", time: ms(5), values: [("activity", .string("walking")), ("confidence", .string("high"))]),
    ])
    // Android: accuracy on the raw sensors, m/s² with +g up, Android-only readings.
    valid("android-batch", [
        R(name: "accelerometeruncalibrated", time: ms(0), values: [("x", .number(0.12)), ("y", .number(0.3)), ("z", .number(9.79))], accuracy: 3),
        R(name: "totalacceleration", time: ms(0), values: [("x", .number(0.1)), ("y", .number(0.31)), ("z", .number(9.81))]),
        R(name: "gyroscopeuncalibrated", time: ms(1), values: [("x", .number(0.01)), ("y", .number(-0.02)), ("z", .number(0.003))], accuracy: 3),
        R(name: "light", time: ms(3), values: [("lux", .number(120))]),
        R(name: "battery", time: ms(4), values: [("batteryLevel", .number(0.5)), ("voltage", .number(4100)), ("health", .string("good"))]),
        R(name: "activity", time: ms(5), values: [("activity", .string("tilting"))]),
    ], device: "android-7f3c")
    valid("test-push", [SensorLoggerPushWriter.testReading()], id: 0)
    valid("string-booleans", [R(name: "Battery", time: ms(0), values: [("batteryLevel", .string("0.8")), ("batteryState", .string("unplugged")), ("lowPowerMode", .string("False"))])])
    valid("headphone", [R(name: "headphone", time: ms(0), values: [
        ("quaternionW", .number(0.99)), ("quaternionX", .number(0.01)), ("quaternionY", .number(0.1)), ("quaternionZ", .number(0)),
        ("rotationRateX", .number(0.2)), ("rotationRateY", .number(-0.1)), ("rotationRateZ", .number(0)),
        ("accelerationX", .number(0.01)), ("accelerationY", .number(0)), ("accelerationZ", .number(-0.02)),
        ("gravityX", .number(0.1)), ("gravityY", .number(-0.3)), ("gravityZ", .number(-9.3)), ("devicelocation", .string("right")),
    ])])
    valid("wrist-motion", [R(name: "Wrist Motion", time: ms(0), values: [("rotationRateX", .number(0.1)), ("gravityZ", .number(-1))])])
    valid("empty-payload", [])
    text("lenient-forms", #"{"messageId":"12","sessionId":null,"deviceId":42,"userId":"u\u00e9","payload":[{"name":"gravity","time":"1745877875782820400","values":{"x":"1.5","y":-2e-3,"z":true,"extra":{"deep":[1,{"a":null}]}}},{"name":"magnetometer","time":1.7458778757828204e18,"values":null,"accuracy":"2"}],"extra":[1,2,3]}"#, nil)
    text("null-payload", #"{"messageId":3,"deviceId":"d","payload":null}"#, nil)
    // Refusals.
    text("malformed-truncated", #"{"messageId":1,"payload":[{"name":"accelerometer","time":"#, .syntax)
    text("malformed-not-an-object", "[1,2,3]", .notAMessage)
    text("malformed-payload-not-array", #"{"payload":{"name":"gravity"}}"#, .notAMessage)
    text("malformed-no-payload", #"{"messageId":1,"deviceId":"d"}"#, .notAMessage)
    text("malformed-reading-without-time", #"{"payload":[{"name":"gravity","values":{"x":1}}]}"#, .badReading)
    text("malformed-fractional-time", #"{"payload":[{"name":"gravity","time":1.5,"values":{}}]}"#, .badReading)
    text("malformed-bad-number", #"{"payload":[{"name":"gravity","time":1,"values":{"x":1.2.3}}]}"#, .syntax)
    text("malformed-trailing", #"{"payload":[]}{"payload":[]}"#, .syntax)
    text("malformed-control-character", "{\"deviceId\":\"a\u{7}b\",\"payload\":[]}", .syntax)
    text("malformed-message-id", #"{"messageId":{"n":1},"payload":[]}"#, .badEnvelope)
    text("malformed-deep", #"{"payload":[],"x":"# + String(repeating: "[", count: 80) + String(repeating: "]", count: 80) + "}", .tooLarge)
    seeds.append(("malformed-name-not-utf8", Array(#"{"payload":[{"name":""#.utf8) + [0xC3, 0x28] + Array(#"","time":1}]}"#.utf8), .syntax))
    return seeds
}
