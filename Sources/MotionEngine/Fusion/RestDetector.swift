import Foundation
import MotionSamples

/// Decides whether the device lies still: gyro and accelerometer each stay within a threshold of
/// their own short low-pass for a minimum time.
///
/// At rest the low-passed gyro reading is a direct measurement of the gyro bias, and the
/// accelerometer measures gravity alone.
struct RestDetector: Sendable {
    var gyroFilter = LowPassVector3()
    var accelerometerFilter = LowPassVector3()
    var gyroCoefficients: ButterworthCoefficients?
    var accelerometerCoefficients: ButterworthCoefficients?
    /// Whether the latest gyro / accelerometer sample was within its threshold.
    var gyroQuiet = false
    var accelerometerQuiet = false
    /// Seconds both sensors have been quiet.
    var quietTime = 0.0
    /// True when the device has been still for at least the minimum time.
    var isAtRest = false

    /// Low-passed gyro reading, rad/s (the bias measurement at rest).
    var filteredGyro: Vector3 { gyroFilter.value }

    @inline(__always)
    mutating func updateGyroscope(
        _ rate: Vector3, interval: Double, timeConstant: Double, threshold: Double, minimumTime: Double
    ) {
        if gyroCoefficients.map({ !$0.matches(samplePeriod: interval) }) ?? true {
            gyroCoefficients = ButterworthCoefficients(timeConstant: timeConstant, samplePeriod: interval)
        }
        let lp = gyroFilter.filter(rate, gyroCoefficients!)
        gyroQuiet = gyroFilter.isWarm && (rate - lp).normSquared < threshold * threshold
        if gyroQuiet && accelerometerQuiet {
            quietTime += interval
        } else {
            quietTime = 0
        }
        isAtRest = quietTime >= minimumTime
    }

    @inline(__always)
    mutating func updateAccelerometer(_ acceleration: Vector3, interval: Double, timeConstant: Double, threshold: Double) {
        if accelerometerCoefficients.map({ !$0.matches(samplePeriod: interval) }) ?? true {
            accelerometerCoefficients = ButterworthCoefficients(timeConstant: timeConstant, samplePeriod: interval)
        }
        let lp = accelerometerFilter.filter(acceleration, accelerometerCoefficients!)
        accelerometerQuiet = accelerometerFilter.isWarm && (acceleration - lp).normSquared < threshold * threshold
        if !accelerometerQuiet {
            quietTime = 0
            isAtRest = false
        }
    }

    /// Forgets the history (after a gap).
    mutating func reset() {
        self = RestDetector()
    }
}
