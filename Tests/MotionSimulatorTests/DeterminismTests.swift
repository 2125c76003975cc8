import Foundation
import MotionSamples
import Testing
@testable import MotionSimulator

/// Same scene and seed: bit-identical samples; another seed: other samples.
@Suite struct DeterminismTests {
    /// FNV-1a over the bit patterns of the samples.
    private func fingerprint(_ samples: [SensorSample]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ x: UInt64) {
            for i in 0..<8 {
                h ^= (x >> (8 * UInt64(i))) & 0xFF
                h = h &* 0x0000_0100_0000_01B3
            }
        }
        for s in samples {
            mix(UInt64(SensorKind.allCases.firstIndex(of: s.sensor)!))
            mix(s.time.bitPattern)
            switch s {
            case .accelerometer(let v), .gyroscope(let v), .magnetometer(let v):
                mix(v.value.x.bitPattern)
                mix(v.value.y.bitPattern)
                mix(v.value.z.bitPattern)
            case .barometer(let p):
                mix(p.kilopascals.bitPattern)
                mix((p.celsius ?? .nan).bitPattern)
            }
        }
        return h
    }

    private func samples(_ name: String, seed: UInt64, seconds: Double) throws -> [SensorSample] {
        var source = try Simulation(scene: try SceneCatalog.scene(named: name), seed: seed).makeSource()
        var out: [SensorSample] = []
        while let s = source.next(), s.time <= seconds { out.append(s) }
        return out
    }

    @Test func sameSeedGivesBitIdenticalSamples() throws {
        for name in ["walking-in-hand", "car", "stairs"] {
            let a = try samples(name, seed: 7, seconds: 5)
            let b = try samples(name, seed: 7, seconds: 5)
            #expect(fingerprint(a) == fingerprint(b))
            #expect(a.count == b.count)
        }
    }

    @Test func differentSeedsGiveDifferentSamples() throws {
        let a = try samples("walking-in-hand", seed: 7, seconds: 2)
        let b = try samples("walking-in-hand", seed: 8, seconds: 2)
        #expect(a.count == b.count)
        let differing = zip(a, b).filter { $0.vector != $1.vector }.count
        // Every three-axis sample carries noise: all of them differ.
        #expect(differing >= a.count - 3)
    }

    @Test func theOutputIsTheSameOnEveryMachine() throws {
        // The fingerprint of the first 10 s of walking-in-hand with seed 42 (3 014 samples). The
        // simulator uses only IEEE-754 arithmetic and its own elementary functions, so this value is
        // the same on every platform and compiler; a change here changes every simulated recording.
        let value = fingerprint(try samples("walking-in-hand", seed: 42, seconds: 10))
        #expect(value == DeterminismTests.walkingFingerprint, "fingerprint \(String(value, radix: 16))")
    }

    static let walkingFingerprint: UInt64 = 14_780_621_870_151_938_254

    @Test func rewindStartsOverIdentically() throws {
        var source = try Simulation(scene: try SceneCatalog.scene(named: "shaking"), seed: 3).makeSource()
        let first = (0..<500).compactMap { _ in source.next() }
        source.rewind()
        let second = (0..<500).compactMap { _ in source.next() }
        #expect(fingerprint(first) == fingerprint(second))
    }

    @Test func sensorsHaveIndependentNoiseStreams() throws {
        // Changing the magnetometer's rate and noise leaves the accelerometer's samples untouched.
        var scene = try SceneCatalog.scene(named: "walking-in-hand")
        let a = try Simulation(scene: scene, seed: 5)
        scene.sensors.magnetometer = SimulatedSensor(rate: 50, errors: SensorErrorModel(noiseDensity: 1))
        scene.sensors.barometer = nil
        let b = try Simulation(scene: scene, seed: 5)
        let accA = SimTest.samples(a, .accelerometer, in: 0...3).map(\.sample)
        let accB = SimTest.samples(b, .accelerometer, in: 0...3).map(\.sample)
        #expect(fingerprint(accA) == fingerprint(accB))
    }
}
