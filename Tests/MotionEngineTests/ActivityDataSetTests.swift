import Foundation
import MotionEngine
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
        // Window by window. Measured: 1 → 2 0.935, 2 → 1 0.934.
        #expect(oneToTwo.macroF1 >= 0.9, "\(oneToTwo.confusion.markdown())")
        #expect(twoToOne.macroF1 >= 0.9, "\(twoToOne.confusion.markdown())")
        // Walking, running and cycling are the easy classes. Measured F1 0.921 (cycling, 2 → 1) to 1.000.
        for r in [oneToTwo, twoToOne] {
            for c in [ActivityClass.walking, .running, .cycling] { #expect(r.confusion.f1(c) >= 0.9, "\(c)") }
        }
        // The tracked states over each recording. Measured: 1 → 2 1.000, 2 → 1 0.978.
        #expect(oneToTwo.trackedMacroF1 >= 0.95)
        #expect(twoToOne.trackedMacroF1 >= 0.95)
    }

    @Test("QROWD cross-user with MotionSense added to the training side")
    func qrowdCrossUserWithMotionSense() throws {
        let table = try Self.table()
        let oneToTwo = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "1", testUser: "2", withMotionSense: true), table: table)
        let twoToOne = try ActivityEvaluation.evaluate(
            ActivityEvaluation.qrowdCrossUser(trainUser: "2", testUser: "1", withMotionSense: true), table: table)
        // Window by window. Measured: 1 → 2 0.859 (user 2's "still" phone is handled at times and such
        // windows read as a vehicle once MotionSense's pocket data is in training), 2 → 1 0.924.
        #expect(oneToTwo.macroF1 >= 0.85)
        #expect(twoToOne.macroF1 >= 0.9)
        // Tracked states (the tracker needs a confident 20 s to start a trip). Measured: 0.968 and 0.964.
        #expect(oneToTwo.trackedMacroF1 >= 0.95)
        #expect(twoToOne.trackedMacroF1 >= 0.95)
    }

    @Test("MotionSense: walking (stairs included), jogging and still (sitting, standing), each subject held out")
    func motionSense() throws {
        let table = try Self.table()
        let r = try ActivityEvaluation.motionSenseLeaveOneSubjectOut(table: table)
        // Measured: macro F1 0.981 (windows; F1 still 0.960, walking 0.995, running 0.988), 0.996 (tracked).
        #expect(r.macroF1 >= 0.9, "\(r.confusion.markdown())")
        for c in ActivityEvaluation.motionSenseClasses { #expect(r.confusion.f1(c) >= 0.9, "\(c)") }
        #expect(r.trackedMacroF1 >= 0.95)
        // Cross data set, no MotionSense in training. Measured: 0.944 (windows), 0.960 (tracked).
        let crossDataSet = try ActivityEvaluation.evaluate(ActivityEvaluation.qrowdToMotionSense, table: table)
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
            let variants = pick.dataset == "oxford" ? [.original] : ActivityAugmentation.trainingVariants
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
        // walkers (the candidate of docs/activity.md, not the shipped model). Measured: armband 0.992,
        // in hand 0.851, swinging arm 0.833, neck pouch 0.997, purse 1.000, back pocket 0.983, front pocket 0.988.
        let bounds: [String: Double] = [
            "armband": 0.95, "inhand": 0.8, "swingingarm": 0.8, "neckpouch": 0.95, "purse": 0.95, "backpocket": 0.95, "frontpocket": 0.95,
        ]
        for (position, bound) in bounds {
            let p = try #require(share[position], "no Oxford windows carried in \(position)")
            #expect(p.walkingShare >= bound, "\(position): \(p.walkingShare)")
        }
        // Tracked states. Measured: in hand 0.911, swinging arm 0.917 (the other positions 0.965–1.000).
        #expect(try #require(share["inhand"]).trackedWalkingShare >= 0.85)
        #expect(try #require(share["swingingarm"]).trackedWalkingShare >= 0.85)
        // Every Oxford window is walking, so the accuracy is walking's recall (pooled share). Measured: 0.939.
        #expect(result.confusion.accuracy >= 0.92)
    }

    @Test(
        "Oxford walks through the shipped model: pockets, purse and neck pouch read as walking",
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
        // Measured: back pocket 0.974, front pocket 0.970, purse 0.931, neck pouch 0.869 — the carry positions
        // of the training data (pockets, bags). Not asserted, the known gap (docs/activity.md): armband 0.008,
        // in hand 0.478, swinging arm 0.037.
        #expect(share("backpocket") >= 0.95)
        #expect(share("frontpocket") >= 0.95)
        #expect(share("purse") >= 0.9)
        #expect(share("neckpouch") >= 0.85)
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
