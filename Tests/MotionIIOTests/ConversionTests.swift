import Foundation
import Testing
@testable import MotionIIO

private func close(_ a: Vector3, _ b: Vector3, _ tolerance: Double = 1e-12) -> Bool {
    abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.z - b.z) <= tolerance
}

@Suite("conversion to Apple's axes and units")
struct ConversionTests {
    @Test("accelerometer sign: IIO reads +g on the axis pointing up, Apple reads −1 g")
    func accelerometerSign() {
        let c = IIOVectorConversion(kind: .accelerometer, scale: Vector3(1, 1, 1))
        // Face-up at rest: the chip's z reads +9.80665 m/s² → Apple (0, 0, −9.80665 / 9.80665) = (0, 0, −1).
        #expect(close(c.convert(Vector3(0, 0, 9.80665)), Vector3(0, 0, -1)))
        // Upright in portrait: y up reads +9.80665 → Apple (0, −1, 0), as an iPhone does.
        #expect(close(c.convert(Vector3(0, 9.80665, 0)), Vector3(0, -1, 0)))
    }

    @Test("accelerometer scale (bmi160 ±2 g: 0.000598 m/s² per count)")
    func accelerometerScale() {
        let c = IIOVectorConversion(kind: .accelerometer, scale: Vector3(0.000598, 0.000598, 0.000598))
        // z: 16393 × 0.000598 = 9.803014 m/s²; Apple: −9.803014 / 9.80665 = −0.99962923…
        // x: −100 × 0.000598 = −0.0598 m/s²; Apple: 0.0598 / 9.80665 = 0.006097903…
        let v = c.convert(Vector3(-100, 0, 16393))
        #expect(abs(v.x - 0.0598 / 9.80665) < 1e-15)
        #expect(abs(v.z - (-9.803014 / 9.80665)) < 1e-15)
        #expect(abs(v.z - (-0.999629231) ) < 1e-9)
        #expect(v.y == 0)
    }

    @Test("offset is added before scaling, per axis")
    func offset() {
        // x: (100 + (−20)) × 0.5 = 40 m/s² → −40 / 9.80665 = −4.078864…
        // y: (−10 + 4) × 0.25 = −1.5 m/s² → 1.5 / 9.80665 = 0.152957…
        let c = IIOVectorConversion(kind: .accelerometer, scale: Vector3(0.5, 0.25, 1), offset: Vector3(-20, 4, 0))
        let v = c.convert(Vector3(100, -10, 0))
        #expect(abs(v.x - (-40 / 9.80665)) < 1e-15)
        #expect(abs(v.x - (-4.078864)) < 1e-6)
        #expect(abs(v.y - (1.5 / 9.80665)) < 1e-15)
        #expect(v.z == 0)
    }

    @Test("mount matrix rows give device axes: x' = m11·x + m12·y + m13·z")
    func mountMatrix() {
        // The ABI's typical matrix [0, 1, 0; 1, 0, 0; 0, 0, −1] on chip (1, 2, 3) m/s²:
        // x' = 0·1 + 1·2 + 0·3 = 2, y' = 1·1 = 1, z' = −1·3 = −3 (device frame, m/s²);
        // Apple: −(2, 1, −3) / 9.80665 = (−0.203943…, −0.101971…, 0.305915…).
        let m = Matrix3(0, 1, 0, 1, 0, 0, 0, 0, -1)
        let c = IIOVectorConversion(kind: .accelerometer, scale: Vector3(1, 1, 1), mountMatrix: m)
        let v = c.convert(Vector3(1, 2, 3))
        #expect(close(v, Vector3(-2, -1, 3) / 9.80665))
        #expect(abs(v.x - (-0.2039432)) < 1e-7 && abs(v.y - (-0.1019716)) < 1e-7 && abs(v.z - 0.3059149) < 1e-7)
    }

