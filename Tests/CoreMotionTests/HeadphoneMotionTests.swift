import CoreMotion
import CoreMotionTesting
import Foundation
import MotionRecordings
import MotionService
import MotionSimulator
import Testing
import TestSupport

/// What a delegate heard, with the queue it ran on.
final class HeadphoneDelegateProbe: NSObject, CMHeadphoneMotionManagerDelegate, @unchecked Sendable {
    struct Call: Sendable {
        var connected: Bool
        var onMainQueue: Bool
        var queue: ObjectIdentifier?
        var order: Int
    }

    let calls = Recorder<Call>()
    let order: Counter

    init(order: Counter = Counter()) { self.order = order }

    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) { record(true) }
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) { record(false) }

    private func record(_ connected: Bool) {
        calls.append(Call(
            connected: connected, onMainQueue: OperationQueue.current === OperationQueue.main,
            queue: OperationQueue.current.map(ObjectIdentifier.init), order: order.next()))
    }
}

/// A shared sequence number, to order delegate calls and handler calls.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// One handler call of a headphone stream.
struct HeadphoneCall: Sendable {
    var timestamp: Double
    var quaternion: CMQuaternion
    var roll: Double, pitch: Double, yaw: Double
    var rotation: CMRotationRate
    var gravity: CMAcceleration
    var user: CMAcceleration
    var field: CMCalibratedMagneticField
    var heading: Double
    var location: CMDeviceMotion.SensorLocation
    var order: Int
    var queue: ObjectIdentifier?
}

func record(_ motion: CMDeviceMotion, order: Int) -> HeadphoneCall {
    HeadphoneCall(
        timestamp: motion.timestamp, quaternion: motion.attitude.quaternion, roll: motion.attitude.roll,
        pitch: motion.attitude.pitch, yaw: motion.attitude.yaw, rotation: motion.rotationRate, gravity: motion.gravity,
        user: motion.userAcceleration, field: motion.magneticField, heading: motion.heading, location: motion.sensorLocation,
        order: order, queue: OperationQueue.current.map(ObjectIdentifier.init))
}

let headShakeExcerpt = TestData.fixture("headphones/airpods-head-shake-excerpt.jsonl")

@Suite("CMHeadphoneMotionManager and CMHeadphoneActivityManager")
struct HeadphoneMotionTests {
    @Test("availability means a headphone source is configured, connected or not")
    func availability() throws {
        syntheticHarness().run {
            #expect(!CMHeadphoneMotionManager().isDeviceMotionAvailable)
            #expect(!CMHeadphoneActivityManager().isActivityAvailable)
            let m = CMHeadphoneMotionManager()
            m.startDeviceMotionUpdates()
            #expect(!m.isDeviceMotionActive)
            #expect(m.deviceMotion == nil)
        }
        let h = try MotionTestHarness(headphoneScene: "bud-out-and-in")
        h.run {
            let m = CMHeadphoneMotionManager()
            #expect(m.isDeviceMotionAvailable)
            #expect(CMHeadphoneActivityManager().isStatusAvailable)
            #expect(CMHeadphoneMotionManager.authorizationStatus() == .authorized)
            h.advance(by: 10)  // disconnected now (both buds out since 9 s): still available
            #expect(m.isDeviceMotionAvailable)
        }
    }

    @Test("push: the delegate runs on the motion queue, didConnect before the first sample; 50 Hz, Apple's units")
    func pushOnTheMotionQueue() throws {
        let h = try MotionTestHarness(headphoneScene: "head-nod")
        h.run {
            let queue = serialQueue()
            let m = CMHeadphoneMotionManager()
            let probe = HeadphoneDelegateProbe()
            m.delegate = probe
            let samples = Recorder<HeadphoneCall>()
            let order = probe.order
            m.startDeviceMotionUpdates(to: queue) { motion, error in
                guard let motion else { return }
                samples.append(record(motion, order: order.next()))
            }
            #expect(m.isDeviceMotionActive)
            h.advance(by: 2)
            m.stopDeviceMotionUpdates()
            #expect(!m.isDeviceMotionActive)
            let calls = probe.calls.all
            let all = samples.all
            #expect(calls.count == 1)
            #expect(calls.first?.connected == true)
            #expect(calls.first?.queue == ObjectIdentifier(queue))
            #expect(all.count >= 99 && all.count <= 101)  // 50 Hz for 2 s
            #expect((calls.first?.order ?? .max) < (all.first?.order ?? 0))
            #expect(all.allSatisfy { $0.queue == ObjectIdentifier(queue) })
            let steps = zip(all.dropFirst(), all).map { $0.timestamp - $1.timestamp }
            #expect(steps.allSatisfy { abs($0 - 0.02) < 1e-9 })
            for s in all {
                let g = (s.gravity.x * s.gravity.x + s.gravity.y * s.gravity.y + s.gravity.z * s.gravity.z).squareRoot()
                #expect(abs(g - 1) < 1e-9)
                #expect(s.field.accuracy == .uncalibrated)
                #expect(s.field.field.x == 0 && s.field.field.y == 0 && s.field.field.z == 0)
                #expect(s.heading == 0)
                #expect(s.location == .headphoneLeft)
            }
        }
    }

