import Foundation
import MotionSamples

/// Starting a new run of the fusion from what an earlier run learned about the sensors (iOS keeps
/// calibrating all day, so an app's filter starts warm). The rules say how far a saved state is
/// trusted after `elapsed` seconds; the service applies them to the state it keeps between runs, the
/// evaluation to the state a first pass over a recording ended with.
extension DeviceMotionEstimator {
    /// How a saved bias is trusted `elapsed` seconds later: its sigma grows by 0.05 °/s per hour
    /// (temperature drift of MEMS gyroscopes between sessions; at least 0.05 °/s), and after a day
    /// the bias is not restored at all (`nil`).
    public static func restoredBiasSigma(saved: Double, elapsed: TimeInterval) -> Double? {
        guard elapsed.isFinite, elapsed >= 0, elapsed < 86_400 else { return nil }
        let degree = Double.pi / 180
        return max(saved, 0.05 * degree) + 0.05 * degree * elapsed / 3600
    }

    /// A saved magnetometer calibration as restored `elapsed` seconds later: only a verified one
    /// (`.low` or better); after an hour its accuracy falls to `.low` at most (the phone may have
    /// changed case or surroundings; the filter verifies and refines it), after a week it is not
    /// restored (`nil`).
    public static func restoredMagnetometer(_ saved: MagnetometerCalibration?, elapsed: TimeInterval) -> MagnetometerCalibration? {
        guard var calibration = saved, elapsed.isFinite, elapsed >= 0, elapsed < 7 * 86_400,
              calibration.accuracy >= .low else { return nil }
        if elapsed > 3600 && calibration.accuracy > .low { calibration.accuracy = .low }
        return calibration
    }

    /// Starts from a gyroscope bias (rad/s) with its saved one-sigma uncertainty and a magnetometer
    /// calibration (`nil` without a magnetometer) saved `elapsed` seconds ago, each as far as
    /// ``restoredBiasSigma(saved:elapsed:)`` and ``restoredMagnetometer(_:elapsed:)`` allow.
    public mutating func restore(gyroBias: Vector3, sigma: Double, magnetometer: MagnetometerCalibration?, elapsed: TimeInterval) {
        if let restoredSigma = Self.restoredBiasSigma(saved: sigma, elapsed: elapsed) {
            restoreGyroBias(gyroBias, sigma: restoredSigma)
        }
        if let calibration = Self.restoredMagnetometer(magnetometer, elapsed: elapsed) {
            magnetometerCalibration = calibration
        }
    }

    /// Starts from the bias and magnetometer calibration `earlier` ended with, as a restart right
    /// after it restores them.
    public mutating func restore(from earlier: DeviceMotionEstimator) {
        let learned = earlier.filter
        restore(
            gyroBias: learned.gyroBias, sigma: learned.gyroBiasSigma,
            magnetometer: learned.hasMagnetometer ? learned.magnetometerCalibration : nil, elapsed: 0)
    }
}