    @Test("mount matrix is applied after per-axis scale (scale belongs to chip axes)")
    func scaleThenMatrix() {
        // Chip axes scaled differently (lsm303dlhc: x, y 0.000909 G, z 0.001020 G per count), then
        // a 90° rotation about z [0, −1, 0; 1, 0, 0; 0, 0, 1]:
        // chip field = (1000·0.000909, 2000·0.000909, 1000·0.001020) = (0.909, 1.818, 1.020) G
        // device = (−1.818, 0.909, 1.020) G → µT ×100 = (−181.8, 90.9, 102.0).
        let c = IIOVectorConversion(kind: .magnetometer, scale: Vector3(0.000909, 0.000909, 0.001020), mountMatrix: Matrix3(0, -1, 0, 1, 0, 0, 0, 0, 1))
        #expect(close(c.convert(Vector3(1000, 2000, 1000)), Vector3(-181.8, 90.9, 102.0), 1e-9))
    }

    @Test("gyroscope: rad/s and the right-hand rule on both sides, no sign change")
    func gyroscope() {
        // bmi160 ±2000 °/s: 0.001065 rad/s per count. (1000, −2000, 0) → (1.065, −2.13, 0) rad/s.
        let c = IIOVectorConversion(kind: .gyroscope, scale: Vector3(0.001065, 0.001065, 0.001065))
        #expect(close(c.convert(Vector3(1000, -2000, 0)), Vector3(1.065, -2.13, 0)))
        // With a 90° mount about z [0, −1, 0; 1, 0, 0; 0, 0, 1]: x' = −(−2.13) = 2.13, y' = 1.065.
        let rotated = IIOVectorConversion(kind: .gyroscope, scale: Vector3(0.001065, 0.001065, 0.001065), mountMatrix: Matrix3(0, -1, 0, 1, 0, 0, 0, 0, 1))
        #expect(close(rotated.convert(Vector3(1000, -2000, 0)), Vector3(2.13, 1.065, 0)))
    }

    @Test("magnetometer: gauss to µT (1 G = 100 µT)")
    func magnetometer() {
        // lis3mdl ±4 G: 0.000146 G per count. (1000, −500, 2000) → (0.146, −0.073, 0.292) G → (14.6, −7.3, 29.2) µT.
        let c = IIOVectorConversion(kind: .magnetometer, scale: Vector3(0.000146, 0.000146, 0.000146))
        #expect(close(c.convert(Vector3(1000, -500, 2000)), Vector3(14.6, -7.3, 29.2), 1e-12))
    }

    @Test("pressure in kPa and temperature from m°C")
    func scalars() {
        // Raw pressure 25600 counts × 0.00390625 kPa = 100 kPa.
        #expect(IIOScalarConversion(scale: 0.00390625).convert(25600) == 100)
        // mpu6050-style temperature: (raw + offset) × scale m°C → °C: (−1000 + 12420) × 2.941176 / 1000 = 33.5882…
        let t = IIOScalarConversion(scale: 2.941176, offset: 12420, unit: IIOUnits.celsiusPerIIOUnit)
        #expect(abs(t.convert(-1000) - 33.58822992) < 1e-8)
        // bmp280 processed temperature "23450" m°C = 23.45 °C.
        #expect(abs(IIOScalarConversion(scale: 1, unit: 0.001).convert(23450) - 23.45) < 1e-12)
    }

    @Test("rawCounts inverts convert (used by the emulator)")
    func inverse() throws {
        let m = Matrix3(0, 1, 0, 1, 0, 0, 0, 0, -1)
        let c = IIOVectorConversion(kind: .accelerometer, scale: Vector3(0.000598, 0.000598, 0.000598), offset: Vector3(3, -2, 1), mountMatrix: m)
        let apple = Vector3(0.1, -0.7, -0.7)
        let raw = try #require(c.rawCounts(for: apple))
        #expect(close(c.convert(raw), apple, 1e-12))
        #expect(IIOVectorConversion(kind: .gyroscope, scale: Vector3(0, 1, 1)).rawCounts(for: apple) == nil)
    }
}
