import ArgumentParser
import Foundation
import MotionEngine
import MotionEvaluation
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

extension ActivityTimeline {
    /// The timeline as a table, with the agreement below it.
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
            let table = try reportingAsUsage { try ActivityFeatureTable.extract(data: root, note: Output.note) }
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
            let (results, carryPositions) = try ActivityEvaluation.reportedSplits(table: table, parameters: parameters)
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
            for p in carryPositions {
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
