import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings
import Testing
import TestSupport

/// Runs the bundled classifier and a tracker over a recording's accelerometer; returns the estimates and states.
func classify(_ recording: Recording, forest: ActivityForest? = nil) throws -> (estimates: [ActivityEstimate], states: [ActivityState]) {
    var classifier = try forest.map { ActivityClassifier(forest: $0) } ?? ActivityClassifier()
    var tracker = ActivityTracker()
    var estimates: [ActivityEstimate] = []
    var states: [ActivityState] = []
    for s in recording.samples(of: .accelerometer) {
        guard let e = classifier.add(s) else { continue }
        estimates.append(e)
        if let state = tracker.update(e) { states.append(state) }
    }
    return (estimates, states)
}

@Suite("Activity model")
struct ActivityModelTests {
    static let tablePath = TestData.packageRoot.appendingPathComponent("Training/activity/features.csv")
    static let modelPath = TestData.packageRoot.appendingPathComponent("Sources/MotionEngine/Resources/activity-forest.json")

    @Test("the bundled model loads, validates and matches the library's features and classes")
    func bundledModel() throws {
        let forest = try ActivityForest.bundled()
        #expect(forest.trees.count == ActivityForest.TrainingParameters.shipped.treeCount)
        #expect(forest.training == .shipped)
        #expect(forest.features == ActivityFeature.allCases.map(\.description))
        // 5,406 nodes when this test was written; a forest of depth ≤ 6 has at most 127 nodes per tree.
        #expect(forest.nodeCount <= forest.trees.count * 127)
        let p = forest.probabilities([Double](repeating: 0, count: ActivityFeature.count))
        let sum = ActivityClass.allCases.reduce(0) { $0 + p[$1] }
        #expect(abs(sum - 1) < 1e-12)
    }

    @Test("malformed models are refused with a reason")
    func malformedModels() throws {
        let good = try ActivityForest.bundled()
        var badFeature = good
        badFeature.trees[0].feature[0] = 99
        #expect(throws: ActivityForest.ModelError.self) { try badFeature.validate() }
        var badChild = good
        badChild.trees[1].left[0] = 0
        #expect(throws: ActivityForest.ModelError.self) { try badChild.validate() }
        var badLeaf = good
        badLeaf.trees[2].leafValues[0] = .nan
        #expect(throws: ActivityForest.ModelError.self) { try badLeaf.validate() }
        var renamed = good
        renamed.features[0] = "something"
        #expect(throws: ActivityForest.ModelError.self) { try renamed.validate() }
        #expect(throws: ActivityForest.ModelError.self) { try ActivityForest.load(json: Data("{\"format\": 1}".utf8)) }
        do {
            _ = try ActivityForest.load(json: Data("[]".utf8))
            Issue.record("decoding an array as a model should fail")
        } catch let e as ActivityForest.ModelError {
            #expect(e.description.hasPrefix("activity model: cannot decode"))
        }
    }

    @Test("retraining on the committed table reproduces the shipped model byte for byte")
    func reproducibleTraining() throws {
        let table = try ActivityFeatureTable.read(Self.tablePath)
        let rows = table.rows
        let forest = try ActivityForestTrainer.train(
            rows.map(\.example), parameters: .shipped, trainedOn: "features.csv: \(rows.count) rows")
        let committed = try Data(contentsOf: Self.modelPath)
        #expect(try forest.jsonData() == committed)
    }

    @Test("the feature table refuses malformed rows with file, line and column")
    func malformedTable() throws {
        let header = ActivityFeatureTable.columns.joined(separator: ",")
        let values = [String](repeating: "0.5", count: ActivityFeature.count).joined(separator: ",")
        let good = try ActivityFeatureTable.parse("# c\n\(header)\nqrowd,1,walk/user1,original,walk,0.0,\(values)\n", file: "t.csv")
        #expect(good.rows.count == 1)
        #expect(good.rows[0].label == .walking)
        #expect(good.comments == ["c"])
        do {
            _ = try ActivityFeatureTable.parse("\(header)\nqrowd,1,walk/user1,original,walk,0.0,\(values.replacingOccurrences(of: "0.5,0.5,", with: "nan,0.5,"))\n", file: "t.csv")
            Issue.record("a NaN feature should be refused")
        } catch let e as RecordingError {
            #expect(e.line == 2)
            #expect(e.column == "logStdMagnitude")
        }
        #expect(throws: RecordingError.self) { try ActivityFeatureTable.parse("\(header)\nqrowd,1,x,original,flying,0.0,\(values)\n", file: "t.csv") }
        #expect(throws: RecordingError.self) { try ActivityFeatureTable.parse("\(header)\nqrowd,1,x,original,walk,0.0\n", file: "t.csv") }
        #expect(throws: RecordingError.self) { try ActivityFeatureTable.parse("a,b\n", file: "t.csv") }
    }

