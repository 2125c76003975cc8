import MotionEngine
import MotionEvaluation

extension StepsCrossValidation {
    /// The report as text tables: the figures per data set, then each constant's picks.
    static func render(_ r: Report) -> String {
        var out = [Output.table(
            ["data set", "recordings", "shipped (in-sample) median / p90 |err| %", "picks on all (in-sample) median", "leave-one-subject-out median / p90"],
            r.figures.map { f in
                [f.dataset, "\(f.recordings)", "\(Output.fixed(f.shippedMedian, 2)) / \(Output.fixed(f.shippedP90, 2))",
                 Output.fixed(f.inSampleMedian, 2), "\(Output.fixed(f.crossValidatedMedian, 2)) / \(Output.fixed(f.crossValidatedP90, 2))"]
            })]
        out.append("")
        let base = StepDetector.Configuration()
        out.append(Output.table(["constant", "shipped", "pick on all", "fold picks (of \(r.folds))"], grid.map { entry in
            [entry.name, Output.fixed(base[keyPath: entry.key], 3), Output.fixed(r.inSamplePicks[entry.name] ?? .nan, 3),
             (r.foldPicks[entry.name] ?? [:]).sorted { $0.value > $1.value }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")]
        }))
        return out.joined(separator: "\n")
    }
}
