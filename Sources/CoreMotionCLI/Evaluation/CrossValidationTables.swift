import MotionEvaluation

extension CrossValidation {
    /// The report as text tables.
    static func render(_ r: Report) -> String {
        var out: [String] = []
        let measure = switch Objective(rawValue: r.objective) {
        case .sum: "9D total + 6D total RMSE (degrees)"
        case .relative: "9D total / VQF 9D total + 6D total / VQF 6D total"
        default: r.objective + " total RMSE (degrees)"
        }
        out.append("Objective per trial: \(measure); \(r.trials.count) trials, leave-one-trial-out; picks: \(r.method), a change must gain more than \(Output.fixed(r.margin, 2)) standard errors.")
        out.append("")
        if r.method == Method.descent.rawValue {
            let rows = r.parameters.map { p in
                [p.name, p.inSamplePick, p.foldPicks.sorted { $0.value > $1.value }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")]
            }
            out.append(Output.table(["setting", "pick on all trials", "fold picks"], rows))
        }
        let paramRows = r.parameters.filter { _ in r.method == Method.separate.rawValue }.map { p -> [String] in
            let picks = p.foldPicks.sorted { $0.value > $1.value }.map { "\($0.key)×\($0.value)" }.joined(separator: " ")
            return [p.name, p.shipped, Output.fixed(p.shippedScore, 4), p.inSamplePick, Output.fixed(p.inSampleScore, 4),
                    Output.fixed(p.crossValidatedScore, 4), Output.fixed(p.crossValidatedScore - p.shippedScore, 4), picks]
        }
        if !paramRows.isEmpty {
            out.append(Output.table(["setting (tuned alone)", "shipped", "score", "in-sample pick", "score", "cross-validated",
                                     "CV − shipped", "fold picks"], paramRows))
        }
        out.append("")
        let groups = BroadEvaluation.groupOrder.filter { g in r.rows.first?.groups9D[g] != nil }
        func cell(_ e: BroadEvaluation.Errors?) -> String {
            guard let e else { return "–" }
            return "\(Output.fixed(e.total, 2)) / \(Output.fixed(e.heading, 2)) / \(Output.fixed(e.inclination, 2))"
        }
        var rows: [[String]] = []
        for row in r.rows where !row.groups9D.isEmpty {
            rows.append([row.label.hasPrefix("VQF") ? row.label : row.label + " 9D"] + groups.map { cell(row.groups9D[$0]) })
        }
        for row in r.rows where !row.groups6D.isEmpty {
            rows.append([row.label.hasPrefix("VQF") ? row.label : row.label + " 6D"] + groups.map { cell(row.groups6D[$0]) })
        }
        if let vqf9 = r.rows.first(where: { $0.label == "VQF 9D" }), let vqf6 = r.rows.first(where: { $0.label == "VQF 6D" }) {
            for row in r.rows.prefix(3) {
                rows.append(["\(row.label): 9D / VQF 9D, 6D / VQF 6D (total)"] + groups.map { g in
                    guard let a = row.groups9D[g], let b = vqf9.groups9D[g], let c = row.groups6D[g], let d = vqf6.groups6D[g] else { return "–" }
                    return "\(Output.fixed(a.total / b.total, 3)), \(Output.fixed(c.total / d.total, 3))"
                })
            }
        }
        out.append(Output.table(["(total / heading / inclination, °)"] + groups, rows))
        out.append("")
        let changedFolds = r.foldSettings.sorted { $0.key < $1.key }.map { k, v in
            [k, v.isEmpty ? "(shipped values)" : v.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")]
        }
        out.append(Output.table(["held-out trial", "values picked on the other trials (where not the shipped one)"], changedFolds))
        return out.joined(separator: "\n")
    }
}
