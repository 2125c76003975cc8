import CoreMotion

// Head tracking as an iOS app writes it with `CMHeadphoneMotionManager` (AirPods Pro/Max): a delegate for
// the connection, push updates on an operation queue, then pull updates read from `deviceMotion`. The
// headphones come from COREMOTION_HEADPHONE_DEVICE, set by compat/run.sh per client (a committed excerpt of
// a real AirPods capture, a simulated head, or a live Sensor Logger push).

/// What the delegate heard, and where.
final class HeadphoneConnectionLog: NSObject, CMHeadphoneMotionManagerDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(connected: Bool, onMainThread: Bool, queue: OperationQueue?, date: Date)] = []

    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) { record(true) }
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) { record(false) }

    private func record(_ connected: Bool) {
        lock.lock()
        items.append((connected, Thread.isMainThread, OperationQueue.current, Date()))
        lock.unlock()
    }

    var all: [(connected: Bool, onMainThread: Bool, queue: OperationQueue?, date: Date)] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

/// Device-motion samples collected from a handler, with when the first one came.
final class HeadphoneSampleLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CMDeviceMotion] = []
    private var offQueue = 0
    private var connectionsBeforeFirst = -1

    func append(_ motion: CMDeviceMotion, onExpectedQueue: Bool, connectionsSoFar: Int) {
        lock.lock()
        if items.isEmpty { connectionsBeforeFirst = connectionsSoFar }
        items.append(motion)
        if !onExpectedQueue { offQueue += 1 }
        lock.unlock()
    }

    var all: [CMDeviceMotion] { lock.lock(); defer { lock.unlock() }; return items }
    var callsOffQueue: Int { lock.lock(); defer { lock.unlock() }; return offQueue }
    /// How many `didConnect` calls the delegate had heard when the first sample came (−1: no sample).
    var connectionsHeardBeforeFirstSample: Int { lock.lock(); defer { lock.unlock() }; return connectionsBeforeFirst }
}

/// Gravity as Apple's headphone stream computes it from the attitude: −(third row of the rotation matrix), g.
func gravityFromAttitude(_ attitude: CMAttitude) -> (x: Double, y: Double, z: Double) {
    let q = attitude.quaternion
    return (-2 * (q.x * q.z - q.w * q.y), -2 * (q.y * q.z + q.w * q.x), -(1 - 2 * (q.x * q.x + q.y * q.y)))
}