    @Test("training is deterministic and refuses bad rows")
    func trainerDeterminism() throws {
        var rows: [ActivityForestTrainer.Example] = []
        var state: UInt64 = 1
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        for i in 0..<400 {
            let label = ActivityClass(rawValue: i % 3)!
            var f = (0..<ActivityFeature.count).map { _ in uniform() }
            f[0] += Double(label.rawValue)
            rows.append(.init(features: f, label: label))
        }
        let parameters = ActivityForest.TrainingParameters(
            seed: 3, treeCount: 5, maximumDepth: 4, minimumLeafRows: 5, featuresPerSplit: ActivityFeature.count)
        let a = try ActivityForestTrainer.train(rows, parameters: parameters, trainedOn: "synthetic")
        let b = try ActivityForestTrainer.train(rows, parameters: parameters, trainedOn: "synthetic")
        #expect(a == b)
        try a.validate()
        // Feature 0 separates the classes and every split tries every feature: every tree splits on it first.
        #expect(a.trees.allSatisfy { $0.feature[0] == 0 })
        var bad = rows
        bad[7].features[3] = .infinity
        #expect(throws: ActivityForest.ModelError.self) { try ActivityForestTrainer.train(bad, parameters: parameters, trainedOn: "bad") }
        let oneClass = rows.filter { $0.label == .walking }
        #expect(throws: ActivityForest.ModelError.self) { try ActivityForestTrainer.train(oneClass, parameters: parameters, trainedOn: "one") }
    }

    @Test("fixtures: 20 s of QROWD walking and of MotionSense walking and standing are recognised")
    func fixtures() throws {
        let walk = try RecordingReader.read(TestData.fixture("recordings/qrowd/walk/user1.txt"))
        let walkStates = try classify(walk).states
        #expect(walkStates.first?.flags == .walking)
        #expect(walkStates.allSatisfy { $0.walking })
        let zip = TestData.fixture("recordings/motionsense/motionsense-excerpt.zip")
        for (member, activity) in [("wlk_7/sub_1", ActivityFlags.walking), ("std_6/sub_1", .stationary)] {
            let recording = try RecordingReader.read(zip, member: member)
            let states = try classify(recording).states
            #expect(!states.isEmpty)
            #expect(states.allSatisfy { $0.flags == activity }, "\(member): \(states.map(\.flags))")
        }
    }

    @Test("non-accelerometer samples are ignored; bad samples are skipped and counted, never crash")
    func badSamples() throws {
        var classifier = try ActivityClassifier()
        #expect(classifier.add(.gyroscope(TimedVector(time: 0, value: .zero))) == nil)
        #expect(classifier.add(.barometer(PressureReading(time: 0, kilopascals: 101))) == nil)
        var estimates = 0
        for i in 0..<1000 {
            let t = Double(i) / 50
            var v = Vector3(0, 0, -1)
            if i % 97 == 0 { v.x = .nan }
            if let e = classifier.addAcceleration(time: t, value: v) {
                estimates += 1
                #expect(e.mostLikely == .stationary)
            }
            if i % 89 == 0 { _ = classifier.addAcceleration(time: t - 0.5, value: v) }
        }
        #expect(classifier.skippedSamples == 11 + 12)
        #expect(estimates > 0)
        // A 3 s silence restarts the window: the next estimate needs a full window again.
        #expect(classifier.addAcceleration(time: 23, value: Vector3(0, 0, -1)) == nil)
        #expect(classifier.gaps == 1)
    }
}
