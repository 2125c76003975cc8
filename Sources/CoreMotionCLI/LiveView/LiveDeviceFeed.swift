import CoreMotion
import Foundation
import MotionLiveView
import MotionLiveViewProtocol

/// `coremotion view` on a live device (any `COREMOTION_DEVICE`: IIO, the simulator, the system service,
/// a recording played from the start, a phone on the network…), through Core Motion's API as an app
/// would use it: raw sensors and device motion from `CMMotionManager`, steps from `CMPedometer`,
/// activity from `CMMotionActivityManager`, altitude from `CMAltimeter` and the headphones' attitude
/// from `CMHeadphoneMotionManager` (whatever of these the device offers).
///
/// The handlers ask for twice the page's rate (the service decimates a faster device before any
/// handler runs); the broadcaster thins every channel to what the page draws. The device must have been chosen (the environment variable set) before this
/// is made.
final class LiveDeviceFeed: LiveViewSource, @unchecked Sendable {  // @unchecked: its vars are guarded by `lock`; the CM* managers are `let`s that lock their own state
    /// The update interval asked of the API: twice the rate the page is sent (the service thins a 1 kHz
    /// device before any handler runs; the broadcaster thins the rest), and never faster than 1 kHz.
    let interval: Double

    private let name: String
    private let lock = NSLock()
    private let motion = CMMotionManager()
    private let headphones = CMHeadphoneMotionManager()
    private let pedometer = CMPedometer()
    private let activity = CMMotionActivityManager()
    private let altimeter = CMAltimeter()
    private let queue: OperationQueue = {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "coremotion.view.handlers"
        return queue
    }()
    private var frame: CMAttitudeReferenceFrame
    private var broadcaster: LiveBroadcaster?
    /// The latest sensor time seen: the page's clock, and the time given to steps and activities
    /// (their API values carry dates, not sensor times).
    private var latest = 0.0
    private var lastStepCount = 0
    private var lastStepTime: Double?

    /// A feed for the device `name` (for the page's title), read at twice `rate` samples per second.
    init(name: String, rate: Double) {
        self.name = name
        interval = max(0.001, 1 / (2 * rate))
        let available = CMMotionManager.availableAttitudeReferenceFrames()
        frame = available.contains(.xMagneticNorthZVertical) ? .xMagneticNorthZVertical : .xArbitraryZVertical
    }

    private static let frames: [(CMAttitudeReferenceFrame, String)] = [
        (.xArbitraryZVertical, "xArbitraryZVertical"), (.xArbitraryCorrectedZVertical, "xArbitraryCorrectedZVertical"),
        (.xMagneticNorthZVertical, "xMagneticNorthZVertical"), (.xTrueNorthZVertical, "xTrueNorthZVertical"),
    ]

    private static func frameName(_ frame: CMAttitudeReferenceFrame) -> String {
        frames.first { $0.0 == frame }?.1 ?? "xArbitraryZVertical"
    }

    var hello: LiveViewHello {
        lock.lock()
        defer { lock.unlock() }
        let available = CMMotionManager.availableAttitudeReferenceFrames()
        return LiveViewHello(
            source: name, timeline: nil, referenceFrame: Self.frameName(frame),
            referenceFrames: Self.frames.filter { available.contains($0.0) }.map(\.1), sampleRate: 0
        )
    }

    func start(into broadcaster: LiveBroadcaster) throws {
        lock.lock()
        self.broadcaster = broadcaster
        lock.unlock()
        motion.accelerometerUpdateInterval = interval
        motion.gyroUpdateInterval = interval
        motion.magnetometerUpdateInterval = interval
        motion.deviceMotionUpdateInterval = interval
        if motion.isAccelerometerAvailable {
            motion.startAccelerometerUpdates(to: queue) { [weak self] data, _ in
                guard let self, let data else { return }
                let a = data.acceleration
                self.note(data.timestamp)
                broadcaster.publish(LiveSample(.acceleration, time: data.timestamp, x: a.x, y: a.y, z: a.z))
            }
        }
        if motion.isGyroAvailable {
            motion.startGyroUpdates(to: queue) { data, _ in
                guard let data else { return }
                let r = data.rotationRate
                broadcaster.publish(LiveSample(.rotationRate, time: data.timestamp, x: r.x, y: r.y, z: r.z))
            }
        }
        if motion.isMagnetometerAvailable {
            motion.startMagnetometerUpdates(to: queue) { data, _ in
                guard let data else { return }
                let m = data.magneticField
                broadcaster.publish(LiveSample(.magneticField, time: data.timestamp, x: m.x, y: m.y, z: m.z))
            }
        }
        startDeviceMotion()
        headphones.startDeviceMotionUpdates(to: queue) { data, _ in
            guard let data else { return }
            let q = data.attitude.quaternion
            broadcaster.publish(LiveSample(.headphoneAttitude, time: data.timestamp, SIMD4(q.w, q.x, q.y, q.z)))
        }
        if CMPedometer.isStepCountingAvailable() {
            pedometer.startUpdates(from: Date()) { [weak self] data, _ in
                guard let self, let data else { return }
                self.pedometerUpdate(data, broadcaster: broadcaster)
            }
        }
        if CMMotionActivityManager.isActivityAvailable() {
            activity.startActivityUpdates(to: queue) { [weak self] activity in
                guard let self, let activity else { return }
                broadcaster.publish(LiveEvent.activity(time: self.now, label: Self.label(activity), confidence: activity.confidence.rawValue))
            }
        }
        if CMAltimeter.isRelativeAltitudeAvailable() {
            altimeter.startRelativeAltitudeUpdates(to: queue) { [weak self] data, _ in
                guard let self, let data else { return }
                let time = data.timestamp > 0 ? data.timestamp : self.now
                broadcaster.publish(LiveSample(.relativeAltitude, time: time, value: data.relativeAltitude.doubleValue))
                broadcaster.publish(LiveSample(.pressure, time: time, value: data.pressure.doubleValue))
            }
        }
    }