    @Test("pull and status updates: the delegate runs on the main queue; headphones already connected report at once")
    func pullAndAlreadyConnected() throws {
        let h = try MotionTestHarness(headphoneScene: "look-around")
        try h.run {
            h.advance(by: 3)  // the headphones have been streaming for 3 s
            let m = CMHeadphoneMotionManager()
            let probe = HeadphoneDelegateProbe()
            m.delegate = probe
            m.startConnectionStatusUpdates()
            #expect(m.isConnectionStatusActive)
            h.advance(by: 0)
            #expect(h.service.deliveries.waitUntilDelivered())
            let calls = probe.calls.all
            #expect(calls.count == 1)
            #expect(calls.first?.connected == true)
            #expect(calls.first?.onMainQueue == true)
            // Pull: the latest sample; connection changes still go to the main queue.
            m.startDeviceMotionUpdates()
            #expect(m.deviceMotion == nil)
            h.advance(by: 0.5)
            let latest = try #require(m.deviceMotion)
            #expect(abs(latest.timestamp - h.now) <= 0.02 + 1e-9)
            m.stopDeviceMotionUpdates()
            m.stopConnectionStatusUpdates()
            #expect(!m.isConnectionStatusActive)
            #expect(probe.calls.all.count == 1)  // no second didConnect
        }
    }

    @Test("a silence over 1 s disconnects, samples coming back reconnect; the bud that streams is the sample's location")
    func gapDisconnectsAndReconnects() throws {
        let h = try MotionTestHarness(headphoneScene: "bud-out-and-in")
        h.run {
            let queue = serialQueue()
            let m = CMHeadphoneMotionManager()
            let probe = HeadphoneDelegateProbe()
            m.delegate = probe
            let samples = Recorder<HeadphoneCall>()
            let start = h.now
            let order = probe.order
            m.startDeviceMotionUpdates(to: queue) { motion, _ in
                if let motion { samples.append(record(motion, order: order.next())) }
            }
            h.advance(by: 14)
            m.stopDeviceMotionUpdates()
            let calls = probe.calls.all
            #expect(calls.map(\.connected) == [true, false, true])
            let all = samples.all
            // The disconnect comes between the last sample before the silence (t < 9 s) and the first after it.
            let before = all.filter { $0.order < calls[1].order }
            let after = all.filter { $0.order > calls[2].order }
            #expect(before.allSatisfy { $0.timestamp - start < 9 })
            #expect(all.filter { $0.order > calls[1].order && $0.order < calls[2].order }.isEmpty)
            #expect(after.first.map { abs($0.timestamp - start - 12) < 1e-9 } == true)
            // Left bud to 4 s, the right one from 4.4 s to 9 s, the left one again from 12 s.
            #expect(all.filter { $0.timestamp - start < 4 }.allSatisfy { $0.location == .headphoneLeft })
            #expect(all.filter { $0.timestamp - start > 4.39 && $0.timestamp - start < 9 }.allSatisfy { $0.location == .headphoneRight })
            #expect(!all.contains { $0.timestamp - start > 4.01 && $0.timestamp - start < 4.39 })  // the 0.4 s silence stays a gap
            #expect(after.allSatisfy { $0.location == .headphoneLeft })
        }
    }

