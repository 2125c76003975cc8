import Foundation
import MotionEmulation
import MotionNetwork
import MotionRecordings
import MotionSamples
import Testing

@Suite("Sensor Logger push decoder")
struct SensorLoggerDecoderTests {
    func decode(_ text: String) throws(SensorLoggerDecodingError) -> SensorLoggerMessage {
        try SensorLoggerDecoder.decode(Array(text.utf8))
    }

    @Test func realShape() throws {
        // As the app sends it: double-rendered ns, payload not sorted, the iOS column order, a string
        // boolean, an unknown reading and key.
        let m = try decode("""
            {"messageId": 12, "sessionId": "9b1d-…", "deviceId": "3f2a", "payload": [
              {"name": "gyroscopeuncalibrated", "time": 1745877875775373600, "values": {"z": 0.0101, "y": -0.4734, "x": 0.1106}},
              {"name": "accelerometeruncalibrated", "time": 1.7458778757604785e18, "values": {"z": -0.9183, "y": -0.4740, "x": 0.0893}},
              {"name": "Battery", "time": "1745877876762000000", "values": {"batteryLevel": "1", "batteryState": "unplugged", "lowPowerMode": "False"}},
              {"name": "Wrist Motion", "time": 1745877876762000000, "values": {"rotationRateX": 1}},
              {"name": "mystery", "time": 1, "values": {"nested": {"a": [1, 2, {"b": null}]}, "x": 3}}
            ]}
            """)
        #expect(m.messageId == 12)
        #expect(m.sessionId == "9b1d-…")
        #expect(m.deviceId == "3f2a")
        #expect(m.readings.count == 5)
        let gyro = m.readings[0]
        #expect(gyro.sensor == .gyroscopeUncalibrated)
        #expect(gyro.time == 1_745_877_875_775_373_600)
        #expect(m.vector(in: gyro) == Vector3(0.1106, -0.4734, 0.0101))
        #expect(m.readings[1].time == 1_745_877_875_760_478_464)  // the double's value
        let battery = m.readings[2]
        #expect(battery.sensor == .battery)
        #expect(m.number(.batteryLevel, in: battery) == 1)
        #expect(m.number(.lowPowerMode, in: battery) == 0)
        #expect(m.string(.batteryState, inReadingAt: 2) == "unplugged")
        #expect(m.readings[3].sensor == .wristMotion)
        #expect(m.readings[4].sensor == .other("mystery"))
        #expect(m.number(.x, in: m.readings[4]) == 3)
    }

