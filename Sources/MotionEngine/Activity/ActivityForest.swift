import Foundation

/// A random forest over ``ActivityFeature`` vectors: the activity model, as stored in
/// `Resources/activity-forest.json`.
///
/// Each tree is stored flat: for node `i`, `feature[i]` is the feature index it splits on (−1 for a
/// leaf), a sample goes to `left[i]` when its feature value is `<= threshold[i]` and to `right[i]`
/// otherwise; for a leaf, `left[i]` is the index of its class distribution in `leafValues` (five
/// numbers per leaf). The forest's probabilities are the mean of the trees' leaf distributions.
public struct ActivityForest: Sendable, Hashable, Codable {
    /// One decision tree, stored flat.
    public struct Tree: Sendable, Hashable, Codable {
        /// Per node: the `ActivityFeature.rawValue` split on, or −1 for a leaf.
        public var feature: [Int]
        /// Per node: the split threshold (features `<=` it go left); unused for leaves.
        public var threshold: [Double]
        /// Per node: the left child's index (always after the node), or for a leaf its index in ``leafValues`` ÷ 5.
        public var left: [Int]
        /// Per node: the right child's index (always after the node); unused for leaves.
        public var right: [Int]
        /// ``ActivityClass/count`` class frequencies per leaf (each group sums to 1).
        public var leafValues: [Double]

        /// A tree from its flat arrays (one entry per node; see ``ActivityForest``).
        public init(feature: [Int], threshold: [Double], left: [Int], right: [Int], leafValues: [Double]) {
            self.feature = feature
            self.threshold = threshold
            self.left = left
            self.right = right
            self.leafValues = leafValues
        }

        /// Number of nodes.
        public var nodeCount: Int { feature.count }
    }

    /// How the forest was trained (recorded in the model file for reproducibility).
    public struct TrainingParameters: Sendable, Hashable, Codable {
        /// Seed of the random generator (bootstrap samples and feature subsets).
        public var seed: UInt64
        /// Number of trees.
        public var treeCount: Int
        /// Deepest split level (root = 0).
        public var maximumDepth: Int
        /// Fewest training rows in a leaf.
        public var minimumLeafRows: Int
        /// Features tried at each split.
        public var featuresPerSplit: Int

        /// The parameters of the shipped model unless given.
        public init(seed: UInt64 = 20_240_601, treeCount: Int = 60, maximumDepth: Int = 6, minimumLeafRows: Int = 10, featuresPerSplit: Int = 5) {
            self.seed = seed
            self.treeCount = treeCount
            self.maximumDepth = maximumDepth
            self.minimumLeafRows = minimumLeafRows
            self.featuresPerSplit = featuresPerSplit
        }

        /// The parameters of the shipped model.
        public static let shipped = TrainingParameters()
    }

    /// Format tag of the model file.
    public var format: String
    /// Feature names in input order (must equal ``ActivityFeature`` names).
    public var features: [String]
    /// Class names in output order (must equal ``ActivityClass`` names).
    public var classes: [String]
    /// Grid rate the features were computed at, Hz.
    public var sampleRate: Double
    /// Samples per window.
    public var windowLength: Int
    /// How the forest was trained.
    public var training: TrainingParameters
    /// What the forest was trained on (free text: table file, row filter, row count).
    public var trainedOn: String
    /// The trees.
    public var trees: [Tree]

    /// The format tag written by this version.
    public static let formatTag = "swift-core-motion activity random forest v1"

    /// A forest of `trees`, with the current format tag, feature and class names, grid rate and
    /// window length.
    public init(training: TrainingParameters, trainedOn: String, trees: [Tree]) {
        self.format = Self.formatTag
        self.features = ActivityFeature.allCases.map(\.description)
        self.classes = ActivityClass.allCases.map(\.description)
        self.sampleRate = ActivityFeatures.sampleRate
        self.windowLength = ActivityFeatures.windowLength
        self.training = training
        self.trainedOn = trainedOn
        self.trees = trees
    }

