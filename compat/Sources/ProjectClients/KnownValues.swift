import CoreMotion

// A board bring-up check as an iOS developer writes it: read each raw sensor once through the public API
// (CMMotionManager's accelerometer, gyro and magnetometer, CMAltimeter's pressure) and compare with values
// known from the chips' registers. Run by tools/vm/guest-checks.sh on Debian's kernel with the real bmi160,
// bmc150_magn and bmp280 drivers, in process (COREMOTION_DEVICE=iio) and through coremotiond
// (COREMOTION_DEVICE=service:SOCKET); the expected values come in KNOWN_VALUES, e.g.
//   "acc=-0.249770,0.124885,-0.999080 gyro=1.065,-0.5325,0.26625 mag=36.3125,-14.5625,-67.25 kpa=100.653253906"
// (g, rad/s, µT, kPa; a name may be left out). Each must match within 1e-6 of its unit.
func knownValues(_ e: Expectations) {
    var expected: [String: [Double]] = [:]
    for field in (ProcessInfo.processInfo.environment["KNOWN_VALUES"] ?? "").split(separator: " ") {
        let parts = field.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { return e.check(false, "KNOWN_VALUES: '\(field)' is not NAME=V[,V,V]") }
        let values = parts[1].split(separator: ",").compactMap { Double($0) }
        guard !values.isEmpty else { return e.check(false, "KNOWN_VALUES: no number in '\(field)'") }
        expected[String(parts[0])] = values
    }
    guard !expected.isEmpty else { return e.check(false, "KNOWN_VALUES is empty: nothing to compare") }

    let motion = CMMotionManager()
    let altimeter = CMAltimeter()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let lock = NSLock()
    var seen: [String: [Double]] = [:]
    func keep(_ name: String, _ values: [Double]) {
        lock.lock()
        if seen[name] == nil { seen[name] = values }
        lock.unlock()
    }
    // A sensor that is not available fails at once (no 30 s wait for it).
    if expected["acc"] != nil, !motion.isAccelerometerAvailable { expected["acc"] = nil; e.check(false, "accelerometer not available") }
    if expected["gyro"] != nil, !motion.isGyroAvailable { expected["gyro"] = nil; e.check(false, "gyroscope not available") }
    if expected["mag"] != nil, !motion.isMagnetometerAvailable { expected["mag"] = nil; e.check(false, "magnetometer not available") }
    if expected["kpa"] != nil, !CMAltimeter.isRelativeAltitudeAvailable() { expected["kpa"] = nil; e.check(false, "relative altitude not available") }
    if expected["acc"] != nil {
        motion.accelerometerUpdateInterval = 0.05
        motion.startAccelerometerUpdates(to: queue) { data, _ in
            if let a = data?.acceleration { keep("acc", [a.x, a.y, a.z]) }
        }
    }
    if expected["gyro"] != nil {
        motion.gyroUpdateInterval = 0.05
        motion.startGyroUpdates(to: queue) { data, _ in
            if let r = data?.rotationRate { keep("gyro", [r.x, r.y, r.z]) }
        }
    }
    if expected["mag"] != nil {
        motion.magnetometerUpdateInterval = 0.1
        motion.startMagnetometerUpdates(to: queue) { data, _ in
            if let m = data?.magneticField { keep("mag", [m.x, m.y, m.z]) }
        }
    }
    if expected["kpa"] != nil {
        altimeter.startRelativeAltitudeUpdates(to: queue) { data, _ in
            if let p = data?.pressure { keep("kpa", [p.doubleValue]) }
        }
    }
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        lock.lock()
        let done = expected.keys.allSatisfy { seen[$0] != nil }
        lock.unlock()
        if done { break }
        Thread.sleep(forTimeInterval: 0.05)
    }
    motion.stopAccelerometerUpdates()
    motion.stopGyroUpdates()
    motion.stopMagnetometerUpdates()
    altimeter.stopRelativeAltitudeUpdates()
    queue.waitUntilAllOperationsAreFinished()
    lock.lock()
    let got = seen
    lock.unlock()
    for name in expected.keys.sorted() {
        let want = expected[name]!
        guard let have = got[name] else {
            e.check(false, "\(name): no update in 30 s")
            continue
        }
        let text = have.map { String(format: "%.6f", $0) }.joined(separator: " ")
        e.check(have.count == want.count && zip(have, want).allSatisfy { abs($0 - $1) <= 1e-6 },
                "\(name) (\(text)), expected (\(want.map { String(format: "%.6f", $0) }.joined(separator: " ")))")
        e.note("\(name) \(text)")
    }
}
