import Foundation
import MotionEngine
import MotionService
import Testing

@Suite("How a saved sensor calibration is trusted later")
struct SensorCalibrationStateTests {
    let degree = Double.pi / 180

    @Test("the bias sigma starts at ≥ 0.05 °/s, grows 0.05 °/s per hour, and a day-old bias is dropped")
    func biasSigma() throws {
        let fresh = try #require(SensorCalibrationState.restoredBiasSigma(saved: 0.01 * degree, elapsed: 0))
        #expect(abs(fresh - 0.05 * degree) < 1e-15)
        let precise = try #require(SensorCalibrationState.restoredBiasSigma(saved: 0.2 * degree, elapsed: 0))
        #expect(abs(precise - 0.2 * degree) < 1e-15)
        let twoHours = try #require(SensorCalibrationState.restoredBiasSigma(saved: 0, elapsed: 7200))
        #expect(abs(twoHours - 0.15 * degree) < 1e-12)
        #expect(SensorCalibrationState.restoredBiasSigma(saved: 0, elapsed: 86_400) == nil)
        #expect(SensorCalibrationState.restoredBiasSigma(saved: 0, elapsed: -1) == nil)  // a clock set back
        #expect(SensorCalibrationState.restoredBiasSigma(saved: 0, elapsed: .nan) == nil)
    }

    @Test("a magnetometer calibration is restored when it was at least low, capped at low after an hour, dropped after a week")
    func magnetometer() {
        let high = MagnetometerCalibration(hardIron: Vector3(12, -7, 20), accuracy: .high)
        #expect(SensorCalibrationState.restoredMagnetometer(high, elapsed: 60) == high)
        #expect(SensorCalibrationState.restoredMagnetometer(high, elapsed: 7200)?.accuracy == .low)
        #expect(SensorCalibrationState.restoredMagnetometer(high, elapsed: 7200)?.hardIron == high.hardIron)
        #expect(SensorCalibrationState.restoredMagnetometer(high, elapsed: 8 * 86_400) == nil)
        let unverified = MagnetometerCalibration(hardIron: Vector3(1, 2, 3), accuracy: .uncalibrated)
        #expect(SensorCalibrationState.restoredMagnetometer(unverified, elapsed: 0) == nil)
        #expect(SensorCalibrationState.restoredMagnetometer(nil, elapsed: 0) == nil)
    }

    @Test("states with non-finite numbers are not valid")
    func validity() {
        var state = SensorCalibrationState(device: "d", savedAt: Date(), gyroBias: .zero, gyroBiasSigma: 0.001, magnetometer: nil)
        #expect(state.isValid)
        state.gyroBias = Vector3(.nan, 0, 0)
        #expect(!state.isValid)
        state.gyroBias = .zero
        state.magnetometer = MagnetometerCalibration(hardIron: Vector3(.infinity, 0, 0))
        #expect(!state.isValid)
    }
}
