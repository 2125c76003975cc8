import Foundation
import MotionEngine
import MotionSamples
import Testing

/// Online magnetometer calibration and its accuracy levels.
@Suite("Fusion: magnetometer calibration")
struct FusionCalibrationTests {
    @Test("a large hard-iron offset is found while the device turns, and the heading follows")
    func hardIronFromScratch() {
        let offset = Vector3(60, -35, 22)
        let motion = SyntheticMotion.tumbling(duration: 60, hardIron: offset)
        let (estimator, estimates) = runEstimator(motion.samples)
        let h = estimator.magnetometerCalibration.hardIron
        // Measured: within 0.3 µT of the true offset.
        #expect((h - offset).norm < 1.5, "hard iron \(h)")
        #expect(estimates.last!.magneticFieldAccuracy >= .medium)
        #expect(!estimates.last!.needsCalibrationMovement)
        // Heading right at the end: measured 0.6°.
        var worst = 0.0
        for e in estimates.suffix(100) {
            guard let i = motion.times.firstIndex(where: { abs($0 - e.accelerometerTime) < 1e-9 }) else { continue }
            worst = max(worst, e.attitude9D.angle(to: motion.truth[i]) * 180 / Double.pi)
        }
        #expect(worst < 3, "attitude error \(worst)°")
    }

    @Test("uncalibrated before the device turns; needs movement")
    func accuracyAtRest() {
        // Only the still part: no rotation, so no calibration can be confirmed.
        let motion = SyntheticMotion.tumbling(duration: 5, still: 10, hardIron: Vector3(40, 10, 0))
        let (_, estimates) = runEstimator(motion.samples)
        #expect(estimates.last!.magneticFieldAccuracy == .uncalibrated)
        #expect(estimates.last!.needsCalibrationMovement)
    }

    @Test("a calibration saved from an earlier session is used at once")
    func restoredCalibration() {
        let offset = Vector3(25, 5, -12)
        let motion = SyntheticMotion.tumbling(duration: 4, still: 10, hardIron: offset)
        let saved = MagnetometerCalibration(hardIron: offset, accuracy: .high)
        let (_, estimates) = runEstimator(motion.samples, calibration: saved)
        let e = estimates.last!
        #expect(e.magneticFieldAccuracy == .high)
        // The calibrated field is the Earth's (48 µT) from the start.
        #expect(abs(e.magneticField.norm - 48) < 1)
        #expect(e.attitude9D.angle(to: motion.truth.last!) * 180 / Double.pi < 3)
    }
}
