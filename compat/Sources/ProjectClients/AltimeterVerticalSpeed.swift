import CoreMotion

/// A climbing app's vertical speed: Δ relativeAltitude / Δ timestamp of consecutive `CMAltitudeData`,
/// checked against a lift with a known profile (the simulator's `elevator` scene: from 3 s to 18 s
/// the floor rises 12 m along a quintic smoothstep, 0.8 m/s on average, 1.5 m/s at 10.5 s).
func altimeterVerticalSpeed(_ e: Expectations) {
    let before = ProcessInfo.processInfo.systemUptime
    let available = CMAltimeter.isRelativeAltitudeAvailable()  // the scene starts when the device is made
    let sceneStart = (before + ProcessInfo.processInfo.systemUptime) / 2
    e.check(available, "relative altitude not available")
    guard available else { return }
    let altimeter = CMAltimeter()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let updates = AltitudeLog()
    altimeter.startRelativeAltitudeUpdates(to: queue) { data, error in
        if let data, error == nil { updates.append(data) }
    }
    Thread.sleep(forTimeInterval: 20.5)
    altimeter.stopRelativeAltitudeUpdates()
    queue.waitUntilAllOperationsAreFinished()
    let all = updates.all
    e.check(all.count >= 18, "\(all.count) updates in 20 s")
    guard all.count >= 18 else { return }

    func smoothstep(_ x: Double) -> Double {
        let s = min(max(x, 0), 1)
        return s * s * s * (10 - 15 * s + 6 * s * s)
    }
    func liftHeight(_ uptime: Double) -> Double { 12 * smoothstep((uptime - sceneStart - 3) / 15) }

    var errors: [Double] = []
    var fastest = (speed: -Double.infinity, at: 0.0)
    for (a, b) in zip(all, all.dropFirst()) {
        let dt = b.timestamp - a.timestamp
        let speed = (b.relativeAltitude.doubleValue - a.relativeAltitude.doubleValue) / dt
        let truth = (liftHeight(b.timestamp) - liftHeight(a.timestamp)) / dt
        errors.append(speed - truth)
        if speed > fastest.speed { fastest = (speed, (a.timestamp + b.timestamp) / 2 - sceneStart) }
    }
    let rms = (errors.map { $0 * $0 }.reduce(0, +) / Double(errors.count)).squareRoot()
    // Lag: the shift of the lift's profile that best matches the reported altitude.
    let zero = liftHeight(all[0].timestamp)
    var lag = (seconds: 0.0, rms: Double.infinity)
    for step in -30...30 {
        let shift = Double(step) * 0.05
        let d = all.map { $0.relativeAltitude.doubleValue - (liftHeight($0.timestamp - shift) - zero) }
        let r = (d.map { $0 * $0 }.reduce(0, +) / Double(d.count)).squareRoot()
        if r < lag.rms { lag = (shift, r) }
    }
    // Measured on this scene (seed 1): 0.09 m/s r.m.s. and no lag; an altimeter that low-passes
    // its altitude with a 1.5 s time constant gives 0.17 m/s and reports 1.0 s late.
    e.check(rms < 0.15, "vertical speed off by \(String(format: "%.3f", rms)) m/s r.m.s.")
    e.check(abs(lag.seconds) <= 0.15, "altitude reported \(String(format: "%.2f", lag.seconds)) s late")
    e.check(abs(fastest.at - 10.5) <= 1.1 && fastest.speed > 1.2 && fastest.speed < 1.8,
            "fastest \(String(format: "%.2f", fastest.speed)) m/s at \(String(format: "%.1f", fastest.at)) s (lift: 1.5 m/s at 10.5 s)")
    let top = all.map(\.relativeAltitude.doubleValue).max() ?? 0
    e.check(top > 11.5 && top < 12.5, "climbed \(top) m of 12")
    e.note("\(all.count) updates, vertical speed r.m.s. error \(String(format: "%.3f", rms)) m/s, lag \(String(format: "%.2f", lag.seconds)) s, "
        + "fastest \(String(format: "%.2f", fastest.speed)) m/s at \(String(format: "%.1f", fastest.at)) s")
}

/// `CMAltitudeData` collected from a handler on an operation queue.
final class AltitudeLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [CMAltitudeData] = []
    func append(_ item: CMAltitudeData) { lock.lock(); items.append(item); lock.unlock() }
    var all: [CMAltitudeData] { lock.lock(); defer { lock.unlock() }; return items }
}
