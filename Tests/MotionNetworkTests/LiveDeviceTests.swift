import Foundation
import MotionEmulation
import MotionNetwork
import MotionSamples
import TestSupport
import Testing

// Devices against the fake phones of MotionEmulation (Phones/) on real loopback sockets, in real time (each
// test a few seconds). Serialized: the machine has two cores and other users.

@Suite(.serialized) struct PhyphoxLiveTests {
    func start(_ options: PhyphoxEmulator.Options = PhyphoxEmulator.Options(), capture: LogRecorder = LogRecorder(),
               stream: PhoneStreamSettings = quick) throws -> (PhyphoxEmulator, LiveDevice) {
        let emulator = PhyphoxEmulator(source: .synthetic(), options: options)
        let port = try emulator.listen()
        let settings = PhyphoxSettings(host: "127.0.0.1", port: port, stream: stream, interval: 0.05)
        let device = try PhyphoxDevice.connect(settings, logger: capture.logger)
        return (emulator, device)
    }

    /// Android: 8 significant digits, m/s² with +g up; every sample once, in order, on this machine's clock.
    @Test func androidIncrementalPollingWithoutRepeatsOrLosses() throws {
        let (emulator, device) = try start()
        defer { device.close(); emulator.stop() }
        #expect(Set(device.sensors.keys) == Set(SensorKind.allCases))
        #expect(abs((device.sensors[.accelerometer]?.maximumRate ?? 0) - 100) < 1)
        #expect(device.model == "google Pixel 7")
        let collector = Collector()
        collector.run(device)
        // 1.5 s at 100 Hz on an idle machine; the bound only covers a run starved by the thread sanitizer and
        // the parallel suites (CI, 2026-11-30: 61 samples after a fixed 1.5 s).
        #expect(eventually(60) { collector.of(.accelerometer).count > 150 })
        // On this machine's clock: a sample delivered within the last second (the phone's clock is days off).
        #expect(eventually(60) {
            let now = ProcessInfo.processInfo.systemUptime
            return collector.of(.accelerometer).last.map { $0.time < now && $0.time > now - 1 } ?? false
        })
        let acc = collector.of(.accelerometer)
        let values = acc.compactMap(\.vector)
        #expect(contiguous(values.map { index($0.x) }).ok, "\(contiguous(values.map { index($0.x) }).firstBreak ?? "")")
        // (y, z) = (0.25, −0.97) g, sent as −2.4516625 and 9.5124505 m/s² (8 digits): back to g within 1e-8.
        #expect(values.allSatisfy { abs($0.y - 0.25) < 1e-8 && abs($0.z + 0.97) < 1e-8 })
        let times = acc.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 > 0.009 && $1 - $0 < 0.011 })
        let pressure = collector.of(.barometer).compactMap { s -> Double? in if case .barometer(let p) = s { p.kilopascals } else { nil } }
        #expect(!pressure.isEmpty && pressure.allSatisfy { abs($0 - 101.35) < 0.06 })
        let gyro = collector.of(.gyroscope).compactMap(\.vector)
        #expect(gyro.allSatisfy { abs($0.x - 0.01) < 1e-9 && abs($0.y + 0.02) < 1e-9 })
        #expect(contiguous(gyro.map { index($0.z) }).ok)
        #expect(device.currentStatistics.malformed == 0 && device.currentStatistics.late == 0)
        #expect(device.referenceData().attitude.isEmpty)
    }

    /// iOS: × 9.81, full doubles, full buffers one value apart, Apple's outputs kept as reference data.
    @Test func iOSConversionsAndReferenceData() throws {
        var options = PhyphoxEmulator.Options()
        options.platform = .iOS
        let (emulator, device) = try start(options)
        defer { device.close(); emulator.stop() }
        #expect(device.model == "Apple iPhone14,5")
        let collector = Collector()
        collector.run(device, [.accelerometer])
        #expect(eventually(60) { collector.of(.accelerometer).count > 60 && device.referenceData().gravity.count > 60 })
        let values = collector.of(.accelerometer).compactMap(\.vector)
        #expect(values.allSatisfy { abs($0.y - 0.25) < 1e-12 && abs($0.z + 0.97) < 1e-12 })
        #expect(contiguous(values.map { index($0.x) }).ok)
        let reference = device.referenceData()
        #expect(reference.gravity.count > 60 && reference.gravity.allSatisfy { ($0.value - Vector3(0, 0, -1)).norm < 1e-12 })
        #expect(reference.userAcceleration.allSatisfy { abs($0.value.z - 0.03) < 1e-12 })
        // The attitude turned back to Apple's x-north frame: a turn about z whose angle encodes the index.
        let attitude = try #require(reference.attitude.last?.value)
        #expect(abs(attitude.x) < 1e-12 && abs(attitude.y) < 1e-12)
        #expect((gravity(of: attitude) - Vector3(0, 0, -1)).norm < 1e-12)
    }

    /// The user switches to "Acceleration without g": the same buffer names now hold linear acceleration.
    @Test func sessionChangeResetsAndReadsConfigAgain() throws {
        let capture = LogRecorder()
        let (emulator, device) = try start(capture: capture)
        defer { device.close(); emulator.stop() }
        let collector = Collector()
        collector.run(device)
        emulator.switchExperiment(to: .accelerationWithoutG)
        #expect(eventually { collector.allEvents.contains(.sensorLost(.accelerometer, reason: "")) || !device.has(.accelerometer) })
        #expect(eventually { device.referenceData().userAcceleration.count > 20 })
        #expect(!device.has(.accelerometer) && !device.has(.gyroscope))
        #expect(capture.lines.contains { $0.contains("new session") })
        emulator.switchExperiment(to: .accelerationWithG)
        #expect(eventually { device.has(.accelerometer) })
        // The event reaches the app on the delivery thread after the device's state has changed.
        #expect(eventually { collector.allEvents.contains(.sensorReturned(.accelerometer)) })
        #expect(device.currentStatistics.connections >= 3)
    }

    /// A pause is a silence: lost after `silence`, back when measuring again; nothing repeats across it.
    @Test func silenceLostAndReturned() throws {
        let (emulator, device) = try start()
        defer { device.close(); emulator.stop() }
        let collector = Collector()
        collector.run(device, [.accelerometer])
        Thread.sleep(forTimeInterval: 0.3)
        emulator.setMeasuring(false)
        #expect(eventually { !device.has(.accelerometer) })
        // Events reach the app on the delivery thread after the device's state has changed (a thread
        // sanitizer run once read the events in between).
        #expect(eventually { collector.allEvents.contains { if case .sensorLost(.accelerometer, _) = $0 { true } else { false } } })
        let lost = collector.allEvents.compactMap { e -> String? in if case .sensorLost(.accelerometer, let r) = e { r } else { nil } }
        #expect(lost.count == 1 && lost[0].contains("no data from the phone"))
        emulator.setMeasuring(true)
        #expect(eventually { device.has(.accelerometer) })
        #expect(eventually { collector.allEvents.contains(.sensorReturned(.accelerometer)) })
        let accelerometerEvents = collector.allEvents.filter {
            switch $0 {
            case .sensorLost(.accelerometer, _), .sensorReturned(.accelerometer): true
            default: false
            }
        }
        #expect(accelerometerEvents.count == 2 && accelerometerEvents.last == .sensorReturned(.accelerometer))
        Thread.sleep(forTimeInterval: 0.5)
        let values = collector.of(.accelerometer).compactMap(\.vector)
        #expect(contiguous(values.map { index($0.x) }).ok, "\(contiguous(values.map { index($0.x) }).firstBreak ?? "")")
        let times = collector.of(.accelerometer).map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 > $0 })
    }

    /// Hostile replies are skipped with a logged error; the next poll asks again, so nothing is lost.
    @Test func malformedRepliesSkippedWithAMessage() throws {
        let capture = LogRecorder()
        let (emulator, device) = try start(capture: capture)
        defer { device.close(); emulator.stop() }
        let collector = Collector()
        collector.run(device, [.accelerometer])
        emulator.sendMalformedReplies(6)
        #expect(eventually(60) { device.currentStatistics.malformed >= 6 })
        #expect(eventually(60) { capture.lines.filter { $0.hasPrefix("error") && $0.contains("malformed /get reply") }.count >= 6 })
        #expect(eventually(60) { collector.of(.accelerometer).count > 30 })
        let values = collector.of(.accelerometer).compactMap(\.vector)
        #expect(contiguous(values.map { index($0.x) }).ok, "\(contiguous(values.map { index($0.x) }).firstBreak ?? "")")
        #expect(values.allSatisfy { abs($0.z + 0.97) < 1e-8 })
    }

    @Test func startsAStoppedExperiment() throws {
        var options = PhyphoxEmulator.Options()
        options.measuring = false
        let (emulator, device) = try start(options)
        defer { device.close(); emulator.stop() }
        #expect(emulator.isMeasuring)
        #expect(device.has(.accelerometer))
    }

    @Test func unreachablePhoneFailsWithAMessage() throws {
        let settings = PhyphoxSettings(host: "127.0.0.1", port: 9, stream: PhoneStreamSettings(wait: 0.5, silence: 1, delay: 0.1))
        let error = #expect(throws: PhoneRequestError.self) { try PhyphoxDevice.connect(settings) }
        #expect(error?.description.contains("did not answer") == true)
    }
}

