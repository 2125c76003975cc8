import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples
import Testing
import TestSupport

/// Apple's attitude conventions: rotation matrix, relative attitude, gravity, Euler angles, heading.
@Suite("Fusion: Apple's conventions")
struct FusionConventionsTests {
    static let attitudes: [Quaternion] = [
        Quaternion(appleRoll: 0.3, pitch: -0.7, yaw: 2.1), Quaternion(appleRoll: -2.5, pitch: 1.2, yaw: -0.4),
        Quaternion(axis: Vector3(1, 2, 3), angle: 0.9), Quaternion(axis: Vector3(-0.2, 0.1, 1), angle: -2.8), .identity,
    ]

    @Test("CMRotationMatrix is the transpose of R(q): columns are the reference axes in device axes")
    func rotationMatrixIsTranspose() {
        for q in Self.attitudes {
            let m = rotationMatrix(of: q)
            let r = q.rotationMatrix
            #expect(abs(m.m12 - r.m21) < 1e-15 && abs(m.m21 - r.m12) < 1e-15 && abs(m.m13 - r.m31) < 1e-15)
            #expect(abs(m.m12 - 2 * (q.x * q.y + q.w * q.z)) < 1e-12)
            // It maps reference vectors into device axes: M·v_ref = q⁻¹ v_ref q.
            let v = Vector3(0.3, -1.2, 0.5)
            #expect(((m * v) - q.inverseRotate(v)).norm < 1e-12)
            // Gravity is minus its third column.
            let g = gravity(of: q)
            #expect((g - Vector3(-m.m13, -m.m23, -m.m33)).norm < 1e-12)
        }
        // Face up, reference frame aligned: gravity reads (0, 0, −1) g.
        #expect((gravity(of: .identity) - Vector3(0, 0, -1)).norm < 1e-15)
    }

    @Test("multiply(byInverseOf:) = reference⁻¹ ⊗ attitude: identity on itself, frame-independent, M·M₀ᵀ")
    func relativeAttitudeConvention() {
        let frameChange = Quaternion(axis: .unitZ, angle: 1.234)
        for q in Self.attitudes {
            for q0 in Self.attitudes {
                let rel = relativeAttitude(q, toReference: q0)
                // Composing back gives the attitude.
                #expect((q0 * rel).angle(to: q) < 1e-9)
                // Independent of the reference frame both are expressed in.
                let moved = relativeAttitude(frameChange * q, toReference: frameChange * q0)
                #expect(moved.angle(to: rel) < 1e-9)
                // In Apple's matrices: the receiver times the inverse of the argument.
                let m = rotationMatrix(of: rel)
                let expected = rotationMatrix(of: q) * rotationMatrix(of: q0).transposed
                #expect((m - expected).row1.norm + (m - expected).row2.norm + (m - expected).row3.norm < 1e-12)
            }
            #expect(relativeAttitude(q, toReference: q).angle < 1e-9)
        }
        // Tilting the device about its own x axis from any start is a pure pitch change.
        let start = Quaternion(appleRoll: 0.2, pitch: 0.1, yaw: 2.0)
        let tilted = start * Quaternion(axis: .unitX, angle: 0.3)
        let e = relativeAttitude(tilted, toReference: start).appleEulerAngles
        #expect(abs(e.pitch - 0.3) < 1e-12 && abs(e.roll) < 1e-12 && abs(e.yaw) < 1e-12)
    }

    @Test("heading is the compass azimuth of the top of the device")
    func headingConvention() {
        // Face up: top to the north = device x to the east = yaw −90°.
        let topNorth = Quaternion.aboutZ(-Double.pi / 2)
        #expect(abs(headingDegrees(of: topNorth)) < 1e-9 || abs(headingDegrees(of: topNorth) - 360) < 1e-9)
        // Top to the east: x to the south, yaw 180°.
        #expect(abs(headingDegrees(of: Quaternion.aboutZ(Double.pi)) - 90) < 1e-9)
        // Top to the west: x to the north, yaw 0.
        #expect(abs(headingDegrees(of: .identity) - 270) < 1e-9)
        // Equal to (−yaw − 90°) mod 360 and independent of a moderate tilt about the y axis.
        for yaw in stride(from: -3.0, through: 3.0, by: 0.37) {
            let q = Quaternion(appleRoll: 0.4, pitch: 0.2, yaw: yaw)
            var expected = (-yaw * 180 / Double.pi - 90).truncatingRemainder(dividingBy: 360)
            if expected < 0 { expected += 360 }
            let flat = Quaternion(appleRoll: 0, pitch: 0.2, yaw: yaw)
            #expect(abs(headingDegrees(of: flat) - expected) < 1e-6 || abs(abs(headingDegrees(of: flat) - expected) - 360) < 1e-6)
            #expect(abs(headingDegrees(of: q) - headingDegrees(of: flat)) < 1e-6 || abs(abs(headingDegrees(of: q) - headingDegrees(of: flat)) - 360) < 1e-6)
            #expect(headingDegrees(of: q) >= 0 && headingDegrees(of: q) < 360)
        }
    }

    @Test("Apple's recorded attitude and gravity agree with gravity(of:) and the Euler convention",
          .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func recordedConventions() throws {
        let r = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        let attitude = r.reference.attitude, g = r.reference.gravity
        #expect(attitude.count > 9000 && attitude.count == g.count)
        var worst = 0.0
        for (a, b) in zip(attitude, g) {
            worst = max(worst, (gravity(of: a.value) - b.value / b.value.norm).norm)
        }
        // Measured: 3·10⁻⁸ (Apple's gravity is stored in float precision).
        #expect(worst < 1e-6)
        // Gravity + user acceleration is the raw accelerometer sample 2.5 ms earlier, exactly.
        let user = r.reference.userAcceleration
        var identity = 0.0
        var k = 0
        for (i, gv) in g.enumerated() {
            while k + 1 < r.accelerometer.count && r.accelerometer[k + 1].time <= gv.time { k += 1 }
            identity = max(identity, (gv.value + user[i].value - r.accelerometer[k].value).norm)
        }
        // Measured: 1.5·10⁻⁷ g (float storage in the export).
        #expect(identity < 1e-6)
    }
}
