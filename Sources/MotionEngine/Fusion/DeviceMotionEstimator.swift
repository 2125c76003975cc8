import Foundation
import MotionSamples

/// Turns a time-ordered stream of raw `SensorSample`s into device-motion estimates, one per
/// accelerometer sample: the engine entry point for the service.
///
/// Pairing and timing reproduce what Apple's device motion shows on an iPhone 13 (measured on
/// `iphone13-walk-sensorlogger`, see `docs/fusion.md`):
/// - an accelerometer sample at `tₐ` is completed by the first gyroscope sample at or after it,
///   at `t₁`; the estimate is stamped `(tₐ + t₁)/2` (2.5 ms after the accelerometer sample at 100 Hz);
/// - its attitude (and so its gravity) is the attitude at `tₐ − (t₁ − tₐ)/2`, interpolated
///   between the gyroscope samples around it (Apple's attitude agrees with the integrated gyro to
///   0.06° over 1 s at that instant, 0.7° at the stamp itself);
/// - its rotation rate is the bias-corrected gyroscope interpolated at the stamp with a
///   Catmull-Rom cubic, which needs the gyroscope sample after `t₁`: an estimate is released one
///   gyroscope sample later (10 ms at 100 Hz). With synchronous sensors (all at the same instants,
///   like BROAD) every time above is the sample's own.
///
/// Timestamps (per sensor, seconds): a sample at or before the previous one of the same sensor is
/// dropped (counted in ``droppedSamples``); a jump back by more than ``clockResetThreshold`` is a
/// clock reset and, like a forward gap longer than ``FusionFilter/Settings/maximumSampleInterval``,
/// releases what is pending and restarts the filters' short-term state while keeping attitude and
/// bias (``FusionFilter/restartAfterGap()``); the attitude then re-converges within about one
/// accelerometer time constant. Non-finite samples are dropped and counted. No input makes the
/// estimator crash or emit non-finite values. Nothing is allocated per sample.
public struct DeviceMotionEstimator: Sendable {
    /// The fusion core (its settings, state and outputs).
    public private(set) var filter: FusionFilter
    /// A backwards jump larger than this (seconds) is taken as a clock reset rather than a stray sample.
    public var clockResetThreshold = 1.0

    /// Samples dropped for being non-finite, duplicated or out of order.
    public private(set) var droppedSamples = 0
    /// Gaps and clock resets that restarted the short-term filters.
    public private(set) var gaps = 0

    /// The last four gyroscope samples (oldest first), with the attitude after each.
    private var history = GyroHistory()
    /// Accelerometer samples waiting for their gyroscope samples (oldest first).
    private var pending = PendingQueue()
    private var lastGyroTime: Double?
    private var lastAccelerometerTime: Double?
    private var lastMagnetometerTime: Double?
    private var accelerometerPeriod = 0.01
    private var magnetometerPeriod = 0.01

    /// An estimator with a filter of these settings (the shipped ones unless given), before the first
    /// sample.
    public init(settings: FusionFilter.Settings = FusionFilter.Settings()) {
        filter = FusionFilter(settings: settings)
    }

    /// The magnetometer calibration in use; set it to restore one saved from an earlier session.
    public var magnetometerCalibration: MagnetometerCalibration {
        get { filter.magnetometerCalibration }
        set { filter.magnetometerCalibration = newValue }
    }

    /// Starts from a gyroscope bias saved from an earlier session (see ``FusionFilter/restoreGyroBias(_:sigma:)``).
    public mutating func restoreGyroBias(_ bias: Vector3, sigma: Double = 0.05 * Double.pi / 180) {
        filter.restoreGyroBias(bias, sigma: sigma)
    }

    /// Adds one sample (in time order across sensors; ties: gyroscope, magnetometer, accelerometer)
    /// and returns an estimate when one is complete (at most one per call; with accelerometer and
    /// gyroscope at similar rates there is one per accelerometer sample, one gyroscope sample late).
    /// Barometer samples are ignored.
    public mutating func add(_ sample: SensorSample) -> DeviceMotionEstimate? {
        switch sample {
        case .gyroscope(let s):
            addGyroscope(s)
        case .accelerometer(let s):
            addAccelerometer(s)
        case .magnetometer(let s):
            addMagnetometer(s)
        case .barometer:
            break
        }
        return releaseReady(force: pending.isFull)
    }

    /// Releases an accelerometer sample still waiting (call repeatedly at the end of a stream
    /// until it returns `nil`).
    public mutating func flush() -> DeviceMotionEstimate? {
        releaseReady(force: true)
    }

    // MARK: Streams

    private enum Step { case integrate(Double), first, gap, drop }

