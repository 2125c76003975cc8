import Foundation
import MotionEngine
import MotionSamples

/// The states of a recording, its labels and their agreement.
public struct ActivityTimeline: Encodable, Sendable {
    /// A run of updates with the same activity.
    public struct Segment: Encodable, Sendable {
        /// Start, seconds from the recording's start.
        public var start: Double
        /// End, seconds from the recording's start.
        public var end: Double
        /// The activity's flags, joined by "+" (`walking+automotive`).
        public var activity: String
        /// The same, one flag each.
        public var flags: [String]
        /// The confidence of each update within the segment, in order (`medium→high`).
        public var confidence: String
        /// Core Motion's raw value of the last confidence (0 low, 1 medium, 2 high).
        public var confidenceRawValue: Int
        /// The label(s) that hold during the segment, when the recording has labels.
        public var labels: [String]?
    }

    /// How often the states name the labelled class.
    public struct Agreement: Encodable, Sendable {
        /// Windows whose labelled time maps to one of the five classes.
        public var windows: Int
        /// Fraction of those whose tracked state names the labelled class.
        public var tracked: Double
        /// Fraction of those whose most likely class (no tracking) is the labelled class.
        public var window: Double
    }

    /// The recording's source.
    public var file: String
    /// Its format's name.
    public var format: String
    /// Its duration, seconds.
    public var duration: Double
    /// Accelerometer samples read.
    public var accelerometerSamples: Int
    /// Classifier windows.
    public var estimates: Int
    /// Samples the classifier skipped (out of order, not finite).
    public var skippedSamples: Int
    /// Gaps the classifier restarted after.
    public var gaps: Int
    /// The states, one segment per run of identical flags.
    public var segments: [Segment]
    /// The agreement with the recording's labels, when it has some.
    public var agreement: Agreement?

    /// Runs the classifier (accelerometer only) and the state tracker over `recording`.
    public static func make(recording: Recording, forest: ActivityForest) -> ActivityTimeline {
        var classifier = ActivityClassifier(forest: forest)
        var tracker = ActivityTracker()
        var states: [ActivityState] = []
        var estimates = 0
        var agreeTracked = 0, agreeWindow = 0, labelled = 0
        let labels = recording.reference.activity.sorted { $0.time < $1.time }
        func label(at t: Double) -> String? {
            var found: String?
            for l in labels {
                if l.time <= t { found = l.label } else { break }
            }
            return found
        }
        for s in recording.accelerometer {
            guard let e = classifier.addAcceleration(time: s.time, value: s.value) else { continue }
            estimates += 1
            if let state = tracker.update(e) { states.append(state) }
            if let l = label(at: e.midTime), let truth = ActivityClass(label: l) {
                labelled += 1
                if tracker.current?.flags.primaryClass == truth { agreeTracked += 1 }
                if e.mostLikely == truth { agreeWindow += 1 }
            }
        }
        let end = recording.accelerometer.last?.time ?? 0
        // One segment per run of identical flags; confidence changes within it are listed in order.
        var runs: [(state: ActivityState, confidences: [ActivityConfidence])] = []
        for s in states {
            if let last = runs.last, last.state.flags == s.flags {
                runs[runs.count - 1].confidences.append(s.confidence)
            } else {
                runs.append((s, [s.confidence]))
            }
        }
        var segments: [Segment] = []
        for (i, run) in runs.enumerated() {
            let s = run.state
            let segmentEnd = i + 1 < runs.count ? runs[i + 1].state.startTime : end
            var segmentLabels: [String]?
            if !labels.isEmpty {
                var names: [String] = []
                if let first = label(at: s.startTime) { names.append(first) }
                for l in labels where l.time > s.startTime && l.time < segmentEnd && names.last != l.label { names.append(l.label) }
                segmentLabels = names
            }
            let final = run.confidences.last ?? s.confidence
            segments.append(
                Segment(
                    start: s.startTime, end: segmentEnd, activity: s.flags.description,
                    flags: s.flags.description.split(separator: "+").map(String.init),
                    confidence: run.confidences.map(\.description).joined(separator: "→"), confidenceRawValue: final.rawValue,
                    labels: segmentLabels))
        }
        let agreement = labelled > 0
            ? Agreement(windows: labelled, tracked: Double(agreeTracked) / Double(labelled), window: Double(agreeWindow) / Double(labelled))
            : nil
        return ActivityTimeline(
            file: recording.metadata.source, format: recording.metadata.format, duration: recording.duration,
            accelerometerSamples: recording.accelerometer.count, estimates: estimates,
            skippedSamples: classifier.skippedSamples, gaps: classifier.gaps, segments: segments, agreement: agreement)
    }
}
