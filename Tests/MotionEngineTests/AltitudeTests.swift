import Foundation
import MotionEngine
import MotionRecordings
import MotionSimulator
import Testing
import TestSupport

@Suite("Altitude")
struct AltitudeTests {
    static let iphone = "iphone13-walk-sensorlogger"

    static func updates(_ recording: Recording, configuration: AltimeterEngine.Configuration = .init()) -> [AltitudeUpdate] {
        var engine = AltimeterEngine(configuration: configuration)
        var out: [AltitudeUpdate] = []
        let acc = recording.accelerometer, baro = recording.barometer
        var i = 0, j = 0
        while i < acc.count || j < baro.count {
            if j < baro.count && (i >= acc.count || baro[j].time <= acc[i].time) {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i])); i += 1
            }
            while let u = engine.nextUpdate() { out.append(u) }
        }
        return out
    }

    /// The flat iPhone 13 walk: relative altitude stays within 0.5 m, starts at 0, comes every second,
    /// and the pressure reported is the file's, in kPa.
    @Test(.enabled(if: TestData.has(iphone), Comment(rawValue: TestData.skipNotice(iphone))))
    func flatWalk() throws {
        let recording = try RecordingReader.read(TestData.url(Self.iphone))
        let updates = Self.updates(recording)
        let first = try #require(updates.first)
        #expect(first.relativeAltitude == 0)
        #expect(updates.count >= 85)  // 88 s of barometer at one update per second
        #expect(updates.map { abs($0.relativeAltitude) }.max()! <= 0.5)  // measured 0.229 m
        for (a, b) in zip(updates, updates.dropFirst()) { #expect(abs(b.time - a.time - 1) < 1e-9) }
        for u in updates {
            let file = recording.barometer.last { $0.time <= u.time }
            #expect(file?.kilopascals == u.pressure)
        }
        // Beside Apple's relative altitude: within 0.1 m throughout (measured 0.043 m).
        let apple = recording.reference.relativeAltitude
        for u in updates {
            if let a = apple.last(where: { $0.time <= u.time }) { #expect(abs(a.value - u.relativeAltitude) <= 0.1) }
        }
        // No reference configured: absolute altitude unavailable.
        #expect(updates.allSatisfy { $0.absolute == nil })
    }

    /// Absolute altitude from a QNH and from a known altitude.
    @Test func absoluteAltitude() {
        let p = BarometricFormula.pressure(altitude: 250, seaLevel: 101.8)
        #expect(abs(BarometricFormula.altitude(pressure: p, seaLevel: 101.8) - 250) < 1e-6)
        var engine = AltimeterEngine(configuration: .init(smoothingTime: 0, reference: .seaLevelPressure(kilopascals: 101.8, uncertainty: 0.05)))
        for i in 0..<5 { engine.add(.barometer(PressureReading(time: Double(i), kilopascals: p))) }
        let u = engine.nextUpdate()
        #expect(abs((u?.absolute?.altitude ?? 0) - 250) < 0.01)
        #expect((u?.absolute?.accuracy ?? 0) > 4 && (u?.absolute?.accuracy ?? 99) < 10)  // 0.05 kPa ≈ 4.3 m, 3 % of 250 m
        var known = AltimeterEngine(configuration: .init(smoothingTime: 0, reference: .knownAltitude(metres: 40, accuracy: 1, time: 0)))
        known.add(.barometer(PressureReading(time: 0, kilopascals: 101.0)))
        known.add(.barometer(PressureReading(time: 1, kilopascals: 101.0 - 0.12)))  // ≈ 10 m up
        _ = known.nextUpdate()
        let up = known.nextUpdate()
        #expect(abs((up?.absolute?.altitude ?? 0) - 50) < 0.3)
    }

    /// Weather drift on a still phone is absorbed; a lift ride is not; updates keep coming when the
    /// pressure does not change; bad samples are counted.
    @Test func driftLiftAndBadInput() throws {
        var engine = AltimeterEngine()
        // 30 min on a desk while the pressure falls 0.3 hPa (2.5 m of apparent climb).
        var t = 0.0
        var last: AltitudeUpdate?
        var count = 0
        while t < 1800 {
            engine.add(.accelerometer(TimedVector(time: t, value: Vector3(0, 0, -1))))
            if Int(t * 10) % 10 == 0 { engine.add(.barometer(PressureReading(time: t, kilopascals: 101.3 - 0.03 * t / 1800))) }
            while let u = engine.nextUpdate() { last = u; count += 1 }
            t += 0.1
        }
        #expect(count >= 1790)
        #expect(abs(last?.relativeAltitude ?? 99) < 0.5)
        engine.add(.barometer(PressureReading(time: .nan, kilopascals: 101)))
        engine.add(.barometer(PressureReading(time: 1900, kilopascals: -1)))
        #expect(engine.rejectedSamples == 2)

        let lift = try Simulation(scene: SceneCatalog.scene(named: "elevator")).recording(duration: 22)
        let rideUp = Self.updates(lift).map(\.relativeAltitude).max() ?? 0
        #expect(rideUp > 11 && rideUp < 13)  // the scene climbs 12 m
    }
}
