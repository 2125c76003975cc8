import Foundation
import MotionEngine
import MotionSamples
import Testing

/// Bad input never crashes the engine nor makes its output non-finite, and it recovers.
@Suite("Fusion: robustness")
struct FusionRobustnessTests {
    static func allFinite(_ estimates: [DeviceMotionEstimate]) -> Bool {
        estimates.allSatisfy {
            $0.attitude6D.isFinite && $0.attitude9D.isFinite && $0.gravity.isFinite && $0.userAcceleration.isFinite
                && $0.rotationRate.isFinite && $0.gyroBias.isFinite && $0.magneticField.isFinite && $0.time.isFinite
        }
    }

    /// Error (degrees) of the last estimates' gravity against the truth.
    static func finalGravityError(_ motion: SyntheticMotion, _ estimates: [DeviceMotionEstimate], last: Int = 50) -> Double {
        var worst = 0.0
        for e in estimates.suffix(last) {
            guard let i = motion.times.firstIndex(where: { abs($0 - e.accelerometerTime) < 1e-9 }) else { continue }
            worst = max(worst, e.gravity.angle(to: gravity(of: motion.truth[i])) * 180 / Double.pi)
        }
        return worst
    }

    @Test("NaN and infinite samples are dropped and counted")
    func nonFinite() {
        var motion = SyntheticMotion.tumbling(duration: 30)
        var samples = motion.samples
        for i in stride(from: 500, to: samples.count, by: 97) {
            let bad: [Double] = [.nan, .infinity, -.infinity]
            let v = Vector3(bad[i % 3], 0, 1)
            switch samples[i] {
            case .gyroscope(let s): samples[i] = .gyroscope(TimedVector(time: s.time, value: v))
            case .accelerometer(let s): samples[i] = .accelerometer(TimedVector(time: s.time, value: v))
            case .magnetometer(let s): samples[i] = .magnetometer(TimedVector(time: s.time, value: v))
            case .barometer: break
            }
        }
        samples.insert(.gyroscope(TimedVector(time: .nan, value: .zero)), at: 700)
        let (estimator, estimates) = runEstimator(samples)
        #expect(Self.allFinite(estimates))
        #expect(estimator.droppedSamples > 50)
        motion.samples = samples
        // Measured 0.3°: the attitude stays right.
        #expect(Self.finalGravityError(motion, estimates) < 1.5)
    }

    @Test("gyroscope saturation: no blow-up, the attitude comes back within seconds")
    func saturation() {
        var settings = FusionFilter.Settings()
        settings.gyroscopeRange = 2  // rad/s: the synthetic motion (up to ~1.2 rad/s) plus spikes saturates
        var motion = SyntheticMotion.tumbling(duration: 40)
        // 0.5 s of a clipped spin: the gyro reads the range while the device really turned further.
        var samples = motion.samples
        for (i, s) in samples.enumerated() where s.time > 10 && s.time < 10.5 {
            if case .gyroscope(let g) = s { samples[i] = .gyroscope(TimedVector(time: g.time, value: Vector3(2, -2, 2))) }
        }
        motion.samples = samples
        let (_, estimates) = runEstimator(samples, settings: settings)
        #expect(Self.allFinite(estimates))
        // Measured 0.6° at the end (30 s later), though the clipped spin tilted the attitude by tens of degrees.
        #expect(Self.finalGravityError(motion, estimates) < 2)
    }

    @Test("a dead magnetometer (constant or zero) and an absent one")
    func deadAndAbsentMagnetometer() {
        let base = SyntheticMotion.tumbling(duration: 30)
        for dead in [Vector3(12, -3, 40), Vector3.zero] {
            var samples = base.samples
            for (i, s) in samples.enumerated() {
                if case .magnetometer(let m) = s { samples[i] = .magnetometer(TimedVector(time: m.time, value: dead)) }
            }
            let (_, estimates) = runEstimator(samples)
            #expect(Self.allFinite(estimates))
            // The 6D part is untouched by the magnetometer: measured 0.3°.
            #expect(Self.finalGravityError(base, estimates) < 1.5)
        }
        let absent = SyntheticMotion.tumbling(duration: 30, withMagnetometer: false)
        let (_, estimates) = runEstimator(absent.samples)
        #expect(Self.allFinite(estimates))
        #expect(estimates.allSatisfy { $0.magneticFieldAccuracy == .uncalibrated && !$0.hasMagnetometer })
        #expect(estimates.allSatisfy { $0.attitude9D.angle(to: $0.attitude6D) < 1e-12 })
        #expect(Self.finalGravityError(absent, estimates) < 1.5)
    }

