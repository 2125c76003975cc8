import CoreMotion
import CoreMotionTesting
import Foundation
import MotionDevices
import MotionNetwork
import MotionRecordings
import MotionSamples
import MotionService
import TestSupport
import Testing

/// What a `CMHeadphoneMotionManagerDelegate` heard, and the samples of a push handler, in one order.
final class LiveHeadphoneProbe: NSObject, CMHeadphoneMotionManagerDelegate, @unchecked Sendable {
    enum Entry: Equatable {
        case connected, disconnected
        case sample(time: Double, z: Double, location: CMDeviceMotion.SensorLocation, gravityNorm: Double)
    }
    private let lock = NSLock()
    private var list: [Entry] = []

    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) { add(.connected) }
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) { add(.disconnected) }

    func add(_ entry: Entry) { lock.lock(); list.append(entry); lock.unlock() }
    var entries: [Entry] { lock.lock(); defer { lock.unlock() }; return list }
    var pattern: String {
        var text = ""
        for e in entries {
            switch e {
            case .connected: text += "C"
            case .disconnected: text += "D"
            case .sample: if !text.hasSuffix("s") { text += "s" }
            }
        }
        return text
    }
    var samples: [(time: Double, z: Double, location: CMDeviceMotion.SensorLocation, gravityNorm: Double)] {
        entries.compactMap { if case .sample(let t, let z, let l, let g) = $0 { (t, z, l, g) } else { nil } }
    }
}

