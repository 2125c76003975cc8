import Foundation
import MotionEngine
import MotionRecordings

extension ActivityFeatureTable {
    /// Computes the training table from the data sets under `data`: QROWD (`qrowd/`), MotionSense
    /// (`motionsense/A_DeviceMotion_data_subjects_1_2_3_5.zip`) and the Oxford walks
    /// (`oxford-step-counter/optimisation_data.zip`), every labelled recording with its augmented variants
    /// (the Oxford walks original only), in member order.
    /// - Parameter note: told each recording read or skipped.
    /// - Throws: ``EvaluationError`` when a data set holds no recording; a reader's error for an unreadable one.
    public static func extract(data root: URL, note: (String) -> Void) throws -> ActivityFeatureTable {
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
            guard !members.isEmpty else { throw EvaluationError("\(source.url.path): no recordings found") }
            for member in members.sorted(by: { $0.name < $1.name }) {
                // Oxford: every recording is a walk (Device_Walker_Floor_Position_N); the walker is the subject.
                let isOxford = source.dataset == "oxford"
                guard let label = isOxford ? .walking : member.properties["activity"].flatMap(ActivityClass.init(label:)) else {
                    note("skipped \(source.dataset) \(member.name): label \(member.properties["label"] ?? "none") names no activity class")
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
                note("\(source.dataset) \(member.name): \(recording.accelerometer.count) samples, \(label)")
            }
        }
        return table
    }
}