    @Test("timestamps that jump: gaps, duplicates, backwards, clock resets")
    func timestampJumps() {
        let motion = SyntheticMotion.tumbling(duration: 40)
        var samples: [SensorSample] = []
        for s in motion.samples {
            let t = s.time
            if t > 8 && t < 9 { continue }  // a 1 s gap in every sensor
            var shifted = s
            if t >= 25 { shifted = s.at(time: t - 1000) }  // a clock reset back by 1000 s
            samples.append(shifted)
            if t > 15 && t < 15.2 { samples.append(shifted) }  // duplicates
            if t > 16 && t < 16.2 { samples.append(shifted.at(time: shifted.time - 0.05)) }  // stray old samples
        }
        let (estimator, estimates) = runEstimator(samples)
        #expect(Self.allFinite(estimates))
        #expect(estimator.gaps >= 2)
        #expect(estimator.droppedSamples > 10)
        // Estimates keep coming after the reset, stamped on the new clock.
        #expect(estimates.contains { $0.time < 0 })
        // Recovered: measured 0.3° at the end.
        var worst = 0.0
        for e in estimates.suffix(50) {
            let t = e.accelerometerTime + 1000
            guard let i = motion.times.firstIndex(where: { abs($0 - t) < 1e-6 }) else { continue }
            worst = max(worst, e.gravity.angle(to: gravity(of: motion.truth[i])) * 180 / Double.pi)
        }
        #expect(worst < 1.5)
    }

    @Test("asynchronous sensors at different rates: one estimate per accelerometer sample")
    func asynchronousRates() {
        var samples: [SensorSample] = []
        var q = Quaternion.identity
        let field = Vector3(20, 0, -43)
        // Gyro 200 Hz, accelerometer 100 Hz offset by 3 ms, magnetometer 50 Hz offset by 7 ms.
        for k in 0..<4000 {
            let t = Double(k) * 0.005
            let w = Vector3(0.3 * sin(t), 0.2, -0.1 * cos(0.5 * t))
            q = (q * Quaternion(rotationVector: w * 0.005)).normalized
            samples.append(.gyroscope(TimedVector(time: t, value: w)))
            if k % 2 == 0 { samples.append(.accelerometer(TimedVector(time: t + 0.003, value: gravity(of: q)))) }
            if k % 4 == 0 { samples.append(.magnetometer(TimedVector(time: t + 0.007, value: q.inverseRotate(field)))) }
        }
        samples.sort { $0.time < $1.time }
        let (_, estimates) = runEstimator(samples)
        #expect(estimates.count == 2000)
        #expect(Self.allFinite(estimates))
        #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $0.time < $1.time })
        // Each stamp lies between its accelerometer sample and the next gyro sample.
        #expect(estimates.allSatisfy { $0.time >= $0.accelerometerTime && $0.time <= $0.accelerometerTime + 0.005 })
    }

    @Test("gravity + user acceleration equals the raw sample bit for bit")
    func exactPartition() {
        let motion = SyntheticMotion.tumbling(duration: 10)
        let (_, estimates) = runEstimator(motion.samples)
        #expect(estimates.allSatisfy {
            $0.gravity.x + $0.userAcceleration.x == $0.acceleration.x
                && $0.gravity.y + $0.userAcceleration.y == $0.acceleration.y
                && $0.gravity.z + $0.userAcceleration.z == $0.acceleration.z
        })
    }
}
