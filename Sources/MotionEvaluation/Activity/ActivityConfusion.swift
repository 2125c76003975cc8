import Foundation
import MotionEngine

/// A confusion matrix over ``ActivityClass`` plus a column for "no class" (unclassified or unknown
/// predictions), with per-class and macro F1.
public struct ActivityConfusion: Sendable, Hashable, Codable {
    /// `counts[truth][predicted]`; predicted index ``ActivityClass/count`` means no class.
    public var counts: [[Int]]

    /// An empty matrix.
    public init() {
        counts = Array(repeating: Array(repeating: 0, count: ActivityClass.count + 1), count: ActivityClass.count)
    }

    /// Counts one window.
    public mutating func add(truth: ActivityClass, predicted: ActivityClass?) {
        counts[truth.rawValue][predicted?.rawValue ?? ActivityClass.count] += 1
    }

    /// Adds another matrix's counts.
    public mutating func merge(_ other: ActivityConfusion) {
        for t in 0..<counts.count {
            for p in 0..<counts[t].count { counts[t][p] += other.counts[t][p] }
        }
    }

    /// Number of windows whose truth is `c`.
    public func support(_ c: ActivityClass) -> Int { counts[c.rawValue].reduce(0, +) }

    /// Total windows.
    public var total: Int { counts.joined().reduce(0, +) }

    /// Fraction of windows predicted right.
    public var accuracy: Double {
        let right = ActivityClass.allCases.reduce(0) { $0 + counts[$1.rawValue][$1.rawValue] }
        return total > 0 ? Double(right) / Double(total) : .nan
    }

    /// F1 of class `c` (harmonic mean of precision and recall); NaN when `c` is neither true nor predicted.
    public func f1(_ c: ActivityClass) -> Double {
        let i = c.rawValue
        let tp = counts[i][i]
        let fn = counts[i].reduce(0, +) - tp
        let fp = counts.map { $0[i] }.reduce(0, +) - tp
        let denominator = 2 * tp + fp + fn
        return denominator > 0 ? 2 * Double(tp) / Double(denominator) : .nan
    }

    /// Mean F1 over `classes` (by default the classes present in the truth).
    public func macroF1(over classes: [ActivityClass]? = nil) -> Double {
        let over = classes ?? ActivityClass.allCases.filter { support($0) > 0 }
        guard !over.isEmpty else { return .nan }
        return over.map { f1($0) }.reduce(0, +) / Double(over.count)
    }

    /// The matrix as a Markdown table (rows: truth, columns: prediction), over `classes` (by default those
    /// present). Predictions of a class not shown are counted in an `other` column; predictions of no class
    /// in a `none` column (each only when non-zero), so every row adds up to the class's support.
    public func markdown(classes: [ActivityClass]? = nil) -> String {
        let rowsShown = classes ?? ActivityClass.allCases.filter { support($0) > 0 }
        let columnsShown = classes ?? ActivityClass.allCases.filter { c in support(c) > 0 || counts.contains { $0[c.rawValue] > 0 } }
        let hidden = ActivityClass.allCases.filter { !columnsShown.contains($0) }
        func other(_ t: ActivityClass) -> Int { hidden.reduce(0) { $0 + counts[t.rawValue][$1.rawValue] } }
        let showOther = rowsShown.contains { other($0) > 0 }
        let showNone = rowsShown.contains { counts[$0.rawValue][ActivityClass.count] > 0 }
        var header = ["truth \\ predicted"] + columnsShown.map(\.description)
        if showOther { header.append("other") }
        if showNone { header.append("none") }
        header += ["F1"]
        var lines = ["| " + header.joined(separator: " | ") + " |", "|" + String(repeating: "---|", count: header.count)]
        for t in rowsShown {
            var cells = [t.description] + columnsShown.map { String(counts[t.rawValue][$0.rawValue]) }
            if showOther { cells.append(String(other(t))) }
            if showNone { cells.append(String(counts[t.rawValue][ActivityClass.count])) }
            cells.append(String(format: "%.3f", f1(t)))
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n")
    }
}