// Sensor Logger headphones (COREMOTION_HEADPHONE_DEVICE=sensorlogger:HOST:PORT). In the serialized HTTP suite:
// receivers start on Swift's cooperative pool, which two blocking starts at once can starve on two cores.
extension SensorLoggerHTTPTests {
    /// Sensor Logger's `headphone` readings pushed over loopback HTTP to the receiver the phone uses: the
    /// headphones connect with the first reading, deliver at the pushed rate, disconnect after 1 s of silence
    /// and connect again when the readings come back.
    @Test func livePushThroughCMHeadphoneMotionManager() throws {
        let clock = VirtualClock(start: 1000)
        // The phone's receiver (COREMOTION_DEVICE=sensorlogger:127.0.0.1:PORT), then the headphones on the same address.
        let server = try SensorLoggerReceivers.shared.receiver(
            for: SensorLoggerConfiguration(host: "127.0.0.1", port: 0, platform: .ios, wait: 0), clock: clock)
        let port = try #require(server.port)
        let headphones = try #require(
            try HeadphoneDeviceFactory.makeDevice(.sensorLogger(host: "127.0.0.1", port: port), clock: clock))
        #expect(SensorLoggerReceivers.shared.existing(host: "127.0.0.1", port: port) === server)
        #expect(!headphones.isConnected)

        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "headphone"]
        phone.rate = 25
        let origin = clock.now
        let harness = MotionTestHarness(device: SensorLoggerDevice(server: server), clock: clock, headphones: headphones)
        func push(_ k: Int) throws {
            let arrival = origin + phone.arrival(k)
            if clock.now < arrival { harness.advance(by: arrival - clock.now) }
            let reply = try RawHTTP.post(port: port, body: phone.message(k))
            #expect(reply.status == 200)
        }
        try harness.run {
            let manager = CMHeadphoneMotionManager()
            #expect(manager.isDeviceMotionAvailable)
            let probe = LiveHeadphoneProbe()
            manager.delegate = probe
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            manager.startDeviceMotionUpdates(to: queue) { motion, _ in
                guard let m = motion else { return }
                let g = m.gravity
                probe.add(.sample(
                    time: m.timestamp, z: m.attitude.quaternion.z, location: m.sensorLocation,
                    gravityNorm: (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()))
            }
            for k in 0..<8 { try push(k) }  // 2 s of readings in 250 ms batches
            harness.advance(by: 0.5)
            #expect(probe.pattern == "Cs")
            let first = probe.samples
            #expect(first.count >= 40 && first.count <= 50)  // 25 Hz for 2 s, less the jitter buffer's last batch
            #expect(abs(first.first?.z ?? 1) < 1e-9)  // attitude relative to the start pose
            #expect(first.allSatisfy { $0.location == .headphoneLeft && abs($0.gravityNorm - 1) < 1e-9 })
            let steps = zip(first.dropFirst(), first).map { $0.time - $1.time }
            #expect(steps.allSatisfy { abs($0 - 0.04) < 1e-3 })
            // Silence: disconnected after 1 s without a reading, not before.
            harness.advance(by: 0.6)
            #expect(probe.pattern == "Cs")
            harness.advance(by: 1.5)
            #expect(probe.pattern == "CsD")
            #expect(!headphones.isConnected)
            // The readings come back (the phone kept its clock): connected again, samples flow.
            for k in 20..<26 { try push(k) }
            harness.advance(by: 0.5)
            #expect(probe.pattern == "CsDCs")
            #expect(probe.samples.count > first.count + 30)
            manager.stopDeviceMotionUpdates()
        }
        server.stop()
    }

    /// `coremotion record` of a live session with headphones: the phone's samples and the headphones' samples
    /// in one `.cmrec`; the phone reader skips the headphone rows, and `COREMOTION_HEADPHONE_DEVICE=replay:FILE`
    /// gives back exactly the values delivered live.
    @Test func recordedHeadphonesReplayTheSameValues() throws {
        let rig = Rig(platform: .ios)
        let headphones = SensorLoggerHeadphones.device(server: rig.server)
        let service = MotionService(device: SensorLoggerDevice(server: rig.server), history: .inMemory, headphones: headphones)
        let url = try TestSupportFolder.make().appendingPathComponent("live-headphones.cmrec")
        let start = rig.clock.now
        let writer = try NativeRecordingWriter(url: url, metadata: RecordingMetadata(format: "coremotion record", source: "sensorlogger"), timeOrigin: start)
        let live = LockedList<HeadphoneMotionSample>()
        var phone = SyntheticPhone(platform: .ios)
        phone.sensors = ["accelerometeruncalibrated", "headphone"]
        phone.rate = 50
        rig.push(phone, 0)
        let phoneSubscription = try #require(service.subscribe(to: .accelerometer, interval: 0) { try? writer.append($0) })
        let subscription = try #require(service.subscribeHeadphoneMotion { sample in
            try? writer.append(headphone: sample)
            live.append(sample)
        })
        for k in 1..<12 { rig.push(phone, k) }
        rig.clock.advance(by: 1)
        subscription.cancel()
        phoneSubscription.cancel()
        try writer.close()
        let delivered = live.all
        #expect(delivered.count > 100)
        #expect(abs(delivered.first?.attitude.z ?? 1) < 1e-12)  // relative to the start of the recording

        // The phone's reader skips the headphone track without a notice.
        let phoneRecording = try RecordingReader.read(url.path)
        #expect(phoneRecording.samples(of: .accelerometer).count > 100)
        #expect(!phoneRecording.notices.contains { $0.message.contains("headphone") })

        // The headphone reader gives back every value bit for bit, times relative to the start.
        let recording = try HeadphoneRecordingReader.read(url.path)
        #expect(recording.samples.count == delivered.count)
        #expect(recording.samples.map { $0.at(time: 0) } == delivered.map { $0.at(time: 0) })
        #expect(zip(recording.samples, delivered).allSatisfy { abs($0.time + start - $1.time) < 1e-9 })

        // Replayed as headphones: the same samples, at the same intervals (the start anchor is the identity).
        let replayClock = VirtualClock(start: 5000)
        let replay = try #require(try HeadphoneDeviceFactory.makeDevice(.replay(path: url.path, speed: 1, loop: false), clock: replayClock))
        let replayService = MotionService(device: NoDevice(clock: replayClock), history: .inMemory, headphones: replay)
        let replayed = LockedList<HeadphoneMotionSample>()
        let replaySubscription = try #require(replayService.subscribeHeadphoneMotion { replayed.append($0) })
        replayClock.advance(by: 5)
        replaySubscription.cancel()
        let again = replayed.all
        #expect(again.count == delivered.count)
        // The replay anchors again at its first sample, whose twist is at most rounding (|q.z| < 1e-12).
        #expect(zip(again, delivered).allSatisfy { nearlyEqual($0, $1) })
        let offset = (again.first?.time ?? 0) - (delivered.first?.time ?? 0)
        #expect(zip(again, delivered).allSatisfy { abs($0.time - $1.time - offset) < 1e-6 })
    }

    @Test func aSecondAddressIsASecondReceiver() throws {
        let registry = SensorLoggerReceivers()
        let a = try registry.receiver(for: SensorLoggerConfiguration(port: 0, wait: 0), clock: VirtualClock())
        let portA = try #require(a.port)
        let again = try registry.receiver(for: SensorLoggerConfiguration(port: portA, wait: 0), clock: VirtualClock())
        #expect(again === a)
        let b = try registry.receiver(for: SensorLoggerConfiguration(port: 0, wait: 0), clock: VirtualClock())
        #expect(b !== a)
        a.stop()
        b.stop()
    }
}

/// Whether two headphone samples have the same values within 1e-12 (times aside).
func nearlyEqual(_ a: HeadphoneMotionSample, _ b: HeadphoneMotionSample) -> Bool {
    let q = [a.attitude.w - b.attitude.w, a.attitude.x - b.attitude.x, a.attitude.y - b.attitude.y, a.attitude.z - b.attitude.z]
    let v = [a.rotationRate - b.rotationRate, a.userAcceleration - b.userAcceleration, a.gravity - b.gravity]
    return q.allSatisfy { abs($0) < 1e-12 } && v.allSatisfy { $0.norm < 1e-12 } && a.location == b.location
}

/// A list appended to from any thread.
final class LockedList<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.lock(); items.append(item); lock.unlock() }
    var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
}
