import Foundation
import MotionSamples
import Testing
import TestSupport
import ZIPFoundation
@testable import MotionSimulator

/// The gait, vehicle and bicycle scenes against real phone recordings: the simulated signal's
/// strength (standard deviation of the acceleration magnitude) and rhythm (spectral peak) fall
/// within the range of the real trials of the same activity and carry.
///
/// Data: Oxford Step Counter (CC BY 4.0, Salvi et al. 2018; Android phones, "InHand" and
/// "FrontPocket" trials), MotionSense (MIT; iPhone 6s in a front pocket, 50 Hz device motion),
/// QROWD (MIT; Android, ~25 Hz, activity-labelled streams), iPhone 13 Sensor Logger walk (GPL,
/// read here only, never copied).
@Suite struct RealDataComparisonTests {
    /// Statistics of one recording: std of |a| in g, spectral peak in Hz, r.m.s. rotation rate.
    struct Stats {
        var spread: Double
        var peak: Double
        var gyro: Double?
    }

    /// |a| (g) resampled to `rate` Hz by linear interpolation, skipping `trim` seconds at both ends.
    static func resample(_ times: [Double], _ magnitudes: [Double], rate: Double, trim: Double) -> [Double] {
        guard let first = times.first, let last = times.last, last - first > 2 * trim + 5 else { return [] }
        var out: [Double] = []
        var j = 0
        var t = first + trim
        while t <= last - trim {
            while j + 1 < times.count && times[j + 1] < t { j += 1 }
            let a = times[j], b = times[min(j + 1, times.count - 1)]
            let w = b > a ? (t - a) / (b - a) : 0
            out.append(magnitudes[j] * (1 - w) + magnitudes[min(j + 1, times.count - 1)] * w)
            t += 1 / rate
        }
        return out
    }

    static func stats(_ x: [Double], rate: Double, gyro: Double? = nil) -> Stats {
        Stats(spread: SimTest.standardDeviation(x), peak: SimTest.peakFrequency(x, rate: rate, from: 0.5, to: 4, step: 0.02), gyro: gyro)
    }

    /// The simulated accelerometer magnitude of `scene` in its steady part, at `rate` Hz (by averaging).
    static func simulated(_ name: String, from: Double, to: Double, rate: Double = 50) throws -> Stats {
        let sim = try Simulation(scene: try SceneCatalog.scene(named: name), seed: 2024)
        let acc = SimTest.samples(sim, .accelerometer, in: from...to)
        let gyro = SimTest.samples(sim, .gyroscope, in: from...to)
        let factor = Int((100 / rate).rounded())
        var x: [Double] = []
        var i = 0
        while i + factor <= acc.count {
            x.append(acc[i..<(i + factor)].map { $0.sample.vector!.norm }.reduce(0, +) / Double(factor))
            i += factor
        }
        let rms = (gyro.map { $0.sample.vector!.normSquared }.reduce(0, +) / Double(gyro.count)).squareRoot()
        return stats(x, rate: rate, gyro: rms)
    }

    static func zipEntries(_ url: URL, matching: (String) -> Bool) throws -> [(path: String, text: String)] {
        let archive = try Archive(url: url, accessMode: .read)
        var out: [(String, String)] = []
        for entry in archive where entry.type == .file && matching(entry.path) {
            var data = Data()
            _ = try archive.extract(entry) { data.append($0) }
            out.append((entry.path, String(decoding: data, as: UTF8.self)))
        }
        return out.sorted { $0.0 < $1.0 }
    }

    /// Oxford trials of one carry position: accelerometer.csv is `timestamp_ns, accuracy, ax, ay, az` (m/s²).
    static func oxford(_ position: String) throws -> [Stats] {
        let entries = try zipEntries(TestData.url("oxford-step-counter/optimisation_data.zip")) {
            $0.hasSuffix("accelerometer.csv") && $0.contains("_\(position)_")
        }
        return entries.compactMap { entry in
            var t: [Double] = [], m: [Double] = []
            for line in entry.text.split(whereSeparator: \.isNewline) {
                let f = line.split(separator: ",")
                guard f.count >= 5, let ns = Double(f[0]), let x = Double(f[2]), let y = Double(f[3]), let z = Double(f[4]) else { continue }
                t.append(ns * 1e-9)
                m.append((x * x + y * y + z * z).squareRoot() / standardGravity)
            }
            let x = resample(t, m, rate: 50, trim: 5)
            return x.isEmpty ? nil : stats(x, rate: 50)
        }
    }

