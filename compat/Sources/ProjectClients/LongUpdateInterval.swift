import CoreMotion

// Apps that only need an occasional reading ask for a long interval, as Apple's energy guide recommends
// ("Reduce the Frequency of Motion Updates"). Apple documents a cap only at the fast end (the hardware's
// maximum frequency), so an interval of 2 s gives a sample every 2 s, not every second.
func longUpdateInterval(_ e: Expectations) {
    let motion = CMMotionManager()
    guard motion.isAccelerometerAvailable, motion.isDeviceMotionAvailable else {
        return e.check(false, "accelerometer or device motion not available")
    }
    motion.accelerometerUpdateInterval = 2.0
    motion.deviceMotionUpdateInterval = 1.5
    e.check(motion.accelerometerUpdateInterval == 2.0, "accelerometerUpdateInterval reads \(motion.accelerometerUpdateInterval) after setting 2 s")
    e.check(motion.deviceMotionUpdateInterval == 1.5, "deviceMotionUpdateInterval reads \(motion.deviceMotionUpdateInterval) after setting 1.5 s")

    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let lock = NSLock()
    var accelerometer: [TimeInterval] = []
    var deviceMotion: [TimeInterval] = []
    motion.startAccelerometerUpdates(to: queue) { data, _ in
        guard let data else { return }
        lock.lock()
        accelerometer.append(data.timestamp)
        lock.unlock()
    }
    motion.startDeviceMotionUpdates(to: queue) { data, _ in
        guard let data else { return }
        lock.lock()
        deviceMotion.append(data.timestamp)
        lock.unlock()
    }
    Thread.sleep(forTimeInterval: 4.6)
    motion.stopAccelerometerUpdates()
    motion.stopDeviceMotionUpdates()
    queue.waitUntilAllOperationsAreFinished()
    lock.lock()
    let a = accelerometer
    let d = deviceMotion
    lock.unlock()

    // First sample at once, then one per interval: 0, 2, 4 s and 0, 1.5, 3, 4.5 s.
    e.check(a.count == 3, "\(a.count) accelerometer samples in 4.6 s at a 2 s interval (expected 3)")
    e.check(d.count >= 3 && d.count <= 4, "\(d.count) device-motion samples in 4.6 s at a 1.5 s interval (expected 3 or 4)")
    let aSteps = zip(a.dropFirst(), a).map { $0 - $1 }
    let dSteps = zip(d.dropFirst(), d).map { $0 - $1 }
    e.check(aSteps.allSatisfy { abs($0 - 2.0) < 0.02 }, "accelerometer steps \(aSteps) s, expected 2 s")
    e.check(dSteps.allSatisfy { abs($0 - 1.5) < 0.02 }, "device-motion steps \(dSteps) s, expected 1.5 s")
    e.note("accelerometer steps \(aSteps.map { String(format: "%.3f", $0) }) s, device motion \(dSteps.map { String(format: "%.3f", $0) }) s")
}
