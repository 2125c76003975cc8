import Foundation
import MotionEngine

/// Train-on-some, test-on-others evaluations of the activity model on the training table, as reported
/// in `docs/activity.md#accuracy` (every split: `docs/notes/activity.md#every-split`). Every model here
/// is trained only on the training side of its split (augmented variants included), and tested only on
/// unmodified (`original`) rows of the other side.
public enum ActivityEvaluation {
    /// A named split of the table into training and test rows.
    public struct Split: Sendable {
        /// Human-readable name, used as the section title in reports.
        public var name: String
        /// Classes scored (macro F1 is over these).
        public var scoredClasses: [ActivityClass]
        /// Whether a row is on the training side.
        public var isTraining: @Sendable (ActivityFeatureTable.Row) -> Bool
        /// Whether a row is on the test side (never overlapping the training side's subjects).
        public var isTest: @Sendable (ActivityFeatureTable.Row) -> Bool

        /// A split named `name` scoring `scoredClasses`, with the two sides given as row predicates.
        public init(
            name: String, scoredClasses: [ActivityClass],
            isTraining: @escaping @Sendable (ActivityFeatureTable.Row) -> Bool,
            isTest: @escaping @Sendable (ActivityFeatureTable.Row) -> Bool
        ) {
            self.name = name
            self.scoredClasses = scoredClasses
            self.isTraining = isTraining
            self.isTest = isTest
        }
    }

    /// The result of one split (or of several pooled).
    public struct Result: Sendable {
        /// The split's name.
        public var name: String
        /// Classes scored.
        public var scoredClasses: [ActivityClass]
        /// Window by window: the most likely class of each test window.
        public var confusion: ActivityConfusion
        /// The same windows scored by the state an ``ActivityTracker`` reports after each (recordings
        /// replayed in time order, one tracker per recording; automotive counts when a stop in a vehicle
        /// gives stationary + automotive).
        public var trackedConfusion: ActivityConfusion
        /// Training rows of the model (the largest, for pooled results).
        public var trainingRows: Int
        /// Macro F1 over ``scoredClasses``, window by window.
        public var macroF1: Double { confusion.macroF1(over: scoredClasses) }
        /// Macro F1 over ``scoredClasses`` of the tracked states.
        public var trackedMacroF1: Double { trackedConfusion.macroF1(over: scoredClasses) }
    }

    /// The three MotionSense classes: walking (stairs included), running (jogging), stationary (sitting, standing).
    public static let motionSenseClasses: [ActivityClass] = [.stationary, .walking, .running]

    /// QROWD cross-user splits: train on one user (plus, when `withMotionSense`, all of MotionSense, and
    /// when `withOxford`, all of the Oxford walks), test on the other.
    public static func qrowdCrossUser(trainUser: String, testUser: String, withMotionSense: Bool, withOxford: Bool = false) -> Split {
        let added = withMotionSense && withOxford ? " (training adds MotionSense and the Oxford walks)"
            : withMotionSense ? " (training adds MotionSense)" : withOxford ? " (training adds the Oxford walks)" : " (QROWD only)"
        return Split(
            name: "QROWD user \(trainUser) → user \(testUser)" + added,
            scoredClasses: ActivityClass.allCases,
            isTraining: {
                ($0.dataset == "qrowd" && $0.subject == trainUser) || (withMotionSense && $0.dataset == "motionsense")
                    || (withOxford && $0.dataset == "oxford")
            },
            isTest: { $0.isOriginal && $0.dataset == "qrowd" && $0.subject == testUser }
        )
    }

    /// MotionSense leave-one-subject-out: train on QROWD and the other MotionSense subjects, test on `subject`.
    public static func motionSenseHoldOut(subject: String, withQROWD: Bool = true, withOxford: Bool = false) -> Split {
        Split(
            name: "MotionSense subject \(subject) held out" + (withQROWD ? "" : " (MotionSense only)") + (withOxford ? " (training adds the Oxford walks)" : ""),
            scoredClasses: motionSenseClasses,
            isTraining: {
                (withQROWD && $0.dataset == "qrowd") || ($0.dataset == "motionsense" && $0.subject != subject)
                    || (withOxford && $0.dataset == "oxford")
            },
            isTest: { $0.isOriginal && $0.dataset == "motionsense" && $0.subject == subject }
        )
    }

    /// Cross-data-set: train on all of QROWD (plus, when `withOxford`, the Oxford walks: the shipped model's
    /// data without MotionSense), test on all of MotionSense (an iPhone in a pocket, never seen in training).
    public static func qrowdToMotionSense(withOxford: Bool = false) -> Split {
        Split(
            name: (withOxford ? "QROWD and Oxford" : "QROWD") + " → MotionSense (no MotionSense in training)",
            scoredClasses: motionSenseClasses,
            isTraining: { $0.dataset == "qrowd" || (withOxford && $0.dataset == "oxford") },
            isTest: { $0.isOriginal && $0.dataset == "motionsense" })
    }

