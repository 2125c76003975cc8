import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import Testing
import TestSupport

/// Cross-subject evaluations on the committed training table (derived from QROWD, MotionSense and the
/// Oxford walks; runs without the shared data), and checks on the raw data sets when they are present.
@Suite("Activity on real data")
struct ActivityDataSetTests {
    static func table() throws -> ActivityFeatureTable { try ActivityFeatureTable.read(ActivityModelTests.tablePath) }

    @Test("QROWD: trained on one user, tested on the other, five classes")
    func qrowdCrossUser() throws {
        let table = try Self.table()
        let oneToTwo = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "1", testUser: "2", withMotionSense: false), table: table)
        let twoToOne = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "2", testUser: "1", withMotionSense: false), table: table)
        // Window by window. Measured: 1 → 2 0.922, 2 → 1 0.954.
        #expect(oneToTwo.macroF1 >= 0.9, "\(oneToTwo.confusion.markdown())")
        #expect(twoToOne.macroF1 >= 0.9, "\(twoToOne.confusion.markdown())")
        // Walking, running and cycling are the easy classes. Measured F1 0.903 (running, 1 → 2) to 1.000.
        for r in [oneToTwo, twoToOne] {
            for c in [ActivityClass.walking, .running, .cycling] { #expect(r.confusion.f1(c) >= 0.9, "\(c)") }
        }
        // The tracked states over each recording. Measured: 1 → 2 0.975, 2 → 1 0.992.
        #expect(oneToTwo.trackedMacroF1 >= 0.95)
        #expect(twoToOne.trackedMacroF1 >= 0.95)
    }

    @Test("QROWD cross-user with the shipped model's other data (MotionSense, the Oxford walks) added to the training side")
    func qrowdCrossUserWithMotionSenseAndOxford() throws {
        let table = try Self.table()
        let oneToTwo = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "1", testUser: "2", withMotionSense: true, withOxford: true), table: table)
        let twoToOne = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "2", testUser: "1", withMotionSense: true, withOxford: true), table: table)
        // Window by window. Measured: 1 → 2 0.904, 2 → 1 0.935. (Without the Oxford walks, 2 → 1 falls to
        // 0.715 with the shipped seed, 0.930 with seed 7: user 1's cycling read as a vehicle; docs/notes/activity.md.)
        #expect(oneToTwo.macroF1 >= 0.85)
        #expect(twoToOne.macroF1 >= 0.9)
        // Tracked states (the tracker needs a confident 20 s to start a trip). Measured: 0.985 and 0.971.
        #expect(oneToTwo.trackedMacroF1 >= 0.95)
        #expect(twoToOne.trackedMacroF1 >= 0.95)
    }

    @Test("MotionSense: walking (stairs included), jogging and still (sitting, standing), each subject held out")
    func motionSense() throws {
        let table = try Self.table()
        let r = try ActivityEvaluation.motionSenseLeaveOneSubjectOut(table: table)
        // Measured: macro F1 0.988 (windows), 0.990 (tracked).
        #expect(r.macroF1 >= 0.9, "\(r.confusion.markdown())")
        for c in ActivityEvaluation.motionSenseClasses { #expect(r.confusion.f1(c) >= 0.9, "\(c)") }
        #expect(r.trackedMacroF1 >= 0.95)
        // Cross data set: the shipped model's other data (QROWD, the Oxford walks), no MotionSense in training.
        // Measured: 0.955 (windows), 0.974 (tracked); 0.924 and 0.909 with seed 7. (QROWD alone: 0.870 and
        // 0.909, its walking read as running at times; docs/notes/activity.md.)
        let crossDataSet = try ActivityEvaluation.evaluate(ActivityEvaluation.qrowdToMotionSense(withOxford: true), table: table)
        #expect(crossDataSet.macroF1 >= 0.9)
        #expect(crossDataSet.trackedMacroF1 >= 0.9)
    }

    @Test(
        "the committed table is what the extraction computes from the raw data sets",
        .enabled(
            if: TestData.has("qrowd") && TestData.has("motionsense") && TestData.has("oxford-step-counter"),
            Comment(rawValue: TestData.skipNotice("qrowd, motionsense, oxford-step-counter"))))
    func tableReproducesFromRawData() throws {
        let committed = try Self.table()
        let original = ActivityAugmentation.Variant.original.name
        // A sample of the recordings: one per data set and class (all variants of each; the Oxford walks
        // are in the table unmodified only).
        let picks: [(dataset: String, url: URL, member: String)] = [
            ("qrowd", TestData.url("qrowd"), "cycling/user2"),
            ("qrowd", TestData.url("qrowd"), "vehicle/user1"),
            ("motionsense", TestData.url("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip"), "jog_9/sub_3"),
            ("oxford", TestData.url("oxford-step-counter/optimisation_data.zip"), "Samsung_Dario_Hard_ArmBand_1"),
        ]
        for pick in picks {
            let recording = try RecordingReader.read(pick.url, member: pick.member)
            let label = try #require(committed.rows.first { $0.dataset == pick.dataset && $0.recording == pick.member }?.label)
            let variants = pick.dataset == "oxford" ? [.original] : ActivityAugmentation.trainingVariants(for: label)
            #expect(!committed.rows.filter { $0.dataset == pick.dataset && $0.recording == pick.member }.isEmpty, "\(pick.member)")
            for variant in variants {
                let hop = variant.name == original ? ActivityFeatureTable.trainingHopSamples : 2 * ActivityFeatureTable.trainingHopSamples
                let fresh = ActivityFeatureTable.windows(of: ActivityAugmentation.apply(variant, to: recording.accelerometer), hopSamples: hop)
                let rows = committed.rows.filter { $0.dataset == pick.dataset && $0.recording == pick.member && $0.variant == variant.name }
                #expect(rows.count == fresh.count, "\(pick.member) \(variant.name)")
                for (row, window) in zip(rows, fresh) {
                    #expect(abs(row.start - window.start) < 0.006)
                    for f in 0..<ActivityFeature.count {
                        // The table keeps 7 significant digits.
                        #expect(abs(row.features[f] - window.features[f]) <= 1e-6 * max(1, abs(window.features[f])))
                    }
                }
            }
        }
    }

    @Test("Oxford walks, each walker held out: walking in every carry position once the other walkers are in training")
    func oxfordCarryPositionsHeldOut() throws {
        let table = try Self.table()
        let (result, positions) = try ActivityEvaluation.oxfordLeaveOneWalkerOut(table: table)
        let share = Dictionary(uniqueKeysWithValues: positions.map { ($0.position, $0) })
        // Window by window, each walker scored by a model trained on QROWD, MotionSense and the other two
        // walkers (the shipped model's data without the walker). Measured: armband 0.983, in hand 0.827,
        // swinging arm 0.972, neck pouch 0.994, purse 0.992, back pocket 0.983, front pocket 0.983.
        let bounds: [String: Double] = [
            "armband": 0.95, "inhand": 0.8, "swingingarm": 0.9, "neckpouch": 0.95, "purse": 0.95, "backpocket": 0.95, "frontpocket": 0.95,
        ]
        for (position, bound) in bounds {
            let p = try #require(share[position], "no Oxford windows carried in \(position)")
            #expect(p.walkingShare >= bound, "\(position): \(p.walkingShare)")
        }
        // Tracked states. Measured: in hand 0.862, swinging arm 1.000 (the other positions 0.974–1.000).
        #expect(try #require(share["inhand"]).trackedWalkingShare >= 0.85)
        #expect(try #require(share["swingingarm"]).trackedWalkingShare >= 0.85)
        // Every Oxford window is walking, so the accuracy is walking's recall (pooled share). Measured: 0.933.
        #expect(result.confusion.accuracy >= 0.92)
    }

    @Test(
        "Oxford walks through the shipped model: walking in every carry position (the walks are in its training)",
        .enabled(if: TestData.has("oxford-step-counter"), Comment(rawValue: TestData.skipNotice("oxford-step-counter"))))
    func oxfordShippedModel() throws {
        let url = TestData.url("oxford-step-counter/optimisation_data.zip")
        let forest = try ActivityForest.bundled()
        var windows: [String: Int] = [:], walking: [String: Int] = [:]
        for member in try RecordingReader.members(of: url) {
            let recording = try RecordingReader.read(url, member: member.name)
            let position = ActivityEvaluation.oxfordCarryPosition(member.name)
            for w in ActivityFeatureTable.windows(of: recording.accelerometer) {
                windows[position, default: 0] += 1
                if forest.probabilities(w.features).mostLikely == .walking { walking[position, default: 0] += 1 }
            }
        }
        func share(_ p: String) -> Double { Double(walking[p, default: 0]) / Double(max(1, windows[p, default: 0])) }
        #expect(windows.count == 7, "\(windows.keys.sorted())")
        // In-sample (the held-out figures are `oxfordCarryPositionsHeldOut`'s). Measured: armband 0.989, back
        // pocket 0.991, front pocket 0.990, in hand 0.995, neck pouch 0.991, purse 0.997, swinging arm 0.981.
        // The model trained without the Oxford walks read armband 0.008, in hand 0.478, swinging arm 0.037.
        for position in windows.keys.sorted() {
            #expect(share(position) >= 0.95, "\(position): \(share(position))")
        }
    }

    @Test(
        "iPhone 13 walk (Sensor Logger, 100 Hz): walking within 20 s and thereafter",
        .enabled(if: TestData.has("iphone13-walk-sensorlogger"), Comment(rawValue: TestData.skipNotice("iphone13-walk-sensorlogger"))))
    func iPhoneWalk() throws {
        let recording = try RecordingReader.read(TestData.url("iphone13-walk-sensorlogger"))
        let (estimates, states) = try classify(recording)
        let start = recording.accelerometer.first?.time ?? 0
        // Measured: one state, walking from 2.6 s (the first window), confidence medium then high.
        let firstWalking = try #require(states.first { $0.walking })
        #expect(firstWalking.startTime - start <= 20)
        #expect(states.filter { $0.startTime >= firstWalking.startTime }.allSatisfy { $0.flags == .walking })
        // Single windows after the first 20 s. Measured: 100 % walking.
        let late = estimates.filter { $0.time - start > 20 }
        let walking = late.filter { $0.mostLikely == .walking }.count
        #expect(Double(walking) / Double(late.count) >= 0.95)
    }
}
