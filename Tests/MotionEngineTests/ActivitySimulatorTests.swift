import Foundation
import MotionEngine
import MotionEvaluation
import MotionSimulator
import Testing

/// Sanity of the classifier on the simulator's scenes (synthetic physics, seed 1, 200 s): a check that the
/// engine and the simulator agree where the simulated signal resembles real data, not a measure of accuracy
/// (the real-data tests are that).
///
/// Not asserted, and reported: `shaking` reads as running (0.86 of the windows), `pick-up` as automotive
/// windows that never start a trip (unclassified).
@Suite("Activity on simulated scenes")
struct ActivitySimulatorTests {
    /// Share of single windows of each class after the first 10 s, and the tracked states.
    static func run(_ name: String, duration: Double = 200, seed: UInt64 = 1) throws -> (shares: [ActivityClass: Double], states: [ActivityState]) {
        let simulation = try Simulation(scene: try SceneCatalog.scene(named: name), seed: seed)
        let (estimates, states) = try classify(simulation.recording(duration: duration))
        let late = estimates.filter { $0.time > 10 }
        var shares: [ActivityClass: Double] = [:]
        for e in late { shares[e.mostLikely, default: 0] += 1 / Double(late.count) }
        return (shares, states)
    }

    @Test("a phone still on a table is stationary throughout", arguments: ["still-face-up", "still-upright"])
    func still(_ scene: String) throws {
        let (shares, states) = try Self.run(scene)
        // Measured: 100 % of windows, one state.
        #expect(shares[.stationary, default: 0] >= 0.95)
        #expect(states.allSatisfy { $0.flags == .stationary })
    }

    @Test("pocket walking, running and cycling are recognised")
    func gaits() throws {
        // Measured: walking 0.96, running 0.92, cycling 0.95 of the windows (the rest mostly at the scenes'
        // turns and loop joins).
        #expect(try Self.run("pocket-walk").shares[.walking, default: 0] >= 0.8)
        #expect(try Self.run("running").shares[.running, default: 0] >= 0.8)
        let cycling = try Self.run("cycling")
        #expect(cycling.shares[.cycling, default: 0] >= 0.9)
        #expect(cycling.states.last?.cycling == true)
    }

    @Test("the simulated car and bicycle are as irregular as QROWD's: rhythm features inside its 10th–90th percentiles")
    func rhythmLikeQROWD() throws {
        // QROWD's labelled windows from the committed table against the scenes' windows (seed 1) while
        // driving or pedalling. Measured medians, simulator (QROWD 10th / 50th / 90th percentile):
        // car: dominant power share 0.22 (0.14 / 0.25 / 0.44), |a| autocorrelation peak 0.30 (0.14 / 0.22 / 0.35),
        // vertical spectral entropy 0.70 (0.69 / 0.79 / 0.86), ln direction spread −6.9 (−9.9 / −7.3 / −6.1);
        // cycling: 0.57 (0.45 / 0.55 / 0.64), 0.58 (0.42 / 0.57 / 0.66), 0.58 (0.49 / 0.55 / 0.62),
        // −3.3 (−4.2 / −3.9 / −2.9). Before the road and driver models of the simulator: car 0.78, 0.71,
        // 0.36, −7.4; cycling 0.94, 0.82, 0.28, −2.9 (one pure tone).
        let table = try ActivityFeatureTable.read(ActivityModelTests.tablePath)
        for (scene, label, span) in [("car", ActivityClass.automotive, 10.0...140.0), ("cycling", .cycling, 10.0...85.0)] {
            let real = table.rows.filter { $0.dataset == "qrowd" && $0.isOriginal && $0.label == label }
            let simulation = try Simulation(scene: try SceneCatalog.scene(named: scene), seed: 1)
            let windows = ActivityFeatureTable.windows(of: simulation.recording(duration: 200).accelerometer)
                .filter { span.contains($0.start) }
            try #require(real.count > 100 && windows.count > 20)
            for feature in [ActivityFeature.dominantPowerShare, .autocorrelationPeak, .verticalSpectralEntropy, .logDirectionSpread] {
                let r = real.map { $0.features[feature.rawValue] }.sorted()
                let simulated = windows.map { $0.features[feature.rawValue] }.sorted()
                let median = simulated[simulated.count / 2]
                let low = r[Int(Double(r.count - 1) * 0.1)], high = r[Int(Double(r.count - 1) * 0.9)]
                #expect(median >= low && median <= high, "\(scene) \(feature): \(median) outside \(low)...\(high)")
            }
        }
    }

    @Test("walking with the phone in the hand, on the flat and on stairs, is walking", arguments: ["walking-in-hand", "stairs"])
    func inHand(_ scene: String) throws {
        let (shares, states) = try Self.run(scene)
        // Measured: walking 0.96 (in hand) and 0.96 (stairs) of the windows; one walking state throughout.
        // (The model trained without the Oxford walks read both as cycling, 0.93 and 0.86.)
        #expect(shares[.walking, default: 0] >= 0.9, "\(shares)")
        #expect(states.allSatisfy { $0.walking }, "\(states.map(\.flags))")
    }

    @Test("the car scene: a trip starts as the car pulls away, a stop at the end reads stationary + automotive",
          arguments: [1, 2, 6, 9] as [UInt64])
    func car(seed: UInt64) throws {
        let (shares, states) = try Self.run("car", seed: seed)
        // Measured: 92–93 % automotive windows; stationary + automotive at the 140–152 s stop. The car pulls
        // away at 5 s; the trip is dated from 12.8 s with every seed 0–9. The bends at 50 km/h (0.28 g
        // sideways for 8 s) read partly as cycling (automotive 0.58–0.76): before the tracker paused its
        // count through such stretches, they restarted it and the trip was dated from 34.5 s (seeds 1, 3)
        // or 57.6–58.8 s (seeds 2, 6, 7, 9). These seeds are the ones that were late.
        #expect(shares[.automotive, default: 0] >= 0.85)
        let trip = try #require(states.first { $0.automotive })
        #expect(trip.startTime < 20)
        #expect(states.contains { $0.flags == [.stationary, .automotive] })
        #expect(!states.contains { $0.walking || $0.running || $0.cycling })
    }
}