    /// Trains on the split's training rows and scores its test rows (window by window, most likely class).
    public static func evaluate(
        _ split: Split, table: ActivityFeatureTable, parameters: ActivityForest.TrainingParameters = .shipped
    ) throws -> Result {
        let training = table.rows.filter(split.isTraining)
        let test = table.rows.filter(split.isTest)
        let forest = try ActivityForestTrainer.train(training.map(\.example), parameters: parameters, trainedOn: split.name)
        var confusion = ActivityConfusion()
        for row in test { confusion.add(truth: row.label, predicted: forest.probabilities(row.features).mostLikely) }
        return Result(
            name: split.name, scoredClasses: split.scoredClasses, confusion: confusion,
            trackedConfusion: trackedConfusion(test, forest: forest), trainingRows: training.count)
    }

    /// Scores the states an ``ActivityTracker`` reports when each recording's windows are replayed in order.
    public static func trackedConfusion(_ rows: [ActivityFeatureTable.Row], forest: ActivityForest) -> ActivityConfusion {
        var confusion = ActivityConfusion()
        replayTracked(rows, forest: forest) { row, state in confusion.add(truth: row.label, predicted: state) }
        return confusion
    }

    /// Replays each recording's windows in time order through a fresh ``ActivityTracker`` and hands
    /// every window with the tracker's primary state after it to `visit`.
    static func replayTracked(
        _ rows: [ActivityFeatureTable.Row], forest: ActivityForest,
        _ visit: (ActivityFeatureTable.Row, ActivityClass?) -> Void
    ) {
        var byRecording: [String: [ActivityFeatureTable.Row]] = [:]
        for r in rows { byRecording["\(r.dataset)/\(r.subject)/\(r.recording)/\(r.variant)", default: []].append(r) }
        for key in byRecording.keys.sorted() {
            var tracker = ActivityTracker()
            for row in byRecording[key]!.sorted(by: { $0.start < $1.start }) {
                let estimate = ActivityEstimate(
                    time: row.start + ActivityFeatures.windowDuration, windowDuration: ActivityFeatures.windowDuration,
                    probabilities: forest.probabilities(row.features))
                _ = tracker.update(estimate)
                visit(row, tracker.current?.flags.primaryClass)
            }
        }
    }

    /// Oxford Step Counter walks of one walker held out: train on QROWD, MotionSense and the other
    /// walkers' walks, test on this walker's (every Oxford window is walking). The other splits leave
    /// the Oxford walks out of training, so that their figures compare with earlier models'.
    public static func oxfordHoldOut(walker: String) -> Split {
        Split(
            name: "Oxford walker \(walker) held out", scoredClasses: ActivityClass.allCases,
            isTraining: { $0.dataset != "oxford" || $0.subject != walker },
            isTest: { $0.isOriginal && $0.dataset == "oxford" && $0.subject == walker })
    }

    /// The carry position of an Oxford walk, from its name (`Device_Walker_Floor_Position_N`).
    public static func oxfordCarryPosition(_ recording: String) -> String {
        let parts = recording.split(separator: "_")
        return parts.count >= 5 ? String(parts[3]).lowercased() : recording
    }

    /// The walker of an Oxford walk, from its name (`Device_Walker_Floor_Position_N`); "?" when the
    /// name has no walker field.
    public static func oxfordWalker(_ recording: String) -> String {
        let parts = recording.split(separator: "_")
        return parts.count >= 2 ? String(parts[1]) : "?"
    }

    /// Walking read in one carry position of the Oxford walks.
    public struct CarryPositionShare: Sendable {
        /// The carry position (armband, in hand, swinging arm, neck pouch, purse, back pocket, front pocket).
        public var position: String
        /// Windows scored.
        public var windows: Int
        /// Share of windows whose most likely class is walking.
        public var walkingShare: Double
        /// Share of windows whose tracked state (the ``ActivityTracker``'s) is walking.
        public var trackedWalkingShare: Double
    }