@Suite(.serialized) struct SensorServerLiveTests {
    func start(missing: Set<SensorServerSensor> = [], capture: LogRecorder = LogRecorder()) throws -> (SensorServerEmulator, LiveDevice) {
        let emulator = SensorServerEmulator(source: .synthetic(), missing: missing)
        let port = try emulator.listen()
        let device = try SensorServerDevice.connect(SensorServerSettings(host: "127.0.0.1", port: port, stream: quick), logger: capture.logger)
        return (emulator, device)
    }

    @Test func streamsConvertedAndAnchored() throws {
        let (emulator, device) = try start()
        defer { device.close(); emulator.stop() }
        #expect(Set(device.sensors.keys) == Set(SensorKind.allCases))
        let collector = Collector()
        collector.run(device)
        #expect(eventually(60) { collector.of(.accelerometer).count > 150 && !collector.of(.magnetometer).isEmpty })
        // Boot clock one day ahead of this machine's: anchored to within the delivery delay (a sample delivered
        // within the last 0.5 s; waited for, since a starved run delivers late).
        #expect(eventually(60) {
            let now = ProcessInfo.processInfo.systemUptime
            return collector.of(.accelerometer).last.map { $0.time < now && $0.time > now - 0.5 } ?? false
        })
        let acc = collector.of(.accelerometer)
        let values = acc.compactMap(\.vector)
        // Float on the wire: 0.25 g = −2.4516625 m/s² as a float, back within 1e-6 g.
        #expect(values.allSatisfy { abs($0.y - 0.25) < 1e-6 && abs($0.z + 0.97) < 1e-6 })
        #expect(contiguous(values.map { index($0.x) }).ok, "\(contiguous(values.map { index($0.x) }).firstBreak ?? "")")
        let times = acc.map(\.time)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 - $0 > 0.009 && $1 - $0 < 0.011 })
        let field = collector.of(.magnetometer).compactMap(\.vector)
        #expect(!field.isEmpty && field.allSatisfy { abs($0.x - 20) < 1e-5 && abs($0.y + 5) < 1e-5 })
    }

    /// 4001 "sensor of type android.sensor.pressure not found": the rest stream, the barometer is unavailable.
    @Test func missingSensorIsUnavailable() throws {
        let capture = LogRecorder()
        let (emulator, device) = try start(missing: [.pressure], capture: capture)
        defer { device.close(); emulator.stop() }
        #expect(Set(device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer])
        #expect(emulator.connectionCount >= 2)
        #expect(capture.lines.contains { $0.contains("has no android.sensor.pressure") })
    }

    /// Only one sensor left: `/sensor/connect?type=…`, whose messages carry no type.
    @Test func singleSensorConnection() throws {
        let (emulator, device) = try start(missing: [.pressure, .gyroscope, .magneticField])
        defer { device.close(); emulator.stop() }
        #expect(Set(device.sensors.keys) == [.accelerometer])
    }

    @Test func silenceLostAndReturned() throws {
        let (emulator, device) = try start()
        defer { device.close(); emulator.stop() }
        let collector = Collector()
        collector.run(device, [.accelerometer, .gyroscope])
        emulator.setPaused(true)
        #expect(eventually { device.sensors.isEmpty })
        // Events reach the app on the delivery thread after the device's state has changed.
        #expect(eventually { collector.allEvents.filter { if case .sensorLost = $0 { true } else { false } }.count >= 4 })
        #expect(collector.allEvents.filter { if case .sensorLost = $0 { true } else { false } }.count == 4)
        emulator.setPaused(false)
        #expect(eventually { device.sensors.count == 4 })
        #expect(eventually { collector.allEvents.contains(.sensorReturned(.gyroscope)) })
    }

    /// The app stops its server (4004): the device reconnects and the data go on.
    @Test func reconnectsAfterServerStopped() throws {
        let capture = LogRecorder()
        let (emulator, device) = try start(capture: capture)
        defer { device.close(); emulator.stop() }
        let collector = Collector()
        collector.run(device, [.accelerometer])
        emulator.closeConnections(code: 4004, reason: "Server stopped")
        #expect(eventually { device.currentStatistics.connections >= 2 })
        let before = collector.of(.accelerometer).count
        #expect(eventually { collector.of(.accelerometer).count > before + 50 })
        #expect(capture.lines.contains { $0.contains("closed with 4004 (server stopped)") })
    }

    @Test func malformedMessagesSkippedWithAMessage() throws {
        let capture = LogRecorder()
        let (emulator, device) = try start(capture: capture)
        defer { device.close(); emulator.stop() }
        emulator.sendMalformedMessages(6)
        #expect(eventually { device.currentStatistics.malformed >= 2 && device.currentStatistics.refusedReadings >= 2 })
        Thread.sleep(forTimeInterval: 0.3)
        let errors = capture.lines.filter { $0.hasPrefix("error") }
        #expect(errors.contains { $0.contains("malformed SensorServer message") })
        #expect(errors.contains { $0.contains("3 needed") })
        #expect(errors.contains { $0.contains("android.sensor.light") })
        #expect(errors.contains { $0.contains("beyond ±64.0 g") })
    }
}
