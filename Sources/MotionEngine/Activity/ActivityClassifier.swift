import Foundation

/// Classifies what the person carrying the device is doing, from the accelerometer alone.
///
/// Feed it raw samples in Apple's axes and units (acceleration in g, times in seconds on the device
/// clock) at any rate; every ``hopSamples`` grid samples (1.28 s by default) once a full 5.12 s
/// window is in, ``add(_:)`` returns an ``ActivityEstimate`` with the class probabilities of the last
/// window. Pass the estimates to an ``ActivityTracker`` for Apple-style state changes.
///
/// - The input is resampled to 25 Hz (``AccelerationResampler``) so that the model sees the same signal
///   from a 25 Hz Android phone and a 100 Hz iPhone.
/// - Features (``ActivityFeature``) are orientation-invariant: the phone may be in a pocket, a bag, a hand
///   or a car mount, in any orientation.
/// - The gyroscope, magnetometer and barometer are ignored (`add` returns `nil`): the model needs only
///   the accelerometer, which every device has.
/// - Bad input: non-finite samples and samples that go back in time are skipped; a silence longer than
///   1 s restarts the window, so no estimate mixes data from both sides of a gap.
///
/// Pure and allocation-free per sample after `init`: the buffers are sized once.
public struct ActivityClassifier: Sendable {
    /// The model.
    public let forest: ActivityForest
    private var stream: ActivityFeatureStream

    /// Grid samples between estimates (at 25 Hz; 32 = 1.28 s).
    public var hopSamples: Int { stream.hopSamples }
    /// Number of input samples skipped as not finite or not later than the previous one.
    public var skippedSamples: Int { stream.skippedSamples }
    /// Number of gaps longer than 1 s after which the window restarted.
    public var gaps: Int { stream.gaps }
    /// The features of the window behind the last estimate, by `ActivityFeature.rawValue`.
    public var lastFeatures: [Double] { stream.features }

    /// A classifier with the model shipped in the library.
    /// - Parameter hopSamples: grid samples (at 25 Hz) between estimates, at least 1.
    public init(hopSamples: Int = 32) throws {
        self.init(forest: try ActivityForest.bundled(), hopSamples: hopSamples)
    }

    /// A classifier with a given (validated) model.
    /// - Parameters:
    ///   - forest: the model, for example ``ActivityForest/bundled()`` or one trained with
    ///     `ActivityForestTrainer` (MotionEvaluation).
    ///   - hopSamples: grid samples (at 25 Hz) between estimates, at least 1.
    public init(forest: ActivityForest, hopSamples: Int = 32) {
        self.forest = forest
        stream = ActivityFeatureStream(hopSamples: hopSamples)
    }

    /// Forgets the current window (the model stays).
    public mutating func reset() { stream.reset() }

    /// Adds one sensor sample; returns an estimate when a window hop completes.
    public mutating func add(_ sample: SensorSample) -> ActivityEstimate? {
        guard case .accelerometer(let a) = sample else { return nil }
        return addAcceleration(time: a.time, value: a.value)
    }

    /// Adds one accelerometer sample (time in seconds, acceleration including gravity in g, Apple's sign);
    /// returns an estimate when a window hop completes.
    public mutating func addAcceleration(time: Double, value: Vector3) -> ActivityEstimate? {
        guard let end = stream.add(time: time, value: value) else { return nil }
        let p = stream.withFeatures { forest.probabilities($0) }
        return ActivityEstimate(time: end, windowDuration: ActivityFeatures.windowDuration, probabilities: p)
    }
}

/// Accelerometer samples in, a feature vector out every hop: the resampler, the window and the hop
/// counter shared by ``ActivityClassifier`` and the training-table extraction, so that training and
/// use see exactly the same features.
public struct ActivityFeatureStream: Sendable {
    /// Grid samples between feature vectors (at 25 Hz).
    public let hopSamples: Int
    private var resampler: AccelerationResampler
    private var extractor = ActivityFeatures()
    /// The last feature vector, by `ActivityFeature.rawValue`.
    public private(set) var features: [Double]
    private var sinceWindow: Int
    private var ready: Double?
    /// Number of input samples skipped as not finite or not later than the previous one.
    public private(set) var skippedSamples = 0
    /// Number of gaps longer than 1 s after which the window restarted.
    public private(set) var gaps = 0

    /// - Parameter hopSamples: grid samples (at 25 Hz) between feature vectors, at least 1.
    public init(hopSamples: Int = 32) {
        self.hopSamples = max(1, hopSamples)
        resampler = AccelerationResampler(rate: ActivityFeatures.sampleRate, maximumGap: 1.0)
        features = [Double](repeating: 0, count: ActivityFeature.count)
        sinceWindow = max(1, hopSamples)
    }

    /// Forgets the current window.
    public mutating func reset() {
        resampler.reset()
        extractor.reset()
        sinceWindow = hopSamples
    }

    /// Calls `body` with the last feature vector without copying it.
    public func withFeatures<R>(_ body: (UnsafeBufferPointer<Double>) -> R) -> R {
        features.withUnsafeBufferPointer(body)
    }

    /// Adds one accelerometer sample (seconds, g). When a hop completes, computes ``features`` and
    /// returns the time of the window's last grid sample, seconds; otherwise returns `nil`.
    public mutating func add(time: Double, value: Vector3) -> Double? {
        ready = nil
        var r = resampler
        let outcome = r.add(time: time, value: value) { gridTime, a in self.pushGrid(time: gridTime, value: a) }
        resampler = r
        switch outcome {
        case .skipped:
            skippedSamples += 1
        case .gap:
            gaps += 1
            extractor.reset()
            sinceWindow = hopSamples
        case .accepted:
            break
        }
        return ready
    }

    private mutating func pushGrid(time: Double, value: Vector3) {
        extractor.push(value)
        if sinceWindow < hopSamples { sinceWindow += 1 }
        guard extractor.isWindowFull, sinceWindow >= hopSamples else { return }
        sinceWindow = 0
        extractor.compute(into: &features)
        ready = time
    }
}