    /// Errors found when loading or checking a model.
    public struct ModelError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, naming the file, tree and node when known.
        public var message: String
        /// An error saying `message`.
        public init(_ message: String) { self.message = message }
        /// "activity model: " and the message.
        public var description: String { "activity model: \(message)" }
    }

    /// Checks that the model matches this library's features and classes and that every tree is well
    /// formed (indices in range, leaves with five finite probabilities), so that prediction can never
    /// go out of bounds.
    public func validate() throws {
        guard format == Self.formatTag else { throw ModelError("format is \"\(format)\", expected \"\(Self.formatTag)\"") }
        guard features == ActivityFeature.allCases.map(\.description) else {
            throw ModelError("feature list does not match this library's features")
        }
        guard classes == ActivityClass.allCases.map(\.description) else {
            throw ModelError("class list does not match this library's classes")
        }
        guard sampleRate == ActivityFeatures.sampleRate, windowLength == ActivityFeatures.windowLength else {
            throw ModelError("window \(windowLength) samples at \(sampleRate) Hz, expected \(ActivityFeatures.windowLength) at \(ActivityFeatures.sampleRate) Hz")
        }
        guard !trees.isEmpty else { throw ModelError("no trees") }
        let k = ActivityClass.count
        for (t, tree) in trees.enumerated() {
            let count = tree.feature.count
            guard count > 0, tree.threshold.count == count, tree.left.count == count, tree.right.count == count,
                tree.leafValues.count % k == 0
            else { throw ModelError("tree \(t): arrays of different lengths") }
            let leaves = tree.leafValues.count / k
            for i in 0..<count {
                let f = tree.feature[i]
                if f < 0 {
                    guard tree.left[i] >= 0, tree.left[i] < leaves else { throw ModelError("tree \(t) node \(i): leaf index out of range") }
                } else {
                    guard f < ActivityFeature.count, tree.threshold[i].isFinite,
                        tree.left[i] > i, tree.left[i] < count, tree.right[i] > i, tree.right[i] < count
                    else { throw ModelError("tree \(t) node \(i): bad split") }
                }
            }
            for v in tree.leafValues where !(v.isFinite && v >= 0 && v <= 1) {
                throw ModelError("tree \(t): leaf probability \(v) outside [0, 1]")
            }
        }
    }

    /// Class probabilities for one feature vector (indexed by `ActivityFeature.rawValue`).
    /// A non-finite feature goes to the right at every split on it.
    public func probabilities(_ features: UnsafeBufferPointer<Double>) -> ActivityProbabilities {
        var p0 = 0.0, p1 = 0.0, p2 = 0.0, p3 = 0.0, p4 = 0.0
        for tree in trees {
            var i = 0
            while tree.feature[i] >= 0 {
                i = features[tree.feature[i]] <= tree.threshold[i] ? tree.left[i] : tree.right[i]
            }
            let base = tree.left[i] * ActivityClass.count
            p0 += tree.leafValues[base]
            p1 += tree.leafValues[base + 1]
            p2 += tree.leafValues[base + 2]
            p3 += tree.leafValues[base + 3]
            p4 += tree.leafValues[base + 4]
        }
        let s = p0 + p1 + p2 + p3 + p4
        guard s > 0 else { return ActivityProbabilities(stationary: 0.2, walking: 0.2, running: 0.2, cycling: 0.2, automotive: 0.2) }
        return ActivityProbabilities(stationary: p0 / s, walking: p1 / s, running: p2 / s, cycling: p3 / s, automotive: p4 / s)
    }

    /// Class probabilities for one feature vector given as an array.
    public func probabilities(_ features: [Double]) -> ActivityProbabilities {
        precondition(features.count >= ActivityFeature.count, "feature vector too short")
        return features.withUnsafeBufferPointer { probabilities($0) }
    }

    /// Total number of nodes over all trees.
    public var nodeCount: Int { trees.reduce(0) { $0 + $1.nodeCount } }

    // MARK: Loading

    /// Decodes and validates a model from JSON.
    public static func load(json: Data) throws -> ActivityForest {
        let forest: ActivityForest
        do {
            forest = try JSONDecoder().decode(ActivityForest.self, from: json)
        } catch {
            throw ModelError("cannot decode: \(error)")
        }
        try forest.validate()
        return forest
    }

    /// Loads a model file.
    public static func load(contentsOf url: URL) throws -> ActivityForest {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw ModelError("cannot read \(url.path): \(error.localizedDescription)")
        }
        do {
            return try load(json: data)
        } catch let e as ModelError {
            throw ModelError("\(url.lastPathComponent): \(e.message)")
        }
    }

    /// Name of the bundled model file (in `Sources/MotionEngine/Resources`).
    public static let bundledResourceName = "activity-forest"

    /// The model shipped with the library, loaded once.
    public static func bundled() throws -> ActivityForest {
        try bundledModel.get()
    }

    private static let bundledModel: Result<ActivityForest, ModelError> = {
        let url: URL
        do {
            url = try EngineResources.url(bundledResourceName, "json")
        } catch {
            return .failure(ModelError("\(error)"))
        }
        do {
            return .success(try load(contentsOf: url))
        } catch let e as ModelError {
            return .failure(e)
        } catch {
            return .failure(ModelError("\(error)"))
        }
    }()

    /// Encodes the model as JSON with sorted keys (the committed form: byte-identical for identical models).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }
}
