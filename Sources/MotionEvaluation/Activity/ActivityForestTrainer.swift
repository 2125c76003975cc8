import Foundation
import MotionEngine
import MotionSimulator

/// Trains an ``ActivityForest`` from labelled feature vectors, deterministically: the same rows and
/// parameters give the same model, bit for bit, on every run and machine with IEEE-754 doubles.
///
/// The recipe is Breiman's random forest (Breiman, "Random Forests", Machine Learning 45, 2001): each
/// tree grows on a bootstrap sample of the rows, trying a random subset of the features at every split
/// and choosing the split of least Gini impurity. Candidate thresholds are the midpoints at (up to) 63
/// quantiles of each feature over the training rows, as histogram-based boosting libraries do: training
/// is linear in the rows, and thresholds cannot chase single rows. Rows are weighted so that every class present has the
/// same total weight (the data sets hold unequal durations of each activity). Depth and leaf size are
/// limited: shallow trees with large leaves generalise better across people and devices than deep ones
/// (checked on the cross-subject splits in `docs/notes/activity.md#every-split`).
///
/// Determinism: the generator is SplitMix64 seeded per tree from ``ActivityForest/TrainingParameters/seed``;
/// sorting breaks ties on row index; sums run in a fixed order.
public enum ActivityForestTrainer {
    /// One labelled feature vector.
    public struct Example: Sendable, Hashable {
        /// ``ActivityFeature/count`` finite values, by `ActivityFeature.rawValue`.
        public var features: [Double]
        /// The true class.
        public var label: ActivityClass
        /// One training example.
        public init(features: [Double], label: ActivityClass) {
            self.features = features
            self.label = label
        }
    }