    /// Leave-one-walker-out over the Oxford walks (each walker's walks scored by a model trained
    /// without them), pooled, with the walking share per carry position.
    public static func oxfordLeaveOneWalkerOut(
        table: ActivityFeatureTable, parameters: ActivityForest.TrainingParameters = .shipped
    ) throws -> (result: Result, positions: [CarryPositionShare]) {
        let walkers = Set(table.rows(dataset: "oxford").map(\.subject)).sorted()
        var pooled = ActivityConfusion(), pooledTracked = ActivityConfusion()
        var trainingRows = 0
        var counts: [String: (windows: Int, walking: Int, tracked: Int)] = [:]
        for walker in walkers {
            let split = oxfordHoldOut(walker: walker)
            let training = table.rows.filter(split.isTraining)
            let test = table.rows.filter(split.isTest)
            let forest = try ActivityForestTrainer.train(training.map(\.example), parameters: parameters, trainedOn: split.name)
            trainingRows = max(trainingRows, training.count)
            for row in test {
                let predicted = forest.probabilities(row.features).mostLikely
                pooled.add(truth: row.label, predicted: predicted)
                let position = oxfordCarryPosition(row.recording)
                counts[position, default: (0, 0, 0)].windows += 1
                if predicted == .walking { counts[position, default: (0, 0, 0)].walking += 1 }
            }
            replayTracked(test, forest: forest) { row, state in
                pooledTracked.add(truth: row.label, predicted: state)
                if state == .walking { counts[oxfordCarryPosition(row.recording), default: (0, 0, 0)].tracked += 1 }
            }
        }
        let positions = counts.keys.sorted().map { p in
            let c = counts[p]!
            return CarryPositionShare(
                position: p, windows: c.windows, walkingShare: Double(c.walking) / Double(max(1, c.windows)),
                trackedWalkingShare: Double(c.tracked) / Double(max(1, c.windows)))
        }
        return (Result(name: "Oxford leave-one-walker-out (walkers \(walkers.joined(separator: ", ")))", scoredClasses: [.walking],
                       confusion: pooled, trackedConfusion: pooledTracked, trainingRows: trainingRows), positions)
    }

    /// Leave-one-subject-out over every MotionSense subject in the table, pooled into one confusion matrix.
    public static func motionSenseLeaveOneSubjectOut(
        table: ActivityFeatureTable, withQROWD: Bool = true, withOxford: Bool = false,
        parameters: ActivityForest.TrainingParameters = .shipped
    ) throws -> Result {
        let subjects = Set(table.rows(dataset: "motionsense").map(\.subject)).sorted { (Int($0) ?? 0, $0) < (Int($1) ?? 0, $1) }
        var pooled = ActivityConfusion()
        var pooledTracked = ActivityConfusion()
        var trainingRows = 0
        for s in subjects {
            let r = try evaluate(motionSenseHoldOut(subject: s, withQROWD: withQROWD, withOxford: withOxford), table: table, parameters: parameters)
            pooled.merge(r.confusion)
            pooledTracked.merge(r.trackedConfusion)
            trainingRows = max(trainingRows, r.trainingRows)
        }
        return Result(
            name: "MotionSense leave-one-subject-out (subjects \(subjects.joined(separator: ", ")))" + (withQROWD ? ", training adds QROWD" : ", MotionSense only") + (withOxford ? " and the Oxford walks" : ""),
            scoredClasses: motionSenseClasses, confusion: pooled, trackedConfusion: pooledTracked, trainingRows: trainingRows)
    }

    /// Every split `coremotion train-activity evaluate` reports, in its order: QROWD cross-user (without,
    /// then with MotionSense), MotionSense leave-one-subject-out, QROWD → MotionSense (without, then with the
    /// Oxford walks), the shipped model's training data (QROWD cross-user and MotionSense held out, with
    /// everything else), and the Oxford walks leave-one-walker-out, with its carry positions.
    public static func reportedSplits(
        table: ActivityFeatureTable, parameters: ActivityForest.TrainingParameters
    ) throws -> (results: [Result], positions: [CarryPositionShare]) {
        var results: [ActivityEvaluation.Result] = []
        for withMotionSense in [false, true] {
            results.append(try ActivityEvaluation.evaluate(
                ActivityEvaluation.qrowdCrossUser(trainUser: "1", testUser: "2", withMotionSense: withMotionSense), table: table,
                parameters: parameters))
            results.append(try ActivityEvaluation.evaluate(
                ActivityEvaluation.qrowdCrossUser(trainUser: "2", testUser: "1", withMotionSense: withMotionSense), table: table,
                parameters: parameters))
        }
        results.append(try ActivityEvaluation.motionSenseLeaveOneSubjectOut(table: table, parameters: parameters))
        for withOxford in [false, true] {
            results.append(try ActivityEvaluation.evaluate(
                ActivityEvaluation.qrowdToMotionSense(withOxford: withOxford), table: table, parameters: parameters))
        }
        // The shipped model's training data: every split above, with the Oxford walks added.
        for (train, test) in [("1", "2"), ("2", "1")] {
            results.append(try ActivityEvaluation.evaluate(
                ActivityEvaluation.qrowdCrossUser(trainUser: train, testUser: test, withMotionSense: true, withOxford: true),
                table: table, parameters: parameters))
        }
        results.append(try ActivityEvaluation.motionSenseLeaveOneSubjectOut(table: table, withOxford: true, parameters: parameters))
        let oxford = try ActivityEvaluation.oxfordLeaveOneWalkerOut(table: table, parameters: parameters)
        results.append(oxford.result)
        return (results, oxford.positions)
    }
}
