import ArgumentParser
import Foundation
import MotionEngine
import MotionRecordings

/// `coremotion activity FILE`: the activity timeline of a recording, beside its labels when it has some.
struct ActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "Classify the activity in a recording: a timeline of Core Motion activity states.",
        discussion: """
            Runs the activity classifier (accelerometer only, any rate) and the state tracker over the recording and
            prints each state with its start time and confidence. When the recording holds activity labels (QROWD class,
            MotionSense folder, Sensor Logger activity), they are printed beside the states, with the agreement:
            the fraction of analysis windows whose tracked state names the labelled class.
            FILE may name one member of a data-set archive or folder as PATH#MEMBER.
            """
    )

    @Argument(help: "Recording to classify (any format coremotion reads; PATH#MEMBER for one member of a data set).")
    var file: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Model file to use instead of the bundled one (JSON written by 'coremotion train-activity fit').")
    var model: String?

    func run() throws {
        let recording = try RecordingReader.read(file)
        let forest = try model.map { try ActivityForest.load(contentsOf: URL(fileURLWithPath: $0)) } ?? ActivityForest.bundled()
        let result = ActivityTimeline.make(recording: recording, forest: forest)
        if json {
            try Output.json(result)
        } else {
            print(result.text(file: file))
        }
    }
}

/// The states of a recording, its labels and their agreement.
struct ActivityTimeline: Encodable {
    struct Segment: Encodable {
        /// Start and end, seconds from the recording's start.
        var start: Double
        var end: Double
        var activity: String
        var flags: [String]
        /// The confidence of each update within the segment, in order (`medium→high`).
        var confidence: String
        /// Core Motion's raw value of the last confidence (0 low, 1 medium, 2 high).
        var confidenceRawValue: Int
        /// The label(s) that hold during the segment, when the recording has labels.
        var labels: [String]?
    }

    struct Agreement: Encodable {
        /// Windows whose labelled time maps to one of the five classes.
        var windows: Int
        /// Fraction of those whose tracked state names the labelled class.
        var tracked: Double
        /// Fraction of those whose most likely class (no tracking) is the labelled class.
        var window: Double
    }

    var file: String
    var format: String
    var duration: Double
    var accelerometerSamples: Int
    var estimates: Int
    var skippedSamples: Int
    var gaps: Int
    var segments: [Segment]
    var agreement: Agreement?

    static func make(recording: Recording, forest: ActivityForest) -> ActivityTimeline {
        var classifier = ActivityClassifier(forest: forest)
        var tracker = ActivityTracker()
        var states: [ActivityState] = []
        var estimates = 0
        var agreeTracked = 0, agreeWindow = 0, labelled = 0
        let labels = recording.reference.activity.sorted { $0.time < $1.time }
        func label(at t: Double) -> String? {
            var found: String?
            for l in labels {
                if l.time <= t { found = l.label } else { break }
            }
            return found
        }
        for s in recording.accelerometer {
            guard let e = classifier.addAcceleration(time: s.time, value: s.value) else { continue }
            estimates += 1
            if let state = tracker.update(e) { states.append(state) }
            if let l = label(at: e.midTime), let truth = ActivityClass(label: l) {
                labelled += 1
                if tracker.current?.flags.primaryClass == truth { agreeTracked += 1 }
                if e.mostLikely == truth { agreeWindow += 1 }
            }
        }
        let end = recording.accelerometer.last?.time ?? 0
        // One segment per run of identical flags; confidence changes within it are listed in order.
        var runs: [(state: ActivityState, confidences: [ActivityConfidence])] = []
        for s in states {
            if let last = runs.last, last.state.flags == s.flags {
                runs[runs.count - 1].confidences.append(s.confidence)
            } else {
                runs.append((s, [s.confidence]))
            }
        }
        var segments: [Segment] = []
        for (i, run) in runs.enumerated() {
            let s = run.state
            let segmentEnd = i + 1 < runs.count ? runs[i + 1].state.startTime : end
            var segmentLabels: [String]?
            if !labels.isEmpty {
                var names: [String] = []
                if let first = label(at: s.startTime) { names.append(first) }
                for l in labels where l.time > s.startTime && l.time < segmentEnd && names.last != l.label { names.append(l.label) }
                segmentLabels = names
            }
            let final = run.confidences.last ?? s.confidence
            segments.append(
                Segment(
                    start: s.startTime, end: segmentEnd, activity: s.flags.description,
                    flags: s.flags.description.split(separator: "+").map(String.init),
                    confidence: run.confidences.map(\.description).joined(separator: "→"), confidenceRawValue: final.rawValue,
                    labels: segmentLabels))
        }
        let agreement = labelled > 0
            ? Agreement(windows: labelled, tracked: Double(agreeTracked) / Double(labelled), window: Double(agreeWindow) / Double(labelled))
            : nil
        return ActivityTimeline(
            file: recording.metadata.source, format: recording.metadata.format, duration: recording.duration,
            accelerometerSamples: recording.accelerometer.count, estimates: estimates,
            skippedSamples: classifier.skippedSamples, gaps: classifier.gaps, segments: segments, agreement: agreement)
    }