    /// MotionSense trials of one activity folder prefix (`wlk`, `jog`): gravity + userAcceleration (g), 50 Hz.
    static func motionSense(_ activity: String) throws -> [Stats] {
        let entries = try zipEntries(TestData.url("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip")) {
            $0.contains("/\(activity)_") && $0.hasSuffix(".csv")
        }
        return entries.compactMap { entry in
            let lines = entry.text.split(whereSeparator: \.isNewline)
            guard let header = lines.first?.split(separator: ",", omittingEmptySubsequences: false).map(String.init) else { return nil }
            func column(_ name: String) -> Int? { header.firstIndex(of: name) }
            guard let gx = column("gravity.x"), let ux = column("userAcceleration.x"), let rx = column("rotationRate.x") else { return nil }
            var m: [Double] = []
            var gyroSum = 0.0
            for line in lines.dropFirst() {
                let f = line.split(separator: ",", omittingEmptySubsequences: false).map { Double($0) ?? .nan }
                guard f.count == header.count else { continue }
                let a = Vector3(f[gx] + f[ux], f[gx + 1] + f[ux + 1], f[gx + 2] + f[ux + 2])
                m.append(a.norm)
                gyroSum += Vector3(f[rx], f[rx + 1], f[rx + 2]).normSquared
            }
            guard m.count > 1000 else { return nil }
            return stats(Array(m.dropFirst(100).dropLast(100)), rate: 50, gyro: (gyroSum / Double(m.count)).squareRoot())
        }
    }

    /// QROWD: `"x","y","z","class"` in m/s², ~25 Hz; the standard deviation of |a| in 10 s windows.
    static func qrowdWindows(_ activity: String) throws -> [Double] {
        var out: [Double] = []
        for user in ["user1", "user2"] {
            let text = try String(contentsOf: TestData.url("qrowd/\(activity)/\(user).txt"), encoding: .utf8)
            let m: [Double] = text.split(whereSeparator: \.isNewline).dropFirst().compactMap { line in
                let f = line.split(separator: ",").prefix(3).compactMap { Double($0) }
                return f.count == 3 ? (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).squareRoot() / standardGravity : nil
            }
            var i = 0
            while i + 250 <= m.count {
                out.append(SimTest.standardDeviation(Array(m[i..<(i + 250)])))
                i += 250
            }
        }
        return out.sorted()
    }

    /// The range of `values`; an empty range (containing nothing) when there are none.
    static func range(_ values: [Double]) -> ClosedRange<Double> {
        guard let lo = values.min(), let hi = values.max() else { return .infinity ... .infinity }
        return lo...hi
    }

    @Test(.enabled(if: TestData.has("oxford-step-counter"), Comment(rawValue: TestData.skipNotice("oxford-step-counter"))))
    func walkingInHandLooksLikeRealInHandWalks() throws {
        let real = try RealDataComparisonTests.oxford("InHand")
        // 16 Oxford InHand trials (Nexus, Pixel, Samsung; 3 walkers): std|a| 0.110–0.379 g, spectral
        // peak 1.38–2.06 Hz.
        #expect(real.count >= 10)
        let sim = try RealDataComparisonTests.simulated("walking-in-hand", from: 10, to: 55)
        // Measured: std|a| 0.218 g, peak 1.90 Hz.
        #expect(RealDataComparisonTests.range(real.map(\.spread)).contains(sim.spread))
        #expect(RealDataComparisonTests.range(real.map(\.peak)).contains(sim.peak))
    }

    @Test(.enabled(if: TestData.has("motionsense") && TestData.has("oxford-step-counter"),
                   Comment(rawValue: TestData.skipNotice("motionsense"))))
    func pocketWalkLooksLikeRealPocketWalks() throws {
        let iphone = try RealDataComparisonTests.motionSense("wlk")
        let android = try RealDataComparisonTests.oxford("FrontPocket")
        #expect(iphone.count >= 8 && android.count >= 4)
        // MotionSense walking (iPhone 6s, front pocket, 4 subjects × 3 trials): std|a| 0.522–0.657 g,
        // r.m.s. rotation rate 1.46–2.85 rad/s; Oxford FrontPocket (6 trials): std|a| 0.274–0.603 g;
        // spectral peaks 1.58–2.20 Hz.
        let sim = try RealDataComparisonTests.simulated("pocket-walk", from: 10, to: 55)
        // Measured: std|a| 0.532 g, rotation rate 1.77 rad/s, peak 1.90 Hz.
        #expect(RealDataComparisonTests.range(iphone.map(\.spread)).contains(sim.spread))
        #expect(RealDataComparisonTests.range(android.map(\.spread)).contains(sim.spread))
        #expect(RealDataComparisonTests.range(iphone.compactMap(\.gyro)).contains(sim.gyro!))
        #expect(RealDataComparisonTests.range(iphone.map(\.peak) + android.map(\.peak)).contains(sim.peak))
    }

