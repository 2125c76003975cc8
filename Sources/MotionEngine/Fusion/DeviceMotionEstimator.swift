import Foundation
import MotionSamples

/// Turns a time-ordered stream of raw ``SensorSample``s into device-motion estimates, one per
/// accelerometer sample: the engine entry point for the service.
///
/// Pairing: like Apple's device motion, an accelerometer sample is completed by the first gyroscope
/// sample at or after it; the estimate is stamped midway between the two (on an iPhone 13 at 100 Hz
/// that is 2.5 ms after the accelerometer sample, as Apple's stamps are) and its attitude is
/// brought to that instant with the current rotation rate. Without a gyroscope sample in between,
/// the next accelerometer sample releases the pending one.
///
/// Timestamps (per sensor, seconds): a sample at or before the previous one of the same sensor is
/// dropped (counted in ``droppedSamples``); a jump back by more than ``clockResetThreshold`` is a
/// clock reset and, like a forward gap longer than ``FusionFilter/Settings/maximumSampleInterval``,
/// restarts the filters' short-term state while keeping attitude and bias
/// (``FusionFilter/restartAfterGap()``); the attitude then re-converges within about one
/// accelerometer time constant. Non-finite samples are dropped and counted. No input can crash the
/// estimator or make its outputs non-finite.
public struct DeviceMotionEstimator: Sendable {
    /// The fusion core (its settings, state and outputs).
    public private(set) var filter: FusionFilter
    /// A backwards jump larger than this (seconds) is taken as a clock reset rather than a stray sample.
    public var clockResetThreshold = 1.0

    /// Samples dropped for being non-finite, duplicated or out of order.
    public private(set) var droppedSamples = 0
    /// Gaps and clock resets that restarted the short-term filters.
    public private(set) var gaps = 0

    private var lastGyroTime: Double?
    private var lastAccelerometerTime: Double?
    private var lastMagnetometerTime: Double?
    private var pending: TimedVector?
    private var accelerometerPeriod = 0.01
    private var magnetometerPeriod = 0.01

    public init(settings: FusionFilter.Settings = FusionFilter.Settings()) {
        filter = FusionFilter(settings: settings)
    }

    /// Adds one sample (samples must come in time order across sensors; ties: gyroscope first) and
    /// returns the estimate it completes, if any. Barometer samples are ignored.
    public mutating func add(_ sample: SensorSample) -> DeviceMotionEstimate? {
        switch sample {
        case .gyroscope(let s):
            return addGyroscope(s)
        case .accelerometer(let s):
            return addAccelerometer(s)
        case .magnetometer(let s):
            addMagnetometer(s)
            return nil
        case .barometer:
            return nil
        }
    }

    /// Releases the accelerometer sample still waiting for a gyroscope sample (at the end of a stream).
    public mutating func flush() -> DeviceMotionEstimate? {
        guard let p = pending else { return nil }
        pending = nil
        return estimate(for: p, at: p.time)
    }

    // MARK: Streams

    private enum Step { case integrate(Double), first, gap, drop }

    private func step(_ time: Double, after last: Double?) -> Step {
        guard time.isFinite else { return .drop }
        guard let last else { return .first }
        let dt = time - last
        if dt > 0 { return dt > filter.settings.maximumSampleInterval ? .gap : .integrate(dt) }
        return -dt > clockResetThreshold ? .gap : .drop
    }

    private mutating func addGyroscope(_ s: TimedVector) -> DeviceMotionEstimate? {
        guard s.value.isFinite else { droppedSamples += 1; return nil }
        switch step(s.time, after: lastGyroTime) {
        case .drop:
            droppedSamples += 1
            return nil
        case .first:
            break
        case .gap:
            gaps += 1
            filter.restartAfterGap()
        case .integrate(let dt):
            filter.updateGyroscope(s.value, interval: dt)
        }
        lastGyroTime = s.time
        if let p = pending, s.time >= p.time {
            pending = nil
            return estimate(for: p, at: (p.time + s.time) / 2)
        }
        return nil
    }

    private mutating func addAccelerometer(_ s: TimedVector) -> DeviceMotionEstimate? {
        guard s.value.isFinite else { droppedSamples += 1; return nil }
        var interval = accelerometerPeriod
        switch step(s.time, after: lastAccelerometerTime) {
        case .drop:
            droppedSamples += 1
            return nil
        case .first:
            break
        case .gap:
            gaps += 1
            filter.restartAfterGap()
        case .integrate(let dt):
            interval = dt
            accelerometerPeriod += 0.05 * (dt - accelerometerPeriod)
        }
        lastAccelerometerTime = s.time
        filter.updateAccelerometer(s.value, interval: interval)
        var released: DeviceMotionEstimate?
        if let p = pending {
            pending = nil
            released = estimate(for: p, at: p.time)
        }
        if let g = lastGyroTime, g >= s.time {
            // The gyro is already at or past this sample (synchronous sensors).
            if released == nil { return estimate(for: s, at: s.time) }
        }
        pending = s
        return released
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

    private func estimate(for s: TimedVector, at time: Double) -> DeviceMotionEstimate {
        // Bring the attitude from the gyro's time to the stamp with the current rate.
        var q6 = filter.attitude6D
        let rate = filter.rotationRate
        if let g = lastGyroTime {
            let dt = time - g
            if dt != 0, abs(dt) < filter.settings.maximumSampleInterval {
                q6 = (q6 * GyroStrapdown.increment(rate * dt)).normalizedFast
            }
        }
        let q9 = (Quaternion.aboutZ(filter.headingOffset) * q6).normalizedFast
        let gravity = Vector3(
            -2 * (q6.x * q6.z - q6.w * q6.y), -2 * (q6.y * q6.z + q6.w * q6.x), -(1 - 2 * (q6.x * q6.x + q6.y * q6.y))
        )
        return DeviceMotionEstimate(
            time: time, accelerometerTime: s.time, acceleration: s.value, attitude6D: q6, attitude9D: q9,
            rotationRate: rate, gravity: gravity, userAcceleration: exactDifference(s.value, gravity),
            magneticField: filter.calibratedMagneticField, magneticFieldAccuracy: filter.magnetometerCalibrationAccuracy,
            gyroBias: filter.gyroBias, isAtRest: filter.isAtRest, isMagneticallyDisturbed: filter.isMagneticallyDisturbed,
            needsCalibrationMovement: filter.needsCalibrationMovement, hasMagnetometer: filter.hasMagnetometer
        )
    }
}