    func text(file: String) -> String {
        var out = "\(file) (\(format)): \(accelerometerSamples) accelerometer samples over \(Output.fixed(duration, 1)) s, \(estimates) windows"
        if skippedSamples > 0 { out += ", \(skippedSamples) samples skipped" }
        if gaps > 0 { out += ", \(gaps) gaps" }
        out += "\n\n"
        guard !segments.isEmpty else {
            return out + "no estimate: the recording has less than \(Output.fixed(ActivityFeatures.windowDuration, 2)) s of accelerometer data"
        }
        var header = ["start s", "end s", "activity", "confidence"]
        let hasLabels = segments.contains { $0.labels != nil }
        if hasLabels { header.append("label") }
        let rows = segments.map { s -> [String] in
            var row = [Output.fixed(s.start, 1), Output.fixed(s.end, 1), s.activity, s.confidence]
            if hasLabels { row.append(s.labels?.joined(separator: ", ") ?? "") }
            return row
        }
        out += Output.table(header, rows)
        if let agreement {
            out += "\n\nagreement with the labels over \(agreement.windows) windows: tracked states \(Output.fixed(100 * agreement.tracked, 1)) %, single windows \(Output.fixed(100 * agreement.window, 1)) %"
        }
        return out
    }
}

/// `coremotion train-activity`: rebuild the activity model's training table and model (hidden: for maintainers).
struct TrainActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "train-activity",
        abstract: "Extract the activity training table, train the activity model, evaluate it on held-out subjects.",
        discussion: "See Training/activity/README.md. Run from the package root.",
        shouldDisplay: false,
        subcommands: [Extract.self, Fit.self, Evaluate.self, Features.self]
    )

    static let defaultTable = "Training/activity/features.csv"
    static let defaultModel = "Sources/MotionEngine/Resources/activity-forest.json"

    struct Extract: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Compute the feature table from QROWD, MotionSense and the Oxford walks (with the augmented variants).")

        @Option(help: "Folder holding qrowd/, motionsense/ and oxford-step-counter/ (default: $COREMOTION_DATA or ../shared/data).")
        var data: String?

        @Option(help: "Table to write.")
        var output: String = TrainActivityCommand.defaultTable

        func run() throws {
            let root = URL(fileURLWithPath: data ?? ProcessInfo.processInfo.environment["COREMOTION_DATA"] ?? "../shared/data")
            var table = ActivityFeatureTable(comments: [
                "Activity training table of swift-core-motion: one row of window features per labelled window.",
                "Derived from QROWD (users 1 and 2; MIT, QROWD/TR), MotionSense (subjects 1, 2, 3, 5; MIT, mmalekzadeh/motion-sense) and the Oxford Step Counter walks (48, 7 carry positions; CC BY 4.0, Salvi et al., EMBC 2018).",
                "Rebuild: swift run coremotion train-activity extract --data DATA_FOLDER (see Training/activity/README.md).",
                "Windows: \(ActivityFeatures.windowLength) samples at \(Int(ActivityFeatures.sampleRate)) Hz; hop \(ActivityFeatureTable.trainingHopSamples) samples for original rows, \(2 * ActivityFeatureTable.trainingHopSamples) for augmented variants.",
                "Variants: " + ActivityAugmentation.trainingVariants.map(\.name).joined(separator: ", ") + "; cycling also " + ActivityAugmentation.cyclingCadenceVariants.map(\.name).joined(separator: ", ") + "; the Oxford walks original only.",
            ])
            let sources: [(dataset: String, url: URL, subjectKey: String)] = [
                ("qrowd", root.appendingPathComponent("qrowd"), "user"),
                ("motionsense", root.appendingPathComponent("motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip"), "subject"),
                ("oxford", root.appendingPathComponent("oxford-step-counter/optimisation_data.zip"), ""),
            ]
            for source in sources {
                let members = try RecordingReader.members(of: source.url)
                guard !members.isEmpty else { throw ValidationError("\(source.url.path): no recordings found") }
                for member in members.sorted(by: { $0.name < $1.name }) {
                    // Oxford: every recording is a walk (Device_Walker_Floor_Position_N); the walker is the subject.
                    let isOxford = source.dataset == "oxford"
                    guard let label = isOxford ? .walking : member.properties["activity"].flatMap(ActivityClass.init(label:)) else {
                        Output.note("skipped \(source.dataset) \(member.name): label \(member.properties["label"] ?? "none") names no activity class")
                        continue
                    }
                    let subject = isOxford
                        ? ActivityEvaluation.oxfordWalker(member.name)
                        : (member.properties[source.subjectKey] ?? "?").replacingOccurrences(of: "user", with: "")
                    let recording = try RecordingReader.read(source.url, member: member.name)
                    // The Oxford walks add carry positions, not more walking: their original windows only.
                    for variant in ActivityAugmentation.trainingVariants(for: label) where !isOxford || variant == .original {
                        let hop = variant == .original ? ActivityFeatureTable.trainingHopSamples : 2 * ActivityFeatureTable.trainingHopSamples
                        let samples = ActivityAugmentation.apply(variant, to: recording.accelerometer)
                        for w in ActivityFeatureTable.windows(of: samples, hopSamples: hop) {
                            table.rows.append(
                                .init(
                                    dataset: source.dataset, subject: subject, recording: member.name, variant: variant.name,
                                    label: label, start: w.start, features: w.features))
                        }
                    }
                    Output.note("\(source.dataset) \(member.name): \(recording.accelerometer.count) samples, \(label)")
                }
            }
            try Data(table.csv().utf8).write(to: URL(fileURLWithPath: output))
            Output.note("wrote \(table.rows.count) rows to \(output)")
        }
    }

    struct Fit: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Train the model on the table (all rows unless excluded).")

        @Option(help: "Feature table.")
        var features: String = TrainActivityCommand.defaultTable

        @Option(help: "Model file to write.")
        var output: String = TrainActivityCommand.defaultModel

        @Option(help: "Leave out DATASET or DATASET:SUBJECT from training (repeatable), e.g. qrowd:2.")
        var exclude: [String] = []

        @OptionGroup var forest: ForestOptions

        func run() throws {
            let table = try ActivityFeatureTable.read(URL(fileURLWithPath: features))
            let excluded = exclude.map { $0.split(separator: ":", maxSplits: 1).map(String.init) }
            let rows = table.rows.filter { row in
                !excluded.contains { e in e[0] == row.dataset && (e.count == 1 || e[1] == row.subject) }
            }
            let parameters = forest.parameters
            let description = "\((features as NSString).lastPathComponent): \(rows.count) rows"
                + (exclude.isEmpty ? "" : " (excluding \(exclude.joined(separator: ", ")))")
            let model = try ActivityForestTrainer.train(rows.map(\.example), parameters: parameters, trainedOn: description)
            try model.jsonData().write(to: URL(fileURLWithPath: output))
            Output.note("wrote \(output): \(model.trees.count) trees, \(model.nodeCount) nodes, trained on \(rows.count) rows")
        }
    }

    struct Evaluate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cross-subject evaluation: each split trains on its training side only and tests on the other.")

        @Option(help: "Feature table.")
        var features: String = TrainActivityCommand.defaultTable

        @Flag(help: "Print JSON instead of Markdown.")
        var json = false

        @OptionGroup var forest: ForestOptions

        struct Report: Encodable {
            var name: String
            var classes: [String]
            var trainingRows: Int
            var macroF1: Double
            var trackedMacroF1: Double
            var f1: [String: Double]
            var trackedF1: [String: Double]
            var confusion: [[Int]]
            var trackedConfusion: [[Int]]
        }

        func run() throws {
            let table = try ActivityFeatureTable.read(URL(fileURLWithPath: features))
            let parameters = forest.parameters
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
            if json {
                try Output.json(results.map { r in
                    Report(
                        name: r.name, classes: r.scoredClasses.map(\.description), trainingRows: r.trainingRows,
                        macroF1: r.macroF1, trackedMacroF1: r.trackedMacroF1,
                        f1: Dictionary(uniqueKeysWithValues: r.scoredClasses.map { ($0.description, r.confusion.f1($0)) }),
                        trackedF1: Dictionary(uniqueKeysWithValues: r.scoredClasses.map { ($0.description, r.trackedConfusion.f1($0)) }),
                        confusion: r.confusion.counts, trackedConfusion: r.trackedConfusion.counts)
                })
                return
            }
            var out = "| split | training rows | macro F1 (windows) | macro F1 (tracked) |\n|---|---|---|---|\n"
            for r in results {
                out += "| \(r.name) | \(r.trainingRows) | \(Output.fixed(r.macroF1)) | \(Output.fixed(r.trackedMacroF1)) |\n"
            }
            for r in results {
                out += "\n### \(r.name)\n\nWindow by window (macro F1 \(Output.fixed(r.macroF1))):\n\n"
                out += r.confusion.markdown(classes: r.scoredClasses)
                out += "\n\nTracked states (macro F1 \(Output.fixed(r.trackedMacroF1))):\n\n"
                out += r.trackedConfusion.markdown(classes: r.scoredClasses) + "\n"
            }
            print(out)
            var positions = "\n### Oxford walks by carry position (leave-one-walker-out)\n\n| position | windows | walking (windows) | walking (tracked) |\n|---|---|---|---|\n"
            for p in oxford.positions {
                positions += "| \(p.position) | \(p.windows) | \(Output.fixed(p.walkingShare)) | \(Output.fixed(p.trackedWalkingShare)) |\n"
            }
            print(positions)
        }
    }
}

/// The random-forest training options shared by `fit` and `evaluate` (defaults: the shipped model's).
struct ForestOptions: ParsableArguments {
    @Option(help: "Number of trees.") var trees: Int = ActivityForest.TrainingParameters.shipped.treeCount
    @Option(help: "Maximum depth.") var depth: Int = ActivityForest.TrainingParameters.shipped.maximumDepth
    @Option(help: "Fewest rows in a leaf.") var minLeaf: Int = ActivityForest.TrainingParameters.shipped.minimumLeafRows
    @Option(help: "Features tried per split.") var featuresPerSplit: Int = ActivityForest.TrainingParameters.shipped.featuresPerSplit
    @Option(help: "Random seed.") var seed: UInt64 = ActivityForest.TrainingParameters.shipped.seed

    var parameters: ActivityForest.TrainingParameters {
        .init(seed: seed, treeCount: trees, maximumDepth: depth, minimumLeafRows: minLeaf, featuresPerSplit: featuresPerSplit)
    }
}
