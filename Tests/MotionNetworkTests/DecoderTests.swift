import Foundation
@testable import MotionNetwork
import MotionSamples
import Testing

@Suite struct PhoneJSONTests {
    @Test func readsValuesAndKeepsIntegersExact() throws {
        let json = try PhoneJSON.parse(Array(#" {"a": [1, -2.5e3, null, true, "x\u00e9\ud83d\ude00\n"], "t": 1715254448786894800} "#.utf8))
        #expect(json["t"]?.int64 == 1_715_254_448_786_894_800)
        let a = try #require(json["a"]?.array)
        #expect(a[0] == .number(1, exact: 1))
        #expect(a[1].double == -2500 && a[1].int64 == nil)
        #expect(a[2].isNull && a[3].bool == true)
        #expect(a[4].string == "xé😀\n")
    }

    @Test(arguments: [
        "", "{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "nul", "\"abc", "\"\\x\"", "\"\\ud800\"", "[1] 2", "{\"a\":1,}", "\u{01}",
    ])
    func refusesWhatIsNotJSON(_ text: String) {
        #expect(throws: PhoneJSONError.self) { try PhoneJSON.parse(Array(text.utf8)) }
    }

    @Test func boundsNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let error = #expect(throws: PhoneJSONError.self) { try PhoneJSON.parse(Array(deep.utf8)) }
        #expect(error?.expected.contains("nesting") == true)
        let ok = String(repeating: "[", count: PhoneJSON.maximumDepth) + String(repeating: "]", count: PhoneJSON.maximumDepth)
        #expect((try? PhoneJSON.parse(Array(ok.utf8))) != nil)
    }
}

@Suite struct PhyphoxDecoderTests {
    @Test func getReply() throws {
        let reply = try PhyphoxGetReply.decode(Array("""
            {"buffer": {"acc_time": {"size": 0, "updateMode": "partial", "buffer": [1.5, 1.51, null]},
                        "accX": {"size": 1000, "updateMode": "partial", "buffer": [9.80665, -0.1, 2]}},
             "status": {"session": "4b3f", "measuring": true, "timedRun": false, "countDown": 0}}
            """.utf8))
        #expect(reply.status == PhyphoxStatus(session: "4b3f", measuring: true))
        #expect(reply.buffers["acc_time"]?.values == [1.5, 1.51, nil])
        #expect(reply.buffers["accX"]?.size == 1000)
    }

    @Test(arguments: [
        #"{"buffer": {"t": {"buffer": [1, "2"]}}, "status": {"session": "a", "measuring": true}}"#,
        #"{"buffer": {"t": {"buffer": [1e999]}}, "status": {"session": "a", "measuring": true}}"#,
        #"{"buffer": {"t": {"buffer": 5}}, "status": {"session": "a", "measuring": true}}"#,
        #"{"buffer": {}, "status": {"measuring": true}}"#,
        #"{"buffer": {}, "status": {"session": "a", "measuring": "yes"}}"#,
        #"{"status": {"session": "a", "measuring": true}}"#,
        #"[1, 2]"#,
        "<html>500</html>",
    ])
    func getReplyRefused(_ text: String) {
        #expect(throws: PhyphoxDecodingError.self) { try PhyphoxGetReply.decode(Array(text.utf8)) }
    }

    /// Both acceleration experiments name their buffers accX…: only the input's source tells them apart.
    @Test func configInputsDecideTheSensor() throws {
        func config(_ source: String) throws -> PhyphoxConfig {
            try PhyphoxConfig.decode(Array("""
                {"crc32": "1a2b", "title": "Acceleration", "buffers": [{"name": "accX", "size": 0}],
                 "inputs": [{"source": "\(source)", "outputs": [{"x": "accX"}, {"y": "accY"}, {"z": "accZ"}, {"t": "acc_time"}]},
                            {"source": "location", "outputs": [{"lat": "lat"}]}],
                 "export": []}
                """.utf8))
        }
        let withG = PhyphoxExperimentMap.channels(of: try config("accelerometer"))
        #expect(withG.channels == [PhyphoxChannel(source: "accelerometer", target: .raw(.accelerometer), time: "acc_time", components: ["accX", "accY", "accZ"])])
        #expect(withG.notes.count == 1)
        let withoutG = PhyphoxExperimentMap.channels(of: try config("linear_acceleration"))
        #expect(withoutG.channels.map(\.target) == [.userAcceleration])
    }

