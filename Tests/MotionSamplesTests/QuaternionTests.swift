import Foundation
import Testing
import MotionSamples

@Suite("Quaternion and rotation conventions")
struct QuaternionTests {
    @Test("rotation by 90° about z takes x to y")
    func rotateAboutZ() {
        let q = Quaternion(axis: .unitZ, angle: .pi / 2)
        let v = q.rotate(.unitX)
        #expect(abs(v.x) < 1e-12 && abs(v.y - 1) < 1e-12 && abs(v.z) < 1e-12)
        let m = q.rotationMatrix * Vector3.unitX
        #expect((m - v).norm < 1e-12)
    }

    @Test("Apple's Euler angles round-trip: R = Rz(yaw)·Rx(pitch)·Ry(roll)")
    func eulerRoundTrip() {
        for (roll, pitch, yaw) in [(0.3, -0.4, 2.0), (-2.5, 1.2, -0.7), (1.0, 0.0, 3.0)] {
            let q = Quaternion(appleRoll: roll, pitch: pitch, yaw: yaw)
            let e = q.appleEulerAngles
            #expect(abs(e.roll - roll) < 1e-12)
            #expect(abs(e.pitch - pitch) < 1e-12)
            #expect(abs(e.yaw - yaw) < 1e-12)
        }
    }

    @Test("matrix → quaternion → matrix is the identity map")
    func matrixRoundTrip() {
        let q = Quaternion(axis: Vector3(1, -2, 0.5), angle: 2.9)
        let back = Quaternion(rotationMatrix: q.rotationMatrix)
        #expect(q.angle(to: back) < 1e-9)
    }

    @Test("rotation vector round trip and exact integration of a constant rate")
    func rotationVector() {
        let v = Vector3(0.2, -0.1, 0.4)
        #expect((Quaternion(rotationVector: v).rotationVector - v).norm < 1e-12)
        var q = Quaternion.identity
        for _ in 0..<1000 { q = q * Quaternion(rotationVector: Vector3(0, 0, 0.001)) }
        #expect(abs(q.angle - 1.0) < 1e-9)
    }
}