    @Test("the attitude is relative to the pose when updates started: q.z = 0 at each manager's first sample")
    func startAnchor() throws {
        let h = try MotionTestHarness(headphoneScene: "look-around")
        try h.run {
            let first = Recorder<HeadphoneCall>()
            let second = Recorder<HeadphoneCall>()
            let queue = serialQueue()
            let a = CMHeadphoneMotionManager()
            a.startDeviceMotionUpdates(to: queue) { motion, _ in if let motion { first.append(record(motion, order: 0)) } }
            h.advance(by: 2.2)  // the head has turned 70° to the left meanwhile
            let b = CMHeadphoneMotionManager()
            b.startDeviceMotionUpdates(to: queue) { motion, _ in if let motion { second.append(record(motion, order: 0)) } }
            h.advance(by: 3)
            a.stopDeviceMotionUpdates()
            b.stopDeviceMotionUpdates()
            let a0 = try #require(first.all.first), b0 = try #require(second.all.first)
            #expect(abs(a0.quaternion.z) < 1e-12)
            #expect(abs(b0.quaternion.z) < 1e-12)
            // The same instant seen by both: a's yaw is b's + the 70° turned before b started (tilt unchanged).
            let bLast = try #require(second.all.last)
            let aSame = try #require(first.all.first { abs($0.timestamp - bLast.timestamp) < 1e-9 })
            var dyaw = (aSame.yaw - bLast.yaw) * 180 / .pi
            if dyaw > 180 { dyaw -= 360 }
            #expect(abs(dyaw - 70) < 1)
            #expect(abs(aSame.pitch - bLast.pitch) < 1e-9 && abs(aSame.roll - bLast.roll) < 1e-9)
            // Body-frame vectors do not depend on the anchor.
            #expect(abs(aSame.rotation.z - bLast.rotation.z) < 1e-12 && abs(aSame.gravity.y - bLast.gravity.y) < 1e-12)
        }
    }

    @Test("a recording of real AirPods plays as Apple computed it: values, rate, gaps and start-up timing")
    func replayFidelity() throws {
        let recorded = try HeadphoneRecordingReader.read(headShakeExcerpt)
        let h = try MotionTestHarness(headphoneRecording: headShakeExcerpt)
        try h.run {
            let queue = serialQueue()
            let m = CMHeadphoneMotionManager()
            let probe = HeadphoneDelegateProbe()
            m.delegate = probe
            let samples = Recorder<HeadphoneCall>()
            let order = probe.order
            let start = h.now
            m.startDeviceMotionUpdates(to: queue) { motion, _ in
                if let motion { samples.append(record(motion, order: order.next())) }
            }
            h.advance(by: 4)
            m.stopDeviceMotionUpdates()
            let all = samples.all
            try #require(all.count == recorded.samples.count)  // 150: every sample, none resampled
            // Start-up as captured: `starting` at 0, `connected` 3 ms later, the first sample 259 ms after that.
            let t0 = try #require(recorded.startTime)
            #expect(abs(all[0].timestamp - start - (recorded.samples[0].time - t0)) < 1e-9)
            #expect(abs(all[0].timestamp - start - 0.2595) < 0.001)
            #expect(probe.calls.all.map(\.connected) == [true, false])  // connected, then the end of the recording
            // Every value as recorded (the recording starts with q.z = 1e-17: its anchor is the identity).
            for (call, sample) in zip(all, recorded.samples) {
                #expect(abs((call.timestamp - all[0].timestamp) - (sample.time - recorded.samples[0].time)) < 1e-9)
                let q = sample.attitude
                #expect(abs(call.quaternion.w - q.w) < 1e-12 && abs(call.quaternion.x - q.x) < 1e-12)
                #expect(abs(call.quaternion.y - q.y) < 1e-12 && abs(call.quaternion.z - q.z) < 1e-12)
                #expect(call.rotation.x == sample.rotationRate.x && call.rotation.y == sample.rotationRate.y && call.rotation.z == sample.rotationRate.z)
                #expect(call.user.x == sample.userAcceleration.x && call.user.z == sample.userAcceleration.z)
                #expect(call.gravity.x == sample.gravity.x && call.gravity.y == sample.gravity.y && call.gravity.z == sample.gravity.z)
                #expect(call.location == .default)  // the capture did not say which bud
            }
        }
    }