    /// The one-pass number reader gives the bits the parser gives the same text, for every shape of number:
    /// zeros and their signs, leading zeros in a fraction, 19 and 20+ significant digits, exponents, the
    /// extremes, and 2,000 random decimals.
    @Test func numbersAreReadAsTheParserReadsThem() throws {
        var texts = [
            "0", "-0", "0.0", "-0.0", "0.000", "1", "-1", "0.1", "0.3", "0.000123", "-0.0000000001234",
            "9007199254740993", "1234567890123456789", "12345678901234567890", "0.12345678901234567891",
            "123456789012345678901234567890.5", "1.7976931348623157e308", "2.2250738585072014e-308",
            "5e-324", "1e400", "-1e400", "1e-400", "4.9406564584124654e-324", "0.1e1", "1E+2", "1e-2",
            "9.999999999999999999999", "0.30000000000000004", "100000000000000000000000",
        ]
        var state: UInt64 = 0x2026_1129
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        for _ in 0..<2_000 {
            let integer = next() % 4 == 0 ? "0" : String(next() % 100_000)
            let fraction = String(next()).prefix(Int(next() % 22))
            let sign = next() % 2 == 0 ? "-" : ""
            texts.append(fraction.isEmpty ? sign + integer : "\(sign)\(integer).\(fraction)")
        }
        for text in texts {
            let m = try decode(#"{"payload": [{"name": "gyroscope", "time": 1, "values": {"x": "# + text + "}}]}")
            let expected = try #require(Array(text.utf8).withUnsafeBufferPointer { DecimalParser.parseDouble($0.baseAddress!, 0, $0.count) })
            #expect(m.numbers.first?.bitPattern == expected.bitPattern, "\(text)")
        }
    }

    @Test func testPushAndEmptyForms() throws {
        let m = try decode(#"{"messageId":0,"sessionId":"s","deviceId":"d","payload":[{"name":"test","time":0,"values":[]}]}"#)
        #expect(m.readings.count == 1)
        #expect(m.readings[0].sensor == .test)
        #expect(m.readings[0].values.isEmpty)
        let empty = try decode(#"{"payload":[]}"#)
        #expect(empty.readings.isEmpty && empty.deviceId == nil && empty.messageId == nil)
        let nulls = try decode(#"{"messageId":null,"deviceId":null,"payload":[{"name":"gravity","time":5,"values":null,"accuracy":null}]}"#)
        #expect(nulls.readings.count == 1)
        let escaped = try decode(#"{"deviceId":"a\"b\u00e9\ud83d\ude00","payload":[{"name":"accelerometer\u0055ncalibrated","time":"7","values":{"x":"1.5","y":-2e-3,"z":0}}]}"#)
        #expect(escaped.deviceId == "a\"bé😀")
        #expect(escaped.readings[0].sensor == .accelerometerUncalibrated)
        #expect(escaped.vector(in: escaped.readings[0]) == Vector3(1.5, -0.002, 0))
        let android = try decode(#"{"payload":[{"name":"accelerometeruncalibrated","time":1,"accuracy":3,"values":{"x":0,"y":0,"z":9.81}}]}"#)
        #expect(android.readings[0].accuracy == 3)
    }

    @Test(arguments: [
        ("", SensorLoggerDecodingError.Kind.syntax),
        ("not json", .notAMessage),
        ("[1,2]", .notAMessage),
        (#"{"payload": 3}"#, .notAMessage),
        (#"{"deviceId": "d"}"#, .notAMessage),
        (#"{"payload": [1]}"#, .badReading),
        (#"{"payload": [{"time": 1}]}"#, .badReading),
        (#"{"payload": [{"name": "gravity"}]}"#, .badReading),
        (#"{"payload": [{"name": "gravity", "time": "soon"}]}"#, .badReading),
        (#"{"payload": [{"name": "gravity", "time": 1.5}]}"#, .badReading),
        (#"{"payload": [{"name": 7, "time": 1}]}"#, .badReading),
        (#"{"messageId": "x", "payload": []}"#, .badEnvelope),
        (#"{"deviceId": {}, "payload": []}"#, .badEnvelope),
        (#"{"payload": [] "#, .syntax),
        (#"{"payload": []} x"#, .syntax),
        (#"{"payload": [{"name": "gravity", "time": 1, "values": {"x": 1.2.3}}]}"#, .syntax),
        (#"{"payload": [{"name": "gravity", "time": 1, "values": {"x": tru}}]}"#, .syntax),
        ("{\"payload\": [], \"s\": \"a\u{01}\"}", .syntax),
    ])
    func malformed(_ body: String, _ kind: SensorLoggerDecodingError.Kind) {
        #expect(throws: SensorLoggerDecodingError.self) { try decode(body) }
        do {
            _ = try decode(body)
        } catch {
            #expect(error.kind == kind, "\(body): \(error)")
            #expect(!error.reason.isEmpty)
        }
    }

    /// Found by SensorLoggerPushFuzzer: a backslash as the body's last byte stepped the reader past the end, and
    /// the error named an offset beyond the body.
    @Test func anEscapeAtTheEndIsAnErrorInsideTheBody() {
        for body in [#"{"a":"\"#, #"{"payload":[],"s":"x\"#] {
            do {
                _ = try decode(body)
                Issue.record("\(body) decoded")
            } catch {
                #expect(error.kind == .syntax)
                #expect(error.offset >= 0 && error.offset <= body.utf8.count, "\(body): \(error)")
            }
        }
    }

    /// The decoder reads with the network decoders' one strict reader: an error names the byte where it
    /// stopped, and what JSON forbids (a leading zero, a lone surrogate) is refused as in PhoneJSON.
    @Test func strictGrammarWithTheByteOffset() {
        for (body, offset) in [(#"{"payload":[],"x":01}"#, 19), (#"{"payload":[],"x":1.}"#, 20), (#"{"payload":[] "x":1}"#, 14)] {
            do {
                _ = try decode(body)
                Issue.record("\(body) decoded")
            } catch {
                #expect(error.kind == .syntax && error.offset == offset, "\(body): \(error)")
                #expect(error.description.contains("at byte \(offset)"))
            }
        }
        #expect(throws: SensorLoggerDecodingError.self) { try decode(#"{"deviceId":"\ud800","payload":[]}"#) }
        // A body cut short anywhere is a syntax error at its end, also where a field's number was due.
        for body in [#"{"messageId":1,"payload":[{"name":"accelerometer","time":"#, #"{"messageId":"#, #"{"payload":[{"values":{"x":"#] {
            #expect(throws: SensorLoggerDecodingError.self) { try decode(body) }
            do { _ = try decode(body) } catch {
                #expect(error.kind == .syntax && error.offset == body.utf8.count, "\(body): \(error)")
            }
        }
        #expect(SensorLoggerDecoder.maximumDepth == PhoneJSON.maximumDepth)
    }

    @Test func deepNestingIsRefusedNotRecursedForever() {
        let deep = #"{"payload":[],"x":"# + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}"
        #expect(throws: SensorLoggerDecodingError.self) { try decode(deep) }
        let bad = Array(repeating: UInt8(0xFF), count: 64)
        #expect(throws: SensorLoggerDecodingError.self) { try SensorLoggerDecoder.decode(bad) }
    }

    @Test func writerRoundTrips() throws {
        let writer = SensorLoggerPushWriter()
        let body = writer.body(messageId: 3, sessionId: "s\"1", deviceId: "d", readings: [
            .vector("gravity", time: 1_745_877_875_782_820_400, -1.29, 4.55, -8.58),
            SensorLoggerPushWriter.testReading(),
        ])
        let m = try SensorLoggerDecoder.decode(body)
        #expect(m.sessionId == "s\"1")
        #expect(m.readings[0].time == Int64(Double(1_745_877_875_782_820_400)))
        #expect(m.vector(in: m.readings[0]) == Vector3(-1.29, 4.55, -8.58))
        #expect(m.readings[1].sensor == .test)
    }
}