    // A non-mutating method called from a mutating one works on a copy of the whole estimator,
    // filter included (several kB per call): the helpers below are inlined or take `self` inout.
    @inline(__always)
    private func step(_ time: Double, after last: Double?) -> Step {
        guard time.isFinite else { return .drop }
        guard let last else { return .first }
        let dt = time - last
        if dt > 0 { return dt > filter.settings.maximumSampleInterval ? .gap : .integrate(dt) }
        return -dt > clockResetThreshold ? .gap : .drop
    }

    private mutating func handleGap() {
        gaps += 1
        filter.restartAfterGap()
        // Whatever waits can no longer be paired across the gap: release it with the state as is.
        pending.markAllUnpaired()
        history = GyroHistory()
    }

    private mutating func addGyroscope(_ s: TimedVector) {
        guard s.value.isFinite else { droppedSamples += 1; return }
        switch step(s.time, after: lastGyroTime) {
        case .drop:
            droppedSamples += 1
            return
        case .first:
            filter.noteGyroscope(s.value)
        case .gap:
            handleGap()
            filter.noteGyroscope(s.value)
        case .integrate(let dt):
            filter.updateGyroscope(s.value, interval: dt)
        }
        lastGyroTime = s.time
        history.push(GyroSnapshot(time: s.time, rate: filter.rotationRate, attitude: filter.attitude6D))
    }

    private mutating func addAccelerometer(_ s: TimedVector) {
        guard s.value.isFinite else { droppedSamples += 1; return }
        var interval = accelerometerPeriod
        switch step(s.time, after: lastAccelerometerTime) {
        case .drop:
            droppedSamples += 1
            return
        case .first:
            break
        case .gap:
            handleGap()
        case .integrate(let dt):
            interval = dt
            accelerometerPeriod += 0.05 * (dt - accelerometerPeriod)
        }
        lastAccelerometerTime = s.time
        filter.updateAccelerometer(s.value, interval: interval)
        if let last = history.newest, last.time >= s.time {
            // Synchronous sensors: the gyro sample of this instant came first; refresh its attitude
            // so that it includes this accelerometer correction.
            history.replaceNewestAttitude(filter.attitude6D)
        }
        pending.push(s)
    }

    private mutating func addMagnetometer(_ s: TimedVector) {
        guard s.value.isFinite else { droppedSamples += 1; return }
        var interval = magnetometerPeriod
        switch step(s.time, after: lastMagnetometerTime) {
        case .drop:
            droppedSamples += 1
            return
        case .first:
            break
        case .gap:
            gaps += 1
        case .integrate(let dt):
            interval = dt
            magnetometerPeriod += 0.05 * (dt - magnetometerPeriod)
        }
        lastMagnetometerTime = s.time
        filter.updateMagnetometer(s.value, interval: interval)
    }

    // MARK: Output

    /// Releases the oldest pending accelerometer sample when its gyroscope samples are in (or when
    /// `force`d, with what there is).
    @inline(__always)
    private mutating func releaseReady(force: Bool) -> DeviceMotionEstimate? {
        guard let (a, unpaired) = pending.oldest else { return nil }
        // g1: first gyro sample at or after the accelerometer sample; g2: the one after it.
        var i1 = -1
        for i in 0..<history.count where history[i].time >= a.time {
            i1 = i
            break
        }
        let ready = !unpaired && i1 >= 0 && i1 + 1 < history.count
        guard ready || force else { return nil }
        pending.removeOldest()
        guard !unpaired, i1 >= 0 else {
            return estimate(for: a, stamp: a.time, attitude: latestAttitudeFromHistory(), rate: filter.rotationRate)
        }
        let g1 = history[i1]
        let g0 = i1 > 0 ? history[i1 - 1] : g1
        let gm = i1 > 1 ? history[i1 - 2] : g0
        let g2 = i1 + 1 < history.count ? history[i1 + 1] : g1
        let stamp = (a.time + g1.time) / 2
        // Attitude at tₐ − (t₁ − tₐ)/2, between g0 and g1.
        let attitudeTime = a.time - (g1.time - a.time) / 2
        let attitude: Quaternion
        if g1.time > g0.time {
            let f = min(max((attitudeTime - g0.time) / (g1.time - g0.time), 0), 1)
            attitude = f >= 1 ? g1.attitude : nlerp(g0.attitude, g1.attitude, f)
        } else {
            attitude = g1.attitude
        }
        // Rotation rate at the stamp (Catmull-Rom through gm, g0, g1, g2).
        let rate: Vector3
        if g1.time > g0.time {
            let u = min(max((stamp - g0.time) / (g1.time - g0.time), 0), 1)
            rate = catmullRom(gm.rate, g0.rate, g1.rate, g2.rate, u)
        } else {
            rate = g1.rate
        }
        return estimate(for: a, stamp: stamp, attitude: attitude, rate: rate)
    }

    @inline(__always)
    private mutating func latestAttitudeFromHistory() -> Quaternion {
        history.newest?.attitude ?? filter.attitude6D
    }