    @Test("the capture's Euler angles are CMAttitude's roll, pitch and yaw of the replayed samples")
    func replayEulerAngles() throws {
        let h = try MotionTestHarness(headphoneRecording: headShakeExcerpt)
        let lines = try String(contentsOf: headShakeExcerpt, encoding: .utf8).split(separator: "\n")
        let euler = try lines.compactMap { line -> [String: Double]? in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return object?["euler"] as? [String: Double]
        }
        try h.run {
            let samples = Recorder<HeadphoneCall>()
            let m = CMHeadphoneMotionManager()
            m.startDeviceMotionUpdates(to: serialQueue()) { motion, _ in if let motion { samples.append(record(motion, order: 0)) } }
            h.advance(by: 4)
            m.stopDeviceMotionUpdates()
            try #require(samples.all.count == euler.count)
            let degrees = 180 / Double.pi
            var worst = 0.0
            for (call, e) in zip(samples.all, euler) {
                worst = max(worst, abs(call.roll * degrees - e["roll"]!), abs(call.pitch * degrees - e["pitch"]!), abs(call.yaw * degrees - e["yaw"]!))
            }
            #expect(worst < 1e-9)  // measured 2e-14°
        }
    }

    @Test("denied: the push handler gets CMErrorNotAuthorized once, and no connection is reported")
    func denied() throws {
        let clock = VirtualClock()
        let headphones = ScheduledHeadphoneDevice(
            name: "sim", timeline: try HeadphoneSimulation(scene: HeadphoneSceneCatalog.scene(named: "head-nod")).timeline(), clock: clock)
        let provider = MotionService(device: NoDevice(clock: clock), history: .inMemory, headphones: headphones, authorization: .denied)
        let errors = Recorder<Int>()
        let probe = HeadphoneDelegateProbe()
        MotionProviderOverride.with(provider) {
            #expect(CMHeadphoneMotionManager.authorizationStatus() == .denied)
            let m = CMHeadphoneMotionManager()
            m.delegate = probe
            let queue = serialQueue()
            m.startDeviceMotionUpdates(to: queue) { motion, error in
                if let error = error as NSError? { errors.append(error.code) }
                #expect(motion == nil)
            }
            m.startConnectionStatusUpdates()
            clock.advance(by: 1)
            queue.waitUntilAllOperationsAreFinished()
            #expect(provider.deliveries.waitUntilDelivered())
        }
        #expect(errors.all == [Int(CMErrorNotAuthorized.rawValue)])
        #expect(probe.calls.all.isEmpty)
    }

    @Test("CMHeadphoneActivityManager: .connected at once when connected, then changes; activity from head motion")
    func activityManager() throws {
        let h = try MotionTestHarness(headphoneScene: "bud-out-and-in")
        h.run {
            h.advance(by: 1)
            let manager = CMHeadphoneActivityManager()
            let statuses = Recorder<CMHeadphoneActivityManager.Status>()
            manager.startStatusUpdates(to: serialQueue()) { status, error in
                #expect(error == nil)
                statuses.append(status)
            }
            #expect(manager.isStatusActive)
            h.advance(by: 0)
            #expect(h.service.deliveries.waitUntilDelivered())
            #expect(statuses.all == [.connected])
            h.advance(by: 13)
            manager.stopStatusUpdates()
            #expect(statuses.all == [.connected, .disconnected, .connected])
        }
        let walk = try MotionTestHarness(headphoneScene: "walk-head-turns")
        walk.run {
            let manager = CMHeadphoneActivityManager()
            let activities = Recorder<(stationary: Bool, walking: Bool, running: Bool, unknown: Bool, automotive: Bool, cycling: Bool)>()
            manager.startActivityUpdates(to: serialQueue()) { activity, error in
                guard let a = activity else { return }
                activities.append((a.stationary, a.walking, a.running, a.unknown, a.automotive, a.cycling))
            }
            #expect(manager.isActivityActive)
            walk.advance(by: 20)
            manager.stopActivityUpdates()
            let all = activities.all
            #expect(all.contains { $0.walking })
            #expect(!all.contains { $0.running || $0.unknown || $0.automotive || $0.cycling })
        }
        let nod = try MotionTestHarness(headphoneScene: "head-nod")
        nod.run {
            let manager = CMHeadphoneActivityManager()
            let activities = Recorder<(stationary: Bool, walking: Bool, running: Bool)>()
            manager.startActivityUpdates(to: serialQueue()) { activity, _ in
                if let a = activity { activities.append((a.stationary, a.walking, a.running)) }
            }
            nod.advance(by: 15)
            manager.stopActivityUpdates()
            let all = activities.all
            #expect(all.contains { $0.stationary })  // the 4 s still between two rounds of nods
            #expect(all.contains { !$0.stationary && !$0.walking && !$0.running })  // nodding: none of them
            #expect(!all.contains { $0.walking || $0.running })
        }
    }
}