    private func startDeviceMotion() {
        guard motion.isDeviceMotionAvailable, let broadcaster = lock.withLock({ self.broadcaster }) else { return }
        let frame = lock.withLock { self.frame }
        motion.startDeviceMotionUpdates(using: frame, to: queue) { data, _ in
            guard let data else { return }
            let t = data.timestamp
            let q = data.attitude.quaternion
            let g = data.gravity, u = data.userAcceleration
            broadcaster.publish(LiveSample(.attitude, time: t, SIMD4(q.w, q.x, q.y, q.z)))
            broadcaster.publish(LiveSample(.gravity, time: t, x: g.x, y: g.y, z: g.z))
            broadcaster.publish(LiveSample(.userAcceleration, time: t, x: u.x, y: u.y, z: u.z))
            broadcaster.publish(LiveSample(.heading, time: t, value: data.heading))
        }
    }

    private func note(_ time: Double) {
        lock.lock()
        if time > latest { latest = time }
        lock.unlock()
    }

    private var now: Double { lock.withLock { latest } }

    /// Totals, cadence and pace; each new step is marked, spread over the time since the last update.
    private func pedometerUpdate(_ data: CMPedometerData, broadcaster: LiveBroadcaster) {
        let steps = data.numberOfSteps.intValue
        lock.lock()
        let time = latest
        let new = max(0, steps - lastStepCount)
        let from = lastStepTime ?? time - 1
        lastStepCount = max(lastStepCount, steps)
        lastStepTime = time
        lock.unlock()
        for i in 0..<min(new, 50) {
            broadcaster.publish(LiveEvent.step(time: from + (time - from) * Double(i + 1) / Double(min(new, 50))))
        }
        let cadence = data.currentCadence?.doubleValue ?? .nan
        let pace = data.currentPace?.doubleValue ?? .nan
        broadcaster.publish(LiveSample(.pedometer, time: time, SIMD4(Double(steps), cadence, pace, 0)))
    }

    private static func label(_ a: CMMotionActivity) -> String {
        if a.automotive { return "automotive" }
        if a.cycling { return "cycling" }
        if a.running { return "running" }
        if a.walking { return "walking" }
        if a.stationary { return "stationary" }
        return "unknown"
    }

    func tick(into broadcaster: LiveBroadcaster) -> LiveClock {
        LiveClock(time: now, playing: true, speed: 1)
    }

    func handle(_ command: PageCommand, broadcaster: LiveBroadcaster) throws(LiveViewSourceError) {
        switch command {
        case .referenceFrame(let name):
            guard let new = Self.frames.first(where: { $0.1 == name })?.0,
                  CMMotionManager.availableAttitudeReferenceFrames().contains(new) else {
                throw LiveViewSourceError("this device offers no \(name) (it has \(hello.referenceFrames.joined(separator: ", ")))")
            }
            lock.lock()
            frame = new
            lock.unlock()
            motion.stopDeviceMotionUpdates()
            broadcaster.reset(time: now, referenceFrame: name)
            startDeviceMotion()
        case .play, .pause:
            // A live device runs on; each page freezes its own drawing.
            break
        case .seek, .speed:
            throw LiveViewSourceError("a live device has no timeline (open a recording: coremotion view FILE)")
        case .ping:
            break
        }
    }

    func stop() {
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
        motion.stopDeviceMotionUpdates()
        headphones.stopDeviceMotionUpdates()
        pedometer.stopUpdates()
        activity.stopActivityUpdates()
        altimeter.stopRelativeAltitudeUpdates()
    }
}