/// Checks one headphone sample's units and fixed fields: gravity 1 g and agreeing with the attitude, a small
/// user acceleration in g, a plausible head rotation rate in rad/s, no magnetic field, heading 0.
func checkHeadphoneSample(_ e: Expectations, _ m: CMDeviceMotion, _ label: String) {
    let g = m.gravity
    let norm = (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()
    e.check(abs(norm - 1) < 0.01, "\(label): gravity norm \(norm) g, not 1 g")
    let expected = gravityFromAttitude(m.attitude)
    let difference = max(abs(g.x - expected.x), abs(g.y - expected.y), abs(g.z - expected.z))
    e.check(difference < 0.01, "\(label): gravity \(g) disagrees with the attitude by \(difference) g")
    let a = m.userAcceleration
    e.check(max(abs(a.x), abs(a.y), abs(a.z)) < 3, "\(label): user acceleration \(a) not in g")
    let r = m.rotationRate
    e.check(max(abs(r.x), abs(r.y), abs(r.z)) < 35, "\(label): rotation rate \(r) not in rad/s")
    e.check(m.magneticField.accuracy == .uncalibrated, "\(label): magnetic field accuracy \(m.magneticField.accuracy.rawValue), not uncalibrated")
    let f = m.magneticField.field
    e.check(f.x == 0 && f.y == 0 && f.z == 0, "\(label): magnetic field \(f), not zeros")
    e.check(m.heading == 0, "\(label): heading \(m.heading), not 0")
}

/// Push then pull device motion with a delegate, on a recording or a simulated head that streams from the start.
///
/// - Parameters:
///   - location: the sensor location the source reports (`.default` for a capture without `loc`).
///   - rate: the headset's rate, Hz (50 for AirPods on iOS 26 / macOS 26).
func headphoneMotion(_ e: Expectations, name: String, location: CMDeviceMotion.SensorLocation, rate: Double) {
    let status = CMHeadphoneMotionManager.authorizationStatus()
    e.check(status != .denied && status != .restricted, "authorization \(status.rawValue)")
    let manager = CMHeadphoneMotionManager()
    e.check(manager.isDeviceMotionAvailable, "headphone device motion not available with a headphone source")
    guard manager.isDeviceMotionAvailable else { e.finish(name) }
    e.check(!manager.isDeviceMotionActive, "active before start")
    e.check(manager.deviceMotion == nil, "deviceMotion before start")
    let connection = HeadphoneConnectionLog()
    manager.delegate = connection

    // Push: one handler call per sample on our queue; the delegate hears didConnect there, before the first sample.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let samples = HeadphoneSampleLog()
    manager.startDeviceMotionUpdates(to: queue) { motion, error in
        e.check(error == nil, "push handler error \(String(describing: error))")
        guard let motion else { return }
        samples.append(motion, onExpectedQueue: OperationQueue.current === queue, connectionsSoFar: connection.all.filter { $0.connected }.count)
    }
    e.check(manager.isDeviceMotionActive, "not active after start")
    Thread.sleep(forTimeInterval: 1.5)
    manager.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    e.check(!manager.isDeviceMotionActive, "active after stop")
    let pushed = samples.all
    e.check(pushed.count >= Int(rate * 0.8), "\(pushed.count) samples in 1.5 s at \(rate) Hz")
    e.check(samples.callsOffQueue == 0, "\(samples.callsOffQueue) handler calls off the given queue")
    let connects = connection.all.filter { $0.connected }
    e.check(!connects.isEmpty, "no didConnect")
    e.check(connects.allSatisfy { $0.queue === queue }, "didConnect not on the motion queue")
    e.check(samples.connectionsHeardBeforeFirstSample >= 1, "the first sample came before didConnect")
    guard let first = pushed.first, let last = pushed.last else { e.finish(name) }
    // Attitude relative to the pose when updates started: the first quaternion has no twist about the vertical.
    e.check(abs(first.attitude.quaternion.z) < 1e-6, "first quaternion z = \(first.attitude.quaternion.z), not 0")
    let times = pushed.map(\.timestamp)
    e.check(zip(times.dropFirst(), times).allSatisfy { $0 > $1 }, "timestamps not increasing")
    let measured = Double(times.count - 1) / (times[times.count - 1] - times[0])
    e.check(abs(measured - rate) < rate * 0.1, "rate \(measured) Hz, not the headset's \(rate) Hz")
    e.check(pushed.allSatisfy { $0.sensorLocation == location }, "sensor location not \(location.rawValue)")
    for (k, m) in pushed.enumerated() where k % 5 == 0 { checkHeadphoneSample(e, m, "sample \(k)") }
    e.check(manager.deviceMotion == nil || manager.deviceMotion!.timestamp >= last.timestamp, "deviceMotion older than the last sample")

    // Pull: no handler, read deviceMotion; a new start anchors the attitude anew.
    manager.startDeviceMotionUpdates()
    Thread.sleep(forTimeInterval: 0.5)
    let pulledFirst = manager.deviceMotion
    e.check(pulledFirst != nil, "deviceMotion nil 0.5 s after a pull start")
    Thread.sleep(forTimeInterval: 0.3)
    let pulledLater = manager.deviceMotion
    if let a = pulledFirst, let b = pulledLater {
        e.check(b.timestamp > a.timestamp, "deviceMotion did not advance while pulling")
        checkHeadphoneSample(e, b, "pulled")
        e.check(b.sensorLocation == location, "pulled sensor location \(b.sensorLocation.rawValue)")
    }
    manager.stopDeviceMotionUpdates()
    e.note("\(pushed.count) pushed at \(String(format: "%.1f", measured)) Hz, location \(location.rawValue), "
        + "first q.z \(String(format: "%.1e", first.attitude.quaternion.z)), \(connects.count) didConnect on the queue; pull advanced")
}

/// Connection-status updates alone (no motion), the delegate on the main thread (no queue given): a simulated
/// head whose streaming bud is swapped (still connected), then both buds out for 3 s (disconnected after 1 s of
/// silence), then back in (connected again). Played at twice real time: `sim:bud-out-and-in?speed=2`.
func headphoneReconnect(_ e: Expectations) {
    let name = "headphone-reconnect"
    let manager = CMHeadphoneMotionManager()
    e.check(manager.isDeviceMotionAvailable, "headphone device motion not available")
    let connection = HeadphoneConnectionLog()
    manager.delegate = connection
    manager.startConnectionStatusUpdates()
    e.check(manager.isConnectionStatusActive, "connection status not active after start")
    e.check(!manager.isDeviceMotionActive, "motion active with status updates alone")
    // The delegate runs on the main thread: keep the main run loop turning.
    RunLoop.main.run(until: Date().addingTimeInterval(7.5))
    manager.stopConnectionStatusUpdates()
    e.check(!manager.isConnectionStatusActive, "connection status active after stop")
    let heard = connection.all
    let pattern = heard.map { $0.connected ? "C" : "D" }.joined()
    e.check(pattern == "CDC", "delegate calls \(pattern), wanted didConnect, didDisconnect, didConnect")
    e.check(heard.allSatisfy { $0.onMainThread }, "a delegate call off the main thread")
    if heard.count == 3 {
        let away = heard[2].date.timeIntervalSince(heard[1].date)
        // At 2×: the buds are out 3 s (1.5 s), disconnect after 1 s (0.5 s) of it: back about 1 s later.
        e.check(away > 0.6 && away < 1.6, "reconnected \(away) s after the disconnection, wanted about 1 s")
        let out = heard[1].date.timeIntervalSince(heard[0].date)
        e.check(out > 4 && out < 5.5, "disconnected \(out) s after connecting, wanted about 5 s (10 s of scene at 2×)")
    }
    e.note("delegate heard \(pattern) on the main thread")
    e.finish(name)
}

/// The buds swap mid-stream: the sensor location follows the streaming bud, and updates keep the start anchor.
func headphoneBudSwap(_ e: Expectations) {
    let manager = CMHeadphoneMotionManager()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let samples = HeadphoneSampleLog()
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in
        if let motion { samples.append(motion, onExpectedQueue: true, connectionsSoFar: 0) }
    }
    Thread.sleep(forTimeInterval: 3)  // 6 s of the scene at 2×: the left bud until 4 s, then the right
    manager.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    let locations = samples.all.map(\.sensorLocation)
    var runs: [CMDeviceMotion.SensorLocation] = []
    for l in locations where runs.last != l { runs.append(l) }
    e.check(runs == [.headphoneLeft, .headphoneRight], "locations \(runs.map(\.rawValue)), wanted left then right")
    e.check(abs(samples.all.first?.attitude.quaternion.z ?? 1) < 1e-6, "first quaternion not anchored")
    for (k, m) in samples.all.enumerated() where k % 10 == 0 { checkHeadphoneSample(e, m, "sample \(k)") }
    e.note("\(locations.count) samples, locations \(runs.map { $0 == .headphoneLeft ? "left" : "right" }.joined(separator: " → "))")
}

/// Where headphone motion is not supported (no headphone source): not available, and starting does nothing.
func headphoneUnavailable(_ e: Expectations) {
    let manager = CMHeadphoneMotionManager()
    e.check(!manager.isDeviceMotionAvailable, "available without a headphone source")
    let connection = HeadphoneConnectionLog()
    manager.delegate = connection
    let queue = OperationQueue()
    let samples = HeadphoneSampleLog()
    manager.startDeviceMotionUpdates(to: queue) { motion, _ in
        if let motion { samples.append(motion, onExpectedQueue: true, connectionsSoFar: 0) }
    }
    Thread.sleep(forTimeInterval: 0.5)
    manager.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    e.check(samples.all.isEmpty, "\(samples.all.count) samples without headphones")
    e.check(connection.all.isEmpty, "delegate heard \(connection.all.count) calls without headphones")
    e.check(manager.deviceMotion == nil, "deviceMotion without headphones")
    e.note("not available; no samples, no delegate call")
}
