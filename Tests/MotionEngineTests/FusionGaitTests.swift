import Foundation
import MotionEngine
import MotionRecordings
import MotionSamples
import Testing
import TestSupport

/// The fusion filter's gait detector (`FusionFilter.isWalking`) on real recordings.
@Suite("Fusion: gait detector")
struct FusionGaitTests {
    /// Fraction of device-motion estimates made while the filter reported walking.
    static func walkingFraction(_ r: Recording, settings: FusionFilter.Settings = .init()) -> Double {
        var estimator = DeviceMotionEstimator(settings: settings)
        var walking = 0, total = 0
        for s in mergedSamples(r) {
            if estimator.add(s) != nil {
                total += 1
                if estimator.filter.isWalking { walking += 1 }
            }
        }
        return Double(walking) / Double(max(1, total))
    }

    @Test("iPhone 13 walk in a pocket: walking detected for most of it",
          .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func iphoneWalk() throws {
        let r = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        let f = Self.walkingFraction(r)
        // Measured: 88.3 % (5 s of stride periodicity in the vertical force, with the heel strikes'
        // impact power at least twice the force's variance or the rotation repeating every stride).
        #expect(f > 0.8, "walking \(f)")
        // With the rotation alone (the impact rule off), walking was found only from 45.8 s: 49.9 %.
        var rotationOnly = FusionFilter.Settings()
        rotationOnly.gaitImpactThreshold = 0
        let g = Self.walkingFraction(r, settings: rotationOnly)
        #expect(g > 0.45 && g < 0.55, "walking \(g) with the rotation rule alone")
    }

    @Test("MotionSense: walking and jogging detected, sitting and standing not",
          .enabled(if: TestData.has("motionsense"), Comment(rawValue: TestData.skipNotice("motionsense"))))
    func motionsense() throws {
        let archive = TestData.url("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip")
        let members = try RecordingReader.members(of: archive).map(\.name)
        func fraction(_ trial: String) throws -> Double {
            let name = try #require(members.first { $0.hasSuffix(trial) || $0.contains(trial + ".") }, "no \(trial) in the archive")
            return Self.walkingFraction(try RecordingReader.read(archive, member: name))
        }
        // Measured: wlk_7/sub_1 81.4 % (73.3 % with the rotation rule alone), jog_9/sub_1 77.1 %,
        // sit_5/sub_1 and std_6/sub_1 0 %.
        let walk = try fraction("wlk_7/sub_1"), jog = try fraction("jog_9/sub_1")
        #expect(walk > 0.75 && jog > 0.7, "walk \(walk), jog \(jog)")
        for still in ["sit_5/sub_1", "std_6/sub_1"] {
            let f = try fraction(still)
            #expect(f == 0, "\(still): walking \(f)")
        }
    }

    @Test("BROAD: rotations, translations, tapping and vibration are not walking",
          .enabled(if: TestData.has("broad"), Comment(rawValue: TestData.skipNotice("broad"))))
    func broad() throws {
        let folder = TestData.url("broad")
        // Measured: 0 % on each of these trials.
        for name in ["01_undisturbed_slow_rotation_A", "04_undisturbed_slow_rotation_with_breaks_A",
                     "08_undisturbed_fast_rotation_with_breaks_A", "15_undisturbed_fast_translation_A",
                     "18_undisturbed_fast_translation_with_breaks_B", "24_disturbed_tapping_A", "26_disturbed_phone_vibration_A"] {
            let f = Self.walkingFraction(try RecordingReader.read(folder.appendingPathComponent(name + ".csv")))
            #expect(f == 0, "\(name): walking \(f)")
        }
        // The one trial taken for walking, briefly: a periodic movement around a stationary magnet
        // (measured 1.2 %).
        let magnet = Self.walkingFraction(try RecordingReader.read(folder.appendingPathComponent("30_disturbed_stationary_magnet_C.csv")))
        #expect(magnet < 0.02, "walking \(magnet)")
    }
}
