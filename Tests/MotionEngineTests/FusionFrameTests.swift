import Foundation
import MotionEngine
import MotionSamples
import Testing

/// Reference frames and heading from one filter run.
@Suite("Fusion: reference frames")
struct FusionFrameTests {
    static func estimate(q6: Quaternion, q9: Quaternion) -> DeviceMotionEstimate {
        DeviceMotionEstimate(
            time: 0, accelerometerTime: 0, acceleration: gravity(of: q6), attitude6D: q6, attitude9D: q9,
            rotationRate: .zero, gravity: gravity(of: q6), userAcceleration: .zero, magneticField: .zero,
            magneticFieldAccuracy: .high, gyroBias: .zero, isAtRest: true, isMagneticallyDisturbed: false,
            needsCalibrationMovement: false, hasMagnetometer: true
        )
    }

    @Test("raw values and names match CMAttitudeReferenceFrame")
    func rawValues() {
        #expect(AttitudeReferenceFrame.xArbitraryZVertical.rawValue == 1)
        #expect(AttitudeReferenceFrame.xArbitraryCorrectedZVertical.rawValue == 2)
        #expect(AttitudeReferenceFrame.xMagneticNorthZVertical.rawValue == 4)
        #expect(AttitudeReferenceFrame.xTrueNorthZVertical.rawValue == 8)
        #expect(AttitudeReferenceFrame(name: "CMAttitudeReferenceFrameXTrueNorthZVertical") == .xTrueNorthZVertical)
        #expect(AttitudeReferenceFrame(name: "xMagneticNorthZVertical") == .xMagneticNorthZVertical)
        #expect(AttitudeReferenceFrame(name: "north") == nil)
        #expect(MagnetometerCalibrationAccuracy.uncalibrated.rawValue == -1 && MagnetometerCalibrationAccuracy.high.rawValue == 2)
    }

    @Test("arbitrary frames read yaw zero at start and keep pitch and roll; heading is negative")
    func arbitraryFrames() {
        let q6 = Quaternion(appleRoll: 0.3, pitch: -0.4, yaw: 1.7)
        let q9 = Quaternion.aboutZ(0.6) * q6
        for kind in [AttitudeReferenceFrame.xArbitraryZVertical, .xArbitraryCorrectedZVertical] {
            var frame = AttitudeFrame(kind)
            let first = frame.attitude(for: Self.estimate(q6: q6, q9: q9))
            let e = first.appleEulerAngles
            #expect(abs(e.yaw) < 1e-9)
            #expect(abs(e.pitch + 0.4) < 1e-9 && abs(e.roll - 0.3) < 1e-9)
            #expect(frame.heading(of: first) < 0)
            // Later the device turns 0.5 rad about the vertical: yaw reads 0.5.
            let turned = Quaternion.aboutZ(0.5)
            let later = frame.attitude(for: Self.estimate(q6: turned * q6, q9: turned * q9))
            #expect(abs(later.appleEulerAngles.yaw - 0.5) < 1e-9)
        }
        // The corrected frame follows the 9D attitude: a heading correction of the 9D solution shows.
        var corrected = AttitudeFrame(.xArbitraryCorrectedZVertical)
        _ = corrected.attitude(for: Self.estimate(q6: q6, q9: q9))
        let drift = corrected.attitude(for: Self.estimate(q6: q6, q9: Quaternion.aboutZ(0.1) * q9))
        #expect(abs(drift.appleEulerAngles.yaw - 0.1) < 1e-9)
    }

    @Test("north frames: heading in [0, 360); true north turns by the declination")
    func northFrames() {
        // Device face up, top to the north-east in the magnetic frame.
        let q9 = Quaternion.aboutZ(-Double.pi / 2 - Double.pi / 4)
        let e = Self.estimate(q6: q9, q9: q9)
        var magnetic = AttitudeFrame(.xMagneticNorthZVertical)
        let m = magnetic.attitude(for: e)
        #expect(abs(magnetic.heading(of: m) - 45) < 1e-9)
        // Magnetic north 10° east of true north: the top points 55° east of true north.
        var trueNorth = AttitudeFrame(.xTrueNorthZVertical, declination: 10 * Double.pi / 180)
        let t = trueNorth.attitude(for: e)
        #expect(abs(trueNorth.heading(of: t) - 55) < 1e-9)
        // Gravity is the same in every frame.
        #expect((gravity(of: t) - gravity(of: m)).norm < 1e-12)
    }

    @Test("one filter run serves clients that started at different times")
    func perClientStart() {
        let motion = SyntheticMotion.tumbling(duration: 20)
        let (_, estimates) = runEstimator(motion.samples)
        var early = AttitudeFrame(.xArbitraryZVertical)
        var late = AttitudeFrame(.xArbitraryZVertical)
        var earlyAtLateStart = Quaternion.identity
        for (i, e) in estimates.enumerated() {
            let a = early.attitude(for: e)
            if i >= 1000 {
                let b = late.attitude(for: e)
                if i == 1000 { earlyAtLateStart = a; #expect(abs(b.appleEulerAngles.yaw) < 1e-9) }
                // The two differ by one constant rotation about the vertical.
                let difference = a * b.conjugate
                let expected = earlyAtLateStart * late.attitude(for: estimates[1000]).conjugate
                #expect(difference.angle(to: expected) < 1e-9)
            }
        }
    }
}