    @Test(.enabled(if: TestData.has("motionsense"), Comment(rawValue: TestData.skipNotice("motionsense"))))
    func runningLooksLikeRealJogging() throws {
        let real = try RealDataComparisonTests.motionSense("jog")
        #expect(real.count >= 6)
        // MotionSense jogging (front pocket, 7 trials): std|a| 0.882–1.091 g, peak 2.70–2.90 Hz,
        // rotation rate 2.27–4.66 rad/s.
        let sim = try RealDataComparisonTests.simulated("running", from: 10, to: 55)
        // Measured: std|a| 0.900 g, peak 2.80 Hz, rotation rate 4.01 rad/s.
        #expect(RealDataComparisonTests.range(real.map(\.spread)).contains(sim.spread))
        #expect(RealDataComparisonTests.range(real.map(\.peak)).contains(sim.peak))
        #expect(RealDataComparisonTests.range(real.compactMap(\.gyro)).contains(sim.gyro!))
    }

    @Test(.enabled(if: TestData.has("qrowd"), Comment(rawValue: TestData.skipNotice("qrowd"))))
    func carAndBicycleLookLikeRealOnes() throws {
        // 10 s windows at 25 Hz, both QROWD users pooled. Vehicle: median std|a| 0.0275 g, 10th–90th
        // percentile 0.0061–0.0438 g; cycling: median 0.172 g, 0.134–0.239 g.
        func percentile(_ v: [Double], _ p: Double) -> Double { v[Int(Double(v.count - 1) * p)] }
        for (scene, activity, span) in [("car", "vehicle", 10.0...150.0), ("cycling", "cycling", 10.0...90.0)] {
            let real = try RealDataComparisonTests.qrowdWindows(activity)
            let sim = try Simulation(scene: try SceneCatalog.scene(named: scene), seed: 2024)
            let acc = SimTest.samples(sim, .accelerometer, in: span).map { $0.sample.vector!.norm }
            // 25 Hz by averaging blocks of 4, then 10 s windows.
            let x = stride(from: 0, to: acc.count - 3, by: 4).map { acc[$0..<($0 + 4)].reduce(0, +) / 4 }
            let windows = stride(from: 0, to: x.count - 249, by: 250).map { SimTest.standardDeviation(Array(x[$0..<($0 + 250)])) }
            let median = windows.sorted()[windows.count / 2]
            // Measured medians: car 0.0292 g, cycling 0.178 g.
            #expect(median >= percentile(real, 0.1) && median <= percentile(real, 0.9), "\(scene): \(median)")
        }
    }

    @Test(.enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func defaultRatesAreThoseOfAnIPhone() throws {
        // The iPhone 13 recording: median interval of the raw accelerometer 9.93 ms (100 Hz) and of
        // the barometer 1.06 s (about 1 Hz), the rates the simulator's phone uses by default.
        func medianInterval(_ file: String) throws -> Double {
            let text = try String(contentsOf: TestData.url("iphone13-walk-sensorlogger/\(file)"), encoding: .utf8)
            let lines = text.split(whereSeparator: \.isNewline)
            let column = lines[0].split(separator: ",").firstIndex(of: "seconds_elapsed")!
            let t = lines.dropFirst().compactMap { Double($0.split(separator: ",")[column]) }
            let d = zip(t.dropFirst(), t).map { $0 - $1 }.sorted()
            return d[d.count / 2]
        }
        let accelerometer = try medianInterval("AccelerometerUncalibrated.csv")
        let barometer = try medianInterval("Barometer.csv")
        #expect(abs(1 / accelerometer - SensorSuite.phone.accelerometer!.rate) / 100 < 0.02)
        #expect(abs(1 / barometer - SensorSuite.phone.barometer!.rate) < 0.1)
    }
}
