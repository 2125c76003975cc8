import Foundation
import MotionEngine
import MotionSamples
import Testing

/// A vibration motor moves its own magnet beside the magnetometer: while the device vibrates, its
/// magnetometer samples stay out of the calibration (`magnetometerCalibrationVibrationThreshold`).
@Suite("Fusion: magnetometer calibration under vibration")
struct MagnetometerCalibrationVibrationTests {
    /// 60 s of a device turning about every axis at 100 Hz, its magnetometer reading the Earth's field
    /// plus a fixed hard-iron offset, its accelerometer gravity plus `vibration` g alternating in sign
    /// from one sample to the next (a 50 Hz buzz).
    func calibrate(vibration: Double, settings: FusionFilter.Settings = FusionFilter.Settings()) -> MagnetometerCalibration {
        var filter = FusionFilter(settings: settings)
        let dt = 0.01
        let offset = Vector3(20, -10, 5)
        let earthField = Vector3(0, 20, -40)  // µT, east-north-up
        var attitude = Quaternion.identity  // device → world
        for k in 0..<6000 {
            let t = Double(k) * dt
            let rate = Vector3(0.8 * sin(0.3 * t), 0.8 * cos(0.2 * t), 0.5)
            attitude = (attitude * Quaternion(rotationVector: rate * dt)).normalized
            let buzz = Vector3(0, 0, k % 2 == 0 ? vibration : -vibration)
            // Apple's convention: the accelerometer reads −1 g along up at rest.
            let acceleration = attitude.inverseRotate(Vector3(0, 0, -1)) + buzz
            filter.updateGyroscope(rate, interval: dt)
            filter.updateAccelerometer(acceleration, interval: dt)
            filter.updateMagnetometer(attitude.inverseRotate(earthField) + offset, interval: dt)
        }
        return filter.magnetometerCalibration
    }

    @Test("a steady device turning about every axis finds the hard-iron offset")
    func steadyDeviceCalibrates() {
        let calibration = calibrate(vibration: 0)
        #expect(calibration.accuracy != .uncalibrated)
        #expect((calibration.hardIron - Vector3(20, -10, 5)).norm < 1, "offset \(calibration.hardIron)")
    }

    @Test("a vibrating device keeps its magnetometer samples out of the calibration")
    func vibratingDeviceDoesNotCalibrate() {
        let calibration = calibrate(vibration: 0.25)  // RMS of successive differences 0.5 g > 0.3 g
        #expect(calibration.accuracy == .uncalibrated)
        #expect(calibration.hardIron == .zero)
    }

    @Test("with the rule off (0), the same vibrating device calibrates")
    func ruleOffCalibrates() {
        var settings = FusionFilter.Settings()
        settings.magnetometerCalibrationVibrationThreshold = 0
        let calibration = calibrate(vibration: 0.25, settings: settings)
        #expect(calibration.accuracy != .uncalibrated)
    }
}
