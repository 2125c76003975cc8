import Foundation
import MotionEngine
import MotionSamples

/// Transformations of a recording that widen the training data beyond the few people recorded:
/// people walk, run and pedal at other cadences and with other intensities, and phones sit more or
/// less tightly in pockets.
///
/// A variant replays the recording `speed` times faster (every cadence and vibration frequency times
/// `speed`) and scales the dynamic part of the acceleration (the signal minus its 1 s centred moving
/// average, which is mostly gravity) by `gain`. Variants are applied to the raw samples before feature
/// extraction; evaluations never test on them.
public enum ActivityAugmentation {
    /// One transformation.
    public struct Variant: Sendable, Hashable, Codable {
        /// Playback speed factor (> 0): 1.25 makes every frequency 25 % higher.
        public var speed: Double
        /// Gain on the acceleration minus its 1 s moving average.
        public var gain: Double

        /// A variant with this playback speed factor and gain.
        public init(speed: Double, gain: Double) {
            self.speed = speed
            self.gain = gain
        }

        /// The recording as it is.
        public static let original = Variant(speed: 1, gain: 1)

        /// Name written in the feature table (`original`, `speed0.8`, `gain1.4`, `speed1.25-gain0.7`).
        public var name: String {
            var parts: [String] = []
            if speed != 1 { parts.append("speed\(Self.short(speed))") }
            if gain != 1 { parts.append("gain\(Self.short(gain))") }
            return parts.isEmpty ? "original" : parts.joined(separator: "-")
        }

        private static func short(_ v: Double) -> String {
            var s = String(format: "%.3f", v)
            while s.hasSuffix("0") { s.removeLast() }
            if s.hasSuffix(".") { s.removeLast() }
            return s
        }
    }

    /// The variants of the shipped training table: the original, cadence ×0.9 and ×1.1, intensity ×0.8
    /// and ×1.25. Wider variants (cadence ×0.8/×1.25, intensity ×0.7/×1.4) blurred walking into running
    /// and lowered every cross-subject score (see `docs/notes/activity.md#what-the-figures-say`).
    public static let trainingVariants: [Variant] = [
        .original,
        Variant(speed: 0.9, gain: 1),
        Variant(speed: 1.1, gain: 1),
        Variant(speed: 1, gain: 0.8),
        Variant(speed: 1, gain: 1.25),
    ]

    /// Extra variants of the cycling recordings: cadence ×1.3 and ×1.6. QROWD's riders pedal at
    /// 47–56 rpm (the acceleration direction's period 1.1–1.3 s), slower than most riders (60–90 rpm).
    public static let cyclingCadenceVariants: [Variant] = [
        Variant(speed: 1.3, gain: 1),
        Variant(speed: 1.6, gain: 1),
    ]

    /// The variants of a recording labelled `label` in the training table: ``trainingVariants``, and
    /// for cycling ``cyclingCadenceVariants`` as well.
    public static func trainingVariants(for label: ActivityClass) -> [Variant] {
        label == .cycling ? trainingVariants + cyclingCadenceVariants : trainingVariants
    }

    /// Applies `variant` to accelerometer samples (seconds, g; strictly increasing times).
    public static func apply(_ variant: Variant, to samples: [TimedVector]) -> [TimedVector] {
        guard variant != .original, samples.count > 1 else { return samples }
        let n = samples.count
        // Half-width of the 1 s moving average, in samples, from the median interval.
        var intervals = (1..<n).map { samples[$0].time - samples[$0 - 1].time }
        intervals.sort()
        let dt = max(intervals[intervals.count / 2], 1e-4)
        let half = max(1, Int((0.5 / dt).rounded()))
        var prefix = [Vector3](repeating: .zero, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + samples[i].value }
        var out: [TimedVector] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            let lo = max(0, i - half), hi = min(n - 1, i + half)
            let mean = (prefix[hi + 1] - prefix[lo]) / Double(hi - lo + 1)
            let value = mean + variant.gain * (samples[i].value - mean)
            out.append(TimedVector(time: samples[i].time / variant.speed, value: value))
        }
        return out
    }
}