    @Test func configRefused() {
        for text in [#"{"inputs": 3}"#, #"{"inputs": [{"outputs": []}]}"#, #"{"inputs": [{"source": "gyroscope", "outputs": [{"x": 7}]}]}"#, "[]"] {
            #expect(throws: PhyphoxDecodingError.self) { try PhyphoxConfig.decode(Array(text.utf8)) }
        }
    }

    @Test func metaTellsThePlatform() throws {
        let ios = try PhyphoxMeta.decode(Array(#"{"version": "1.2.0", "deviceBrand": "Apple", "deviceBoard": null}"#.utf8))
        #expect(ios.platform == .iOS && ios.values["deviceBoard"] == nil)
        let android = try PhyphoxMeta.decode(Array(#"{"version": "1.2.1", "deviceBrand": "google", "sensors": {"accelerometer": {}}}"#.utf8))
        #expect(android.platform == .android)
        #expect(try PhyphoxMeta.decode(Array(#"{"version": "1.1.9"}"#.utf8)).platform == nil)
    }

    @Test func timeEventsPlaceRunsOnTheWallClock() throws {
        let events = try PhyphoxTimeEvent.decodeList(Array("""
            [{"event": "START", "experimentTime": 0, "systemTime": 1000},
             {"event": "PAUSE", "experimentTime": 10, "systemTime": 1010},
             {"event": "CLEAR", "experimentTime": 10, "systemTime": 1011},
             {"event": "START", "experimentTime": 10, "systemTime": 1100}]
            """.utf8))
        #expect(events.count == 3)
        let timeline = PhyphoxTimeline(events: events)
        #expect(timeline.phoneTime(of: 5) == 1005)
        #expect(timeline.phoneTime(of: 12) == 1102)
        #expect(throws: PhyphoxDecodingError.self) { try PhyphoxTimeEvent.decodeList(Array(#"[{"event": "START"}]"#.utf8)) }
    }
}

@Suite struct PhyphoxPollTests {
    let channel = PhyphoxChannel(source: "accelerometer", target: .raw(.accelerometer), time: "acc_time", components: ["accX", "accY", "accZ"])

    func reply(_ buffers: [String: [Double?]]) -> PhyphoxGetReply {
        PhyphoxGetReply(
            buffers: buffers.mapValues { PhyphoxBuffer(size: 0, updateMode: "partial", values: $0) },
            status: PhyphoxStatus(session: "s", measuring: true))
    }

    @Test func fullFirstThenAfterTheLastTime() {
        var poll = PhyphoxPoll(channels: [channel])
        #expect(poll.query == "acc_time=full&accX=full&accY=full&accZ=full")
        // iOS: one buffer one value short; the row it lacks is asked for again.
        let outcome = poll.consume(reply(["acc_time": [0, 0.01, 0.02], "accX": [1, 2], "accY": [3, 4, 5], "accZ": [6, 7, 8]]))
        #expect(outcome.batches.first?.times == [0, 0.01])
        #expect(outcome.batches.first?.rows == [[1, 3, 6], [2, 4, 7]])
        #expect(poll.query == "acc_time=0.01&accX=0.01%7Cacc_time&accY=0.01%7Cacc_time&accZ=0.01%7Cacc_time")
        // A repeat and a null row are skipped; the threshold moves to the last row kept.
        let next = poll.consume(reply(["acc_time": [0.01, 0.02, 0.03], "accX": [2, 9, nil], "accY": [4, 5, 1], "accZ": [7, 8, 1]]))
        #expect(next.batches.first?.times == [0.02])
        #expect(next.skippedRows == 2)
        #expect(poll.thresholds == [0.02])
    }

    @Test func neverANegativeThreshold() {
        var poll = PhyphoxPoll(channels: [channel])
        _ = poll.consume(reply(["acc_time": [-0.5, -0.4], "accX": [1, 2], "accY": [1, 2], "accZ": [1, 2]]))
        #expect(poll.query.hasPrefix("acc_time=full"))
    }

    @Test func missingBufferIsAProblem() {
        var poll = PhyphoxPoll(channels: [channel])
        let outcome = poll.consume(reply(["acc_time": [1], "accX": [1]]))
        #expect(outcome.batches.isEmpty && outcome.problems.count == 1)
    }
}

@Suite struct SensorServerMessageTests {
    @Test func decodesAndConverts() throws {
        let m = try SensorServerMessage.decode(Array(#"{"values":[0.0,0.0,9.80665],"timestamp":123456789012345,"accuracy":3,"type":"android.sensor.accelerometer"}"#.utf8))
        #expect(m.timestamp == 123_456_789_012_345 && m.accuracy == 3)
        // Face up on Android (+9.81 on z) is (0, 0, −1) g on Apple's axes.
        let s = SensorServerSensor.accelerometer.sample(values: m.values, time: 1)
        #expect(s.vector == Vector3(0, 0, -1))
        let p = SensorServerSensor.pressure.sample(values: [1013.25], time: 1)
        if case .barometer(let r) = p { #expect(abs(r.kilopascals - 101.325) < 1e-12) } else { Issue.record("not a barometer sample") }
        let g = SensorServerSensor.gyroscope.sample(values: [0.1, -0.2, 0.3], time: 1)
        #expect(g.vector == Vector3(0.1, -0.2, 0.3))
    }

    @Test(arguments: [
        #"{"values":[1,2,3],"timestamp":"5"}"#, #"{"values":[1,2,3],"timestamp":5.5}"#, #"{"values":[1,2,3],"timestamp":-5}"#,
        #"{"values":[1,"2",3],"timestamp":5}"#, #"{"values":[1e999,2,3],"timestamp":5}"#, #"{"timestamp":5}"#,
        #"{"values":[1,2,3],"timestamp":5,"type":7}"#, #"[1,2,3]"#, "not json",
    ])
    func refused(_ text: String) {
        #expect(throws: SensorServerDecodingError.self) { try SensorServerMessage.decode(Array(text.utf8)) }
    }

    @Test func paths() {
        #expect(SensorServerDevice.path(for: [.accelerometer]) == "/sensor/connect?type=android.sensor.accelerometer")
        #expect(SensorServerDevice.path(for: [.accelerometer, .gyroscope])
            == "/sensors/connect?types=%5B%22android.sensor.accelerometer%22%2C%22android.sensor.gyroscope%22%5D")
    }
}

@Suite struct ConventionTests {
    /// phyphox on iOS turns Apple's x-north quaternion to y-north (w′ = (w − z)/√2 …); the device turns it back.
    @Test func attitudeFrames() throws {
        let apple = Quaternion(axis: Vector3(0.3, -0.5, 0.8), angle: 1.1)
        let s = 1 / 2.0.squareRoot()
        let phyphox = Quaternion(w: (apple.w - apple.z) * s, x: (apple.x - apple.y) * s, y: (apple.y + apple.x) * s, z: (apple.z + apple.w) * s)
        let q = try #require(AndroidConventions.quaternion(rotationVectorX: phyphox.x, y: phyphox.y, z: phyphox.z, w: phyphox.w))
        let back = AndroidConventions.appleAttitude(fromENU: q)
        #expect(back.angle(to: apple) < 1e-12)
        // Without w (old Android), w = √(1 − |v|²).
        let noW = try #require(AndroidConventions.quaternion(rotationVectorX: phyphox.x, y: phyphox.y, z: phyphox.z, w: nil))
        #expect(noW.angle(to: q) < 1e-9)
        #expect(AndroidConventions.quaternion(rotationVectorX: 2, y: 0, z: 0, w: nil) == nil)
    }

    @Test func accelerationFactors() {
        #expect(AndroidConventions.appleAcceleration(fromAndroid: Vector3(0, 0, 9.81), gravity: PhyphoxPlatform.iOS.gravity) == Vector3(0, 0, -1))
        #expect(AndroidConventions.appleAcceleration(fromAndroid: Vector3(0, 9.80665, 0)) == Vector3(0, -1, 0))
    }
}
