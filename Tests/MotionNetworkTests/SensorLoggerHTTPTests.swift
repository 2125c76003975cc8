import Foundation
import MotionDevices
import MotionNetwork
import MotionRecordings
import MotionSamples
import MotionService
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif


@Suite("Sensor Logger receiver over HTTP", .serialized)
struct SensorLoggerHTTPTests {
    @Test func repliesOverHTTP() throws {
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0))
        let port = try server.start()
        defer { server.stop() }
        var phone = SyntheticPhone(platform: .ios)
        phone.start = Int64(Date().timeIntervalSince1970 * 1e9)
        #expect(try RawHTTP.post(port: port, body: phone.message(0)).status == 200)
        #expect(try RawHTTP.post(port: port, path: "/any/path?x=1", body: Array(#"{"messageId":0,"sessionId":"s","deviceId":"t","payload":[{"name":"test","time":0,"values":[]}]}"#.utf8)).status == 200)
        let bad = try RawHTTP.post(port: port, body: Array("{\"payload\": [1]}".utf8))
        #expect(bad.status == 400)
        #expect(bad.body.contains("each reading must be an object"))
        // Over 1 MiB: refused from the declared length, and when the length is not declared up front.
        let big = [UInt8](repeating: 0x20, count: (1 << 20) + 10)
        #expect(try RawHTTP.post(port: port, body: big).status == 413)
        var undecidable = SyntheticPhone(platform: .ios)
        undecidable.deviceId = "other"
        undecidable.sensors = ["gravity", "accelerometer", "gyroscope"]
        for k in 0..<3 { #expect(try RawHTTP.post(port: port, body: undecidable.message(k)).status == 200) }
        let ask = try RawHTTP.post(port: port, body: undecidable.message(3))
        #expect(ask.status == 499)
        #expect(ask.body.contains("Uncalibrated Accelerometer"))
        // The server still works after all that.
        #expect(try RawHTTP.post(port: port, body: phone.message(1)).status == 200)
        let stats = server.statistics
        #expect(stats.replies[413] == 1 && stats.replies[400] == 1 && stats.replies[499] == 1)
        #expect(server.phones.count == 3)
    }

    @Test func tokenRules() throws {
        // Beyond loopback, a token is required: refused at parse time and at start.
        #expect(throws: SensorLoggerConfigurationError.self) { try SensorLoggerConfiguration.parse(target: "0.0.0.0:8123", options: [:]) }
        let open = SensorLoggerServer(configuration: SensorLoggerConfiguration(host: "0.0.0.0", port: 0))
        #expect(throws: SensorLoggerConfigurationError.self) { try open.start() }
        #expect(open.port == nil)
        let parsed = try SensorLoggerConfiguration.parse(target: "0.0.0.0:8123", options: ["token": "s3cret"])
        #expect(parsed.host == "0.0.0.0" && parsed.token == "s3cret")
        #expect(!parsed.description.contains("s3cret"))
        // With a token (here on loopback), pushes without it or with another are refused.
        let server = SensorLoggerServer(configuration: SensorLoggerConfiguration(port: 0, token: "s3cret"))
        let port = try server.start()
        defer { server.stop() }
        let body = SyntheticPhone(platform: .ios).message(0)
        #expect(try RawHTTP.post(port: port, body: body).status == 401)
        #expect(try RawHTTP.post(port: port, body: body, headers: ["Authorization": "Bearer wrong!"]).status == 401)
        #expect(try RawHTTP.post(port: port, body: body, headers: ["Authorization": "Bearer s3cret"]).status == 200)
    }

    /// One receiver per address in a process: a second user of HOST:PORT shares it (the motion device and a
    /// headphone source), another token is refused, a device may follow another phone on the same port.
    @Test func receiverRegistrySharesOneServerPerAddress() throws {
        let registry = SensorLoggerReceivers()
        defer { registry.stopAll() }
        // Port 0: the system picks a free port and the registry files the receiver under it. (A port found
        // by a probe server that is then stopped can be taken by a parallel test before it is bound again:
        // "address already in use" in CI.)
        let first = try registry.receiver(for: SensorLoggerConfiguration(port: 0))
        let port = try #require(first.port)
        let second = try registry.receiver(for: SensorLoggerConfiguration(port: port, wait: 0))
        #expect(first === second && registry.existing(host: "127.0.0.1", port: port) === first)
        #expect(throws: SensorLoggerConfigurationError.self) { try registry.receiver(for: SensorLoggerConfiguration(port: port, token: "other")) }
        let other = SensorLoggerDevice(server: first, deviceId: "phone-B")
        var b = SyntheticPhone(platform: .ios)
        b.deviceId = "phone-B"
        b.start = Int64(Date().timeIntervalSince1970 * 1e9)
        var a = b
        a.deviceId = "phone-A"
        #expect(try RawHTTP.post(port: port, body: b.message(0)).status == 200)
        #expect(try RawHTTP.post(port: port, body: a.message(0)).status == 200)
        // phone-B pushed first but was asked for by id: the default device follows phone-A.
        #expect(first.chosenPhone?.deviceId == "phone-A")
        #expect(other.phone?.deviceId == "phone-B" && other.live === first.phone("phone-B")?.device)
        #expect(SensorLoggerDevice(server: first).live === first.device)
    }

    @Test func deviceSpecification() throws {
        let spec = try DeviceSpecification.parse("sensorlogger:127.0.0.1:8000?token=t&platform=android&device=ABC&wait=2")
        guard case .sensorLogger(let c) = spec else { Issue.record("\(spec)"); return }
        #expect(c.port == 8000 && c.platform == .android && c.deviceId == "ABC" && c.wait == 2 && c.token == "t")
        #expect(try DeviceSpecification.parse("sensorlogger:9000") == .sensorLogger(SensorLoggerConfiguration(port: 9000)))
        guard case .sensorLogger(let v6) = try DeviceSpecification.parse("sensorlogger:[::1]:9000") else { return }
        #expect(v6.host == "::1" && v6.isLoopback)
        for (value, hint) in [
            ("sensorlogger:127.0.0.1:8000?tokne=x", "did you mean 'token'"),
            ("sensorlogger:0.0.0.0:8000", "token"),
            ("sensorlogger:127.0.0.1:80000", "port"),
            ("sensorlogger:127.0.0.1:8000?platform=ipados", "platform must be one of"),
            ("sensorloger:127.0.0.1:8000", "did you mean 'sensorlogger:'"),
            ("sensorlogger", "sensorlogger:HOST:PORT"),
        ] {
            do {
                _ = try DeviceSpecification.parse(value)
                Issue.record("\(value) parsed")
            } catch let error as DeviceSpecificationError {
                #expect(error.reason.contains(hint), "\(value): \(error.reason)")
            }
        }
    }

    /// Records a live session through the service with `coremotion record`'s writer and replays it: the
    /// file gives back exactly what was delivered.
    @Test func recordedLiveSessionReplaysTheSameValues() throws {
        let rig = Rig(platform: .ios)
        let service = MotionService(device: SensorLoggerDevice(server: rig.server), history: .inMemory)
        let folder = try TestSupportFolder.make()
        let url = folder.appendingPathComponent("live.cmrec")
        let start = rig.clock.now
        let writer = try NativeRecordingWriter(url: url, metadata: RecordingMetadata(format: "coremotion record", source: "sensorlogger"), timeOrigin: start)
        let delivered = PushCollector(clock: rig.clock)
        var subscriptions: [any MotionSubscription] = []
        // The first push makes the sensors known (as the device's wait at start does).
        let phone = SyntheticPhone(platform: .ios)
        rig.push(phone, 0)
        for kind in SensorKind.allCases {
            let s = service.subscribe(to: kind, interval: 0) { sample in
                try? writer.append(sample)
                delivered.sink(sample)
            }
            subscriptions.append(try #require(s, "\(kind)"))
        }
        for k in 1..<20 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        for s in subscriptions { s.cancel() }
        try writer.close()
        let recording = try RecordingReader.read(url.path)
        let live = delivered.samples
        #expect(live.count > 1000)
        for kind in SensorKind.allCases {
            let replayed = recording.samples(of: kind).map { $0.at(time: $0.time + start) }
            let original = live.filter { $0.sensor == kind }
            #expect(replayed.count == original.count, "\(kind)")
            for (a, b) in zip(replayed, original) {
                #expect(abs(a.time - b.time) < 1e-9 && a.vector == b.vector, "\(kind)")
                if case .barometer(let p) = a, case .barometer(let q) = b { #expect(p.kilopascals == q.kilopascals) }
            }
        }
        // And played back as a device: the same samples, at the same intervals.
        let replayClock = VirtualClock(start: 5000)
        let device = ScheduledDevice(name: "replay", source: RecordingSource(recording), clock: replayClock)
        let replayed = PushCollector(clock: replayClock)
        device.run([.accelerometer: 100, .gyroscope: 100, .magnetometer: 100, .barometer: 1], sink: replayed.sink, events: { _ in })
        replayClock.advance(by: 10)
        let liveAcc = live.filter { $0.sensor == .accelerometer }
        let replayAcc = replayed.samples(of: .accelerometer)
        #expect(replayAcc.map(\.vector) == liveAcc.map(\.vector))
        let offset = replayAcc[0].time - liveAcc[0].time
        #expect(zip(replayAcc, liveAcc).allSatisfy { abs($0.time - $1.time - offset) < 1e-6 })
    }
}

enum TestSupportFolder {
    static func make() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("coremotion-network-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
