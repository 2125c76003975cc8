import Foundation
import MotionSamples
import Testing
@testable import MotionSimulator

/// The sensors read the physics of the scene plus the configured errors, and nothing else.
@Suite struct SensorTests {
    /// Per-axis white-noise standard deviation of a sensor of the phone at its rate.
    private func sigma(_ kind: SensorKind) -> Double {
        let s = SensorSuite.phone[kind]!
        return s.errors.noiseStandardDeviation(rate: s.rate)
    }

    @Test func stillFaceUpReadsMinusOneGOnZ() throws {
        let sim = try Simulation(scene: SimTest.withoutRandomWalk(try SceneCatalog.scene(named: "still-face-up")), seed: 21)
        let samples = SimTest.samples(sim, .accelerometer, in: 0...60)
        let n = Double(samples.count)
        let mean = SimTest.mean(samples.map { $0.sample.vector! })
        let bias = SensorErrorModel.phoneAccelerometer.bias
        let residual = mean - Vector3(0, 0, -1) - bias
        // σ = 60 µg/√Hz·√50 Hz = 0.42 mg; over N = 6001 samples σ/√N = 5.5 µg. Measured residual
        // (−0.9, 0.8, 7.7) µg: within 4σ/√N = 22 µg on every axis.
        for axis in 0..<3 { #expect(abs(residual[axis]) < 4 * sigma(.accelerometer) / n.squareRoot()) }
        // The sample standard deviation is the configured noise (measured 0.4195, 0.4237, 0.4259 mg
        // against 0.4243 mg).
        for axis in 0..<3 {
            let sd = SimTest.standardDeviation(samples.map { $0.sample.vector![axis] })
            #expect(abs(sd / sigma(.accelerometer) - 1) < 0.05)
        }
        // With the random walk on, the mean still equals gravity plus the mean true bias.
        let walking = try Simulation(scene: try SceneCatalog.scene(named: "still-face-up"), seed: 21)
        let detailed = SimTest.samples(walking, .accelerometer, in: 0...60)
        let r2 = SimTest.mean(detailed.map { $0.sample.vector! - $0.bias - $0.ideal })
        for axis in 0..<3 { #expect(abs(r2[axis]) < 4 * sigma(.accelerometer) / n.squareRoot()) }
        #expect(detailed.allSatisfy { ($0.ideal - Vector3(0, 0, -1)).norm < 1e-15 })
    }

    @Test func stillUprightReadsMinusOneGOnY() throws {
        let sim = try Simulation(scene: SimTest.withoutRandomWalk(try SceneCatalog.scene(named: "still-upright")), seed: 22)
        let samples = SimTest.samples(sim, .accelerometer, in: 0...30)
        let mean = SimTest.mean(samples.map { $0.sample.vector! })
        let residual = mean - Vector3(0, -1, 0) - SensorErrorModel.phoneAccelerometer.bias
        let bound = 4 * sigma(.accelerometer) / Double(samples.count).squareRoot()
        // Measured residual (4.4, 4.1, 7.2) µg; bound 4σ/√N = 31 µg.
        for axis in 0..<3 { #expect(abs(residual[axis]) < bound) }
    }

    @Test func gyroscopeAtRestAveragesToItsBias() throws {
        let sim = try Simulation(scene: SimTest.withoutRandomWalk(try SceneCatalog.scene(named: "still-face-up")), seed: 23)
        let samples = SimTest.samples(sim, .gyroscope, in: 0...60)
        let mean = SimTest.mean(samples.map { $0.sample.vector! })
        let bias = SensorErrorModel.phoneGyroscope.bias
        // σ = 4.9·10⁻⁵ rad/s/√Hz·√50 Hz = 3.5·10⁻⁴ rad/s; σ/√N = 4.5·10⁻⁶ rad/s. Measured mean − bias
        // = (4.0, 0.6, 4.8)·10⁻⁶ rad/s against a bias of 1–2·10⁻³ rad/s; bound 4σ/√N = 1.8·10⁻⁵.
        for axis in 0..<3 { #expect(abs(mean[axis] - bias[axis]) < 4 * sigma(.gyroscope) / Double(samples.count).squareRoot()) }
        #expect(samples.allSatisfy { $0.ideal == .zero })
    }

    @Test func magnetometerMeasuresTheConfiguredFieldAndDip() throws {
        var scene = SimTest.withoutRandomWalk(try SceneCatalog.scene(named: "still-face-up"))
        scene.environment.magneticField = EarthMagneticField(intensityMicrotesla: 48.5, inclinationDegrees: 64.2, declinationDegrees: 2)
        let sim = try Simulation(scene: scene, seed: 24)
        let samples = SimTest.samples(sim, .magnetometer, in: 0...30)
        // Remove the hard iron, then express the mean field in the world frame with the true attitude.
        let mean = SimTest.mean(samples.map { $0.sample.vector! }) - SensorErrorModel.phoneMagnetometer.bias
        let world = sim.state(at: 0).attitude.rotate(mean)
        let intensity = world.norm
        let dip = atan2(-world.z, (world.x * world.x + world.y * world.y).squareRoot()) * 180 / .pi
        // σ = 0.05 µT/√Hz·√50 Hz = 0.35 µT, σ/√N = 0.0065 µT. Measured: 48.4994 µT, 64.1924°
        // (the dip's standard error is σ/(√N·F) = 0.008°).
        #expect(abs(intensity - 48.5) < 0.03)
        #expect(abs(dip - 64.2) < 0.03)
        // The world field points to magnetic north (x) and down.
        #expect(abs(world.y) < 0.03 && world.x > 0 && world.z < 0)
        // The ideal reading is exactly the configured field.
        let ideal = samples[0].ideal
        #expect(abs(ideal.norm - 48.5) < 1e-12)
    }

    @Test func hardAndSoftIronAndScaleErrorsApplyAsDocumented() throws {
        var scene = try SceneCatalog.scene(named: "still-upright").ideal
        let soft = Matrix3(1.05, 0.02, 0, 0.02, 0.97, 0.01, 0, 0.01, 1.01)
        scene.sensors.magnetometer!.errors = SensorErrorModel(bias: Vector3(30, -12, 44), transform: soft)
        scene.sensors.accelerometer!.errors = SensorErrorModel(
            transform: SensorErrorModel.transform(scaleFactorError: Vector3(0.01, -0.02, 0.005)),
            resolution: 1.0 / 4096, range: 0.5
        )
        let sim = try Simulation(scene: scene, seed: 1)
        let mag = SimTest.samples(sim, .magnetometer, in: 0...0.1)[0]
        #expect((mag.sample.vector! - (soft * mag.ideal + Vector3(30, -12, 44))).norm < 1e-12)
        let acc = SimTest.samples(sim, .accelerometer, in: 0...0.1)[0]
        // Upright: y reads −1 g × 0.98 = −0.98 g, clamped at the ±0.5 g range; values on a 1/4096 g grid.
        let v = acc.sample.vector!
        #expect(v.y == -0.5)
        for axis in 0..<3 { #expect((v[axis] * 4096).rounded() == v[axis] * 4096) }
    }

    @Test func earthRotationIsAddedWhenTheLatitudeIsGiven() throws {
        var scene = try SceneCatalog.scene(named: "still-face-up").ideal
        scene.environment.latitudeDegrees = 90
        let sim = try Simulation(scene: scene, seed: 1)
        // At the pole Earth's axis is vertical: a face-up phone sees 7.29·10⁻⁵ rad/s about its z axis.
        let rate = sim.idealReading(.gyroscope, at: 1)
        #expect(abs(rate.z - Environment.earthRotationRate) < 1e-15 && abs(rate.x) < 1e-15)
    }

    @Test func barometerFollowsTheStandardAtmosphere() throws {
        let isa = Atmosphere()
        // U.S. Standard Atmosphere 1976 table (geometric altitude): 101.325 kPa at 0 m, 89.876 kPa at
        // 1000 m, 70.121 kPa at 3000 m. Measured: 89.8765 and 70.1216.
        #expect(abs(isa.pressure(altitude: 0) - 101.325) < 1e-12)
        #expect(abs(isa.pressure(altitude: 1000) - 89.876) < 0.001)
        #expect(abs(isa.pressure(altitude: 3000) - 70.121) < 0.001)
        #expect(abs(isa.altitude(pressure: isa.pressure(altitude: 1234.5)) - 1234.5) < 1e-9)
        // A 3 m floor near sea level: 0.036 kPa.
        #expect(abs((isa.pressure(altitude: 0) - isa.pressure(altitude: 3)) - 0.036) < 0.0005)
        // Another sea-level pressure scales the whole profile.
        let low = Atmosphere(seaLevelPressureKilopascals: 99.0)
        #expect(abs(low.pressure(altitude: 500) / isa.pressure(altitude: 500) - 99.0 / 101.325) < 1e-14)

        var scene = try SceneCatalog.scene(named: "still-face-up")
        scene.start.altitudeMetres = 250
        let sim = try Simulation(scene: scene, seed: 25)
        let samples = SimTest.samples(sim, .barometer, in: 0...60)
        #expect(samples.count == 61)  // 1 Hz
        let expected = isa.pressure(altitude: 250.75)  // the table top is 0.75 m above the floor
        let mean = samples.map { $0.sample.barometerReading!.kilopascals }.reduce(0, +) / Double(samples.count)
        // σ = 1.5 Pa/√Hz·√0.5 Hz = 1.06 Pa per sample; σ/√61 = 0.14 Pa; the random walk adds ~0.1 Pa.
        // Measured: −0.07 Pa.
        #expect(abs(mean - expected) < 0.0008)
        #expect(samples.allSatisfy { $0.sample.barometerReading!.celsius == 25 })
    }
}

extension SensorSample {
    /// The barometer reading of a barometer sample.
    var barometerReading: PressureReading? {
        if case .barometer(let p) = self { return p }
        return nil
    }
}
