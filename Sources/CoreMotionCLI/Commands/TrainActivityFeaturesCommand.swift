import ArgumentParser
import Foundation
import MotionEngine
import MotionEvaluation
import MotionRecordings

extension TrainActivityCommand {
    /// `coremotion train-activity features FILE`: the window features of any recording, as the
    /// classifier computes them (to compare a recording, e.g. a simulated scene, with the training table).
    struct Features: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the activity features of every window of a recording as CSV (start time in s, then the features).")

        @Argument(help: "Recording (any format coremotion reads; PATH#MEMBER for one member of a data set).")
        var file: String

        @Option(help: "Hop between windows, grid samples at 25 Hz.")
        var hop: Int = ActivityFeatureTable.trainingHopSamples

        func validate() throws {
            guard hop >= 1 else { throw ValidationError("--hop must be at least 1 (got \(hop))") }
        }

        func run() throws {
            print(try csv(), terminator: "")
        }

        /// The CSV the command prints: a header (`start` and the feature names), then one line per window.
        func csv() throws -> String {
            let recording = try RecordingReader.read(file)
            var out = "start," + ActivityFeature.allCases.map(\.description).joined(separator: ",") + "\n"
            for w in ActivityFeatureTable.windows(of: recording.accelerometer, hopSamples: hop) {
                out += Output.fixed(w.start, 2) + "," + w.features.map { String($0) }.joined(separator: ",") + "\n"
            }
            return out
        }
    }
}