    /// (`mutating` only so that `self` is passed by reference instead of copied.)
    @inline(__always)
    private mutating func estimate(for s: TimedVector, stamp: Double, attitude q6: Quaternion, rate: Vector3) -> DeviceMotionEstimate {
        let q9 = product(filter.headingRotation, q6)
        let parts = exactPartition(s.value, gravity: gravity(of: q6))
        return DeviceMotionEstimate(
            time: stamp, accelerometerTime: s.time, acceleration: s.value, attitude6D: q6, attitude9D: q9,
            rotationRate: rate, gravity: parts.gravity, userAcceleration: parts.user,
            magneticField: filter.calibratedMagneticField, magneticFieldAccuracy: filter.magnetometerCalibrationAccuracy,
            gyroBias: filter.gyroBias, isAtRest: filter.isAtRest, isMagneticallyDisturbed: filter.isMagneticallyDisturbed,
            needsCalibrationMovement: filter.needsCalibrationMovement, hasMagnetometer: filter.hasMagnetometer
        )
    }
}

/// Normalised linear interpolation of two close unit quaternions (one gyro step apart), shorter arc.
@inline(__always)
func nlerp(_ a: Quaternion, _ b: Quaternion, _ t: Double) -> Quaternion {
    let d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z
    let s = d < 0 ? -t : t
    let u = 1 - t
    return Quaternion(w: a.w * u + b.w * s, x: a.x * u + b.x * s, y: a.y * u + b.y * s, z: a.z * u + b.z * s).normalizedFast
}

/// Catmull-Rom interpolation between `p1` (u = 0) and `p2` (u = 1).
@inline(__always)
func catmullRom(_ p0: Vector3, _ p1: Vector3, _ p2: Vector3, _ p3: Vector3, _ u: Double) -> Vector3 {
    let u2 = u * u, u3 = u2 * u
    let a = p1 * 2
    let b = (p2 - p0) * u
    let c = (p0 * 2 - p1 * 5 + p2 * 4 - p3) * u2
    let d = (p1 * 3 - p0 - p2 * 3 + p3) * u3
    return (a + b + c + d) * 0.5
}

/// A gyroscope sample as the estimator keeps it: time, bias-corrected rate and the 6D attitude after it.
struct GyroSnapshot: Sendable {
    var time: Double
    var rate: Vector3
    var attitude: Quaternion
}

/// The last four gyroscope snapshots, oldest first; fixed storage, no allocation.
struct GyroHistory: Sendable {
    private var s0: GyroSnapshot?, s1: GyroSnapshot?, s2: GyroSnapshot?, s3: GyroSnapshot?
    private(set) var count = 0

    mutating func push(_ s: GyroSnapshot) {
        s0 = s1; s1 = s2; s2 = s3; s3 = s
        count = min(count + 1, 4)
    }

    /// Snapshot `i` (0 = oldest present).
    subscript(i: Int) -> GyroSnapshot {
        let k = 4 - count + i
        switch k {
        case 0: return s0!
        case 1: return s1!
        case 2: return s2!
        default: return s3!
        }
    }

    var newest: GyroSnapshot? { s3 }

    mutating func replaceNewestAttitude(_ q: Quaternion) {
        s3?.attitude = q
    }
}

/// Accelerometer samples waiting for their gyroscope samples, oldest first; capacity 4, no allocation.
struct PendingQueue: Sendable {
    private var items: (TimedVector, TimedVector, TimedVector, TimedVector) =
        (TimedVector(time: 0, value: .zero), TimedVector(time: 0, value: .zero),
         TimedVector(time: 0, value: .zero), TimedVector(time: 0, value: .zero))
    private var unpairedFlags: (Bool, Bool, Bool, Bool) = (false, false, false, false)
    private(set) var count = 0

    var isFull: Bool { count >= 4 }

    mutating func push(_ v: TimedVector) {
        if count == 4 { removeOldest() }
        switch count {
        case 0: items.0 = v; unpairedFlags.0 = false
        case 1: items.1 = v; unpairedFlags.1 = false
        case 2: items.2 = v; unpairedFlags.2 = false
        default: items.3 = v; unpairedFlags.3 = false
        }
        count += 1
    }

    /// The oldest sample and whether it lost its pairing (a gap came after it).
    var oldest: (TimedVector, Bool)? {
        count > 0 ? (items.0, unpairedFlags.0) : nil
    }

    mutating func removeOldest() {
        guard count > 0 else { return }
        items = (items.1, items.2, items.3, items.3)
        unpairedFlags = (unpairedFlags.1, unpairedFlags.2, unpairedFlags.3, unpairedFlags.3)
        count -= 1
    }

    mutating func markAllUnpaired() {
        unpairedFlags = (true, true, true, true)
    }
}