    /// Trains a forest on `examples` (each with ``ActivityFeature/count`` finite features).
    /// - Parameters:
    ///   - examples: the training rows; at least two classes must be present.
    ///   - parameters: forest size and regularisation.
    ///   - trainedOn: a description stored in the model (what the rows are).
    public static func train(
        _ examples: [Example], parameters: ActivityForest.TrainingParameters = .shipped, trainedOn: String
    ) throws -> ActivityForest {
        let d = ActivityFeature.count
        let k = ActivityClass.count
        let n = examples.count
        guard n > 0 else { throw ActivityForest.ModelError("no training rows") }
        for (i, e) in examples.enumerated() {
            guard e.features.count == d else { throw ActivityForest.ModelError("row \(i): \(e.features.count) features, expected \(d)") }
            if let bad = e.features.firstIndex(where: { !$0.isFinite }) {
                throw ActivityForest.ModelError("row \(i): feature \(ActivityFeature(rawValue: bad)!) is not finite")
            }
        }
        guard parameters.treeCount > 0, parameters.maximumDepth >= 0, parameters.minimumLeafRows >= 1,
            parameters.featuresPerSplit >= 1, parameters.featuresPerSplit <= d
        else { throw ActivityForest.ModelError("invalid training parameters \(parameters)") }

        // Column-major features, labels, balanced class weights.
        var columns = [Double](repeating: 0, count: n * d)
        var labels = [Int](repeating: 0, count: n)
        var classCount = [Int](repeating: 0, count: k)
        for (i, e) in examples.enumerated() {
            for f in 0..<d { columns[f * n + i] = e.features[f] }
            labels[i] = e.label.rawValue
            classCount[e.label.rawValue] += 1
        }
        let present = classCount.filter { $0 > 0 }.count
        guard present >= 2 else { throw ActivityForest.ModelError("training rows hold \(present) class; need at least two") }
        let classWeight = classCount.map { $0 > 0 ? Double(n) / (Double(present) * Double($0)) : 0 }

        // Candidate thresholds per feature and each row's bin (number of thresholds below its value).
        var cuts: [[Double]] = []
        var bins = [UInt8](repeating: 0, count: n * d)
        for f in 0..<d {
            let sorted = columns[(f * n)..<((f + 1) * n)].sorted()
            var c: [Double] = []
            for q in 1..<maximumBins {
                let pos = q * n / maximumBins
                guard pos > 0, pos < n else { continue }
                let a = sorted[pos - 1], b = sorted[pos]
                guard a < b else { continue }
                let mid = a + (b - a) / 2
                let cut = mid < b ? mid : a
                if c.last.map({ cut > $0 }) ?? true { c.append(cut) }
            }
            cuts.append(c)
            for i in 0..<n {
                let v = columns[f * n + i]
                var lo = 0, hi = c.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if c[mid] < v { lo = mid + 1 } else { hi = mid }
                }
                bins[f * n + i] = UInt8(lo)
            }
        }
        var builder = TreeBuilder(
            bins: bins, cuts: cuts, labels: labels, classWeight: classWeight, rowCount: n, parameters: parameters)
        var trees: [ActivityForest.Tree] = []
        trees.reserveCapacity(parameters.treeCount)
        for t in 0..<parameters.treeCount {
            var rng = SplitMix64(seed: parameters.seed &+ UInt64(t) &* 0x9E37_79B9_7F4A_7C15)
            var sample = [Int](repeating: 0, count: n)
            for i in 0..<n { sample[i] = rng.nextIndex(below: n) }
            sample.sort()
            trees.append(builder.build(sample: sample, rng: &rng))
        }
        return ActivityForest(training: parameters, trainedOn: trainedOn, trees: trees)
    }

    /// At most this many bins per feature (63 candidate thresholds).
    static let maximumBins = 64

    private struct TreeBuilder {
        let bins: [UInt8]
        let cuts: [[Double]]
        let labels: [Int]
        let classWeight: [Double]
        let rowCount: Int
        let parameters: ActivityForest.TrainingParameters

        // Output of the tree being built.
        var feature: [Int] = []
        var threshold: [Double] = []
        var left: [Int] = []
        var right: [Int] = []
        var leafValues: [Double] = []
        // Split-search scratch.
        var histogram: [Double]
        var binRows: [Int]

        init(bins: [UInt8], cuts: [[Double]], labels: [Int], classWeight: [Double], rowCount: Int, parameters: ActivityForest.TrainingParameters) {
            self.bins = bins
            self.cuts = cuts
            self.labels = labels
            self.classWeight = classWeight
            self.rowCount = rowCount
            self.parameters = parameters
            histogram = [Double](repeating: 0, count: ActivityForestTrainer.maximumBins * ActivityClass.count)
            binRows = [Int](repeating: 0, count: ActivityForestTrainer.maximumBins)
        }

        mutating func build(sample: [Int], rng: inout SplitMix64) -> ActivityForest.Tree {
            feature = []
            threshold = []
            left = []
            right = []
            leafValues = []
            grow(rows: sample, depth: 0, rng: &rng)
            return ActivityForest.Tree(feature: feature, threshold: threshold, left: left, right: right, leafValues: leafValues)
        }

        private func weightedCounts(_ rows: [Int]) -> [Double] {
            var c = [Double](repeating: 0, count: ActivityClass.count)
            for r in rows { c[labels[r]] += classWeight[labels[r]] }
            return c
        }

        private static func gini(_ c: [Double], total: Double) -> Double {
            guard total > 0 else { return 0 }
            var s = 0.0
            for v in c { s += (v / total) * (v / total) }
            return 1 - s
        }

        @discardableResult
        private mutating func grow(rows: [Int], depth: Int, rng: inout SplitMix64) -> Int {
            let node = feature.count
            feature.append(-1)
            threshold.append(0)
            left.append(0)
            right.append(0)
            let counts = weightedCounts(rows)
            let total = counts.reduce(0, +)
            let pure = counts.filter { $0 > 0 }.count <= 1
            if depth < parameters.maximumDepth, rows.count >= 2 * parameters.minimumLeafRows, !pure,
                let split = bestSplit(rows: rows, counts: counts, total: total, rng: &rng)
            {
                var leftRows: [Int] = []
                var rightRows: [Int] = []
                for r in rows {
                    if Int(bins[split.feature * rowCount + r]) <= split.bin { leftRows.append(r) } else { rightRows.append(r) }
                }
                feature[node] = split.feature
                threshold[node] = cuts[split.feature][split.bin]
                left[node] = grow(rows: leftRows, depth: depth + 1, rng: &rng)
                right[node] = grow(rows: rightRows, depth: depth + 1, rng: &rng)
            } else {
                left[node] = leafValues.count / ActivityClass.count
                for v in counts { leafValues.append(total > 0 ? v / total : 1 / Double(ActivityClass.count)) }
            }
            return node
        }

        private mutating func bestSplit(rows: [Int], counts: [Double], total: Double, rng: inout SplitMix64)
            -> (feature: Int, bin: Int)?
        {
            let d = ActivityFeature.count
            let k = ActivityClass.count
            let m = rows.count
            let minLeaf = parameters.minimumLeafRows
            // Partial Fisher–Yates: the first featuresPerSplit entries are the features tried.
            var order = Array(0..<d)
            for i in 0..<parameters.featuresPerSplit {
                let j = i + rng.nextIndex(below: d - i)
                order.swapAt(i, j)
            }
            let parentImpurity = Self.gini(counts, total: total)
            var bestGain = 1e-12
            var best: (feature: Int, bin: Int)?
            var leftCounts = [Double](repeating: 0, count: k)
            for f in order.prefix(parameters.featuresPerSplit) {
                let cutCount = cuts[f].count
                guard cutCount > 0 else { continue }
                for i in 0..<((cutCount + 1) * k) { histogram[i] = 0 }
                for b in 0...cutCount { binRows[b] = 0 }
                let base = f * rowCount
                for r in rows {
                    let b = Int(bins[base + r])
                    let label = labels[r]
                    histogram[b * k + label] += classWeight[label]
                    binRows[b] += 1
                }
                for c in 0..<k { leftCounts[c] = 0 }
                var leftTotal = 0.0
                var leftRows = 0
                for j in 0..<cutCount {
                    for c in 0..<k {
                        leftCounts[c] += histogram[j * k + c]
                        leftTotal += histogram[j * k + c]
                    }
                    leftRows += binRows[j]
                    guard leftRows >= minLeaf, m - leftRows >= minLeaf, binRows[j] > 0 || j == 0 else { continue }
                    let rightTotal = total - leftTotal
                    var sl = 0.0, sr = 0.0
                    for c in 0..<k {
                        let l = leftCounts[c]
                        let r = counts[c] - l
                        sl += l * l
                        sr += r * r
                    }
                    let giniLeft = leftTotal > 0 ? 1 - sl / (leftTotal * leftTotal) : 0
                    let giniRight = rightTotal > 0 ? 1 - sr / (rightTotal * rightTotal) : 0
                    let gain = parentImpurity - (leftTotal * giniLeft + rightTotal * giniRight) / total
                    if gain > bestGain {
                        bestGain = gain
                        best = (f, j)
                    }
                }
            }
            return best
        }
    }
}

extension SplitMix64 {
    /// Uniform in 0..<bound (bound > 0), by multiply-shift (Lemire) on the top 64 bits.
    fileprivate mutating func nextIndex(below bound: Int) -> Int {
        Int(next().multipliedFullWidth(by: UInt64(bound)).high)
    }
}
