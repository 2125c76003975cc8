import Foundation
import MotionEngine
import MotionRecordings

/// Runs the pedometer engine on recordings and compares it with their ground truth (Oxford, IPOL…)
/// or Apple's own pedometer (Sensor Logger): what `coremotion steps` prints.
public enum StepsEvaluation {
    /// The pedometer's figures on one recording, beside its truth and Apple's.
    public struct Result: Codable, Sendable {
        /// The recording's name.
        public var name: String
        /// Where the phone was carried, when the recording says.
        public var position: String?
        /// Steps we counted.
        public var steps: Int
        /// The true step count (annotated steps or the recording's total).
        public var truth: Int?
        /// (steps − truth) / truth, %.
        public var errorPercent: Double?
        /// Apple's pedometer's steps over its span of the recording.
        public var apple: Int?
        /// Our steps over the same span.
        public var oursOverAppleSpan: Int?
        /// (ours − Apple's) / Apple's over that span, %.
        public var appleErrorPercent: Double?
        /// Distance walked, metres.
        public var distance: Double
        /// Floors climbed up.
        public var floorsAscended: Int
        /// Floors walked down.
        public var floorsDescended: Int
        /// Seconds per metre while active.
        public var averageActivePace: Double?
        /// Seconds active.
        public var activeTime: Double
        /// Pauses, resumes and floors, as text with their times.
        public var events: [String]?
        /// Our step times, seconds.
        public var detectedStepTimes: [Double]?
        /// The annotated step times, seconds.
        public var trueStepTimes: [Double]?
        /// IPOL trials: the protocol walk's window (s), our steps and the annotated steps inside it.
        public var trialWindow: [Double]?
        /// Our steps in the protocol window.
        public var trialSteps: Int?
        /// The annotated steps in it.
        public var trialTruth: Int?
        /// (trialSteps − trialTruth) / trialTruth, %.
        public var trialErrorPercent: Double?
    }

    /// The |error| of a group of recordings (a carry position, all, a half).
    public struct Summary: Codable, Sendable {
        /// The group's name.
        public var group: String
        /// Recordings with an error.
        public var count: Int
        /// Median |error|, %.
        public var medianAbsErrorPercent: Double
        /// 90th percentile of |error|, %.
        public var p90AbsErrorPercent: Double
        /// Largest |error|, %.
        public var maxAbsErrorPercent: Double
    }

    /// What a plot of a run shows.
    public struct Trace: Sendable {
        /// (time s, |acceleration| g) of every accelerometer sample.
        public var magnitude: [(x: Double, y: Double)] = []
        /// Our step times, seconds.
        public var steps: [Double] = []
    }

    /// Runs the pedometer engine over `recording` (accelerometer, gyroscope unless `useGyroscope` is
    /// false, and barometer, in time order) and compares its steps with the recording's truth and Apple's.
    /// - Parameters:
    ///   - height: the user's height, metres (the stride model), unless `configuration` is given.
    ///   - keepTrace: also return what a plot shows.
    public static func evaluate(_ recording: Recording, name: String, height: Double?, useGyroscope: Bool = true,
                         configuration: PedometerEngine.Configuration? = nil, keepTrace: Bool) -> (Result, Trace?) {
        var engine = PedometerEngine(configuration: configuration ?? .init(userHeight: height))
        var trace = keepTrace ? Trace() : nil
        var stepTimes: [Double] = []
        var events: [String] = []
        // Merge accelerometer, gyroscope (unless --no-gyroscope) and barometer in time order.
        let acc = recording.accelerometer, baro = recording.barometer, gyro = useGyroscope ? recording.gyroscope : []
        var i = 0, j = 0, k = 0
        while i < acc.count || j < baro.count || k < gyro.count {
            if k < gyro.count && (i >= acc.count || gyro[k].time <= acc[i].time) && (j >= baro.count || gyro[k].time <= baro[j].time) {
                engine.add(.gyroscope(gyro[k])); k += 1
            } else if j < baro.count && (i >= acc.count || baro[j].time <= acc[i].time) {
                engine.add(.barometer(baro[j])); j += 1
            } else {
                engine.add(.accelerometer(acc[i]))
                if keepTrace { trace?.magnitude.append((acc[i].time, acc[i].value.norm)) }
                i += 1
            }
            while let e = engine.nextEvent() { record(e, &stepTimes, &events) }
        }
        engine.finish()
        while let e = engine.nextEvent() { record(e, &stepTimes, &events) }
        trace?.steps = stepTimes

        let ref = recording.reference
        let truth = ref.stepTotal ?? (ref.stepTimes.isEmpty ? nil : ref.stepTimes.count)
        var result = Result(
            name: name, position: recording.metadata.properties["carryPosition"], steps: stepTimes.count, truth: truth,
            errorPercent: truth.flatMap { $0 > 0 ? Double(stepTimes.count - $0) / Double($0) * 100 : nil },
            distance: engine.distance, floorsAscended: engine.floorsAscended, floorsDescended: engine.floorsDescended,
            averageActivePace: engine.averageActivePace, activeTime: engine.activeTime,
            events: events.isEmpty ? nil : events,
            detectedStepTimes: stepTimes, trueStepTimes: ref.stepTimes.isEmpty ? nil : ref.stepTimes
        )
        if let window = GaitProtocolWindow(recording) {
            let inTruth = ref.stepTimes.filter { window.truth.contains($0) }.count
            let inOurs = stepTimes.filter { window.detection.contains($0) }.count
            result.trialWindow = [window.detection.lowerBound, window.detection.upperBound]
            result.trialSteps = inOurs
            result.trialTruth = inTruth
            result.trialErrorPercent = inTruth > 0 ? Double(inOurs - inTruth) / Double(inTruth) * 100 : nil
        }
        if let first = ref.cumulativeSteps.first, let last = ref.cumulativeSteps.last, last.time > first.time {
            let apple = Int((last.value - first.value).rounded())
            let ours = stepTimes.filter { $0 > first.time && $0 <= last.time }.count
            result.apple = apple
            result.oursOverAppleSpan = ours
            result.appleErrorPercent = apple > 0 ? Double(ours - apple) / Double(apple) * 100 : nil
        }
        return (result, trace)
    }

    private static func record(_ e: PedometerEvent, _ steps: inout [Double], _ events: inout [String]) {
        switch e {
        case .step(let t, _): steps.append(t)
        case .pause(let t): events.append(String(format: "pause %.2f", t))
        case .resume(let t): events.append(String(format: "resume %.2f", t))
        case .floor(let t, let up): events.append(String(format: "floor %@ %.2f", up ? "up" : "down", t))
        }
    }

    /// Per carry position, all, the IPOL protocol walk, and two halves (alternate rows): empty for one result.
    public static func summarise(_ results: [Result]) -> [Summary] {
        func summary(_ group: String, _ rs: [Result]) -> Summary? {
            let e = rs.compactMap { $0.errorPercent }.filter(\.isFinite).map(abs).sorted()
            guard !e.isEmpty else { return nil }
            return Summary(group: group, count: e.count, medianAbsErrorPercent: percentile(e, 50),
                           p90AbsErrorPercent: percentile(e, 90), maxAbsErrorPercent: e.last ?? .nan)
        }
        guard results.count > 1 else { return [] }
        var out: [Summary] = []
        let positions = Set(results.compactMap { $0.position?.lowercased() }).sorted()
        for p in positions {
            if let s = summary(p, results.filter { $0.position?.lowercased() == p }) { out.append(s) }
        }
        if let s = summary("all", results) { out.append(s) }
        let trials = results.compactMap { r -> Double? in r.trialErrorPercent.map(abs) }.sorted()
        if !trials.isEmpty {
            out.append(Summary(group: "protocol walk (trial window)", count: trials.count, medianAbsErrorPercent: percentile(trials, 50),
                               p90AbsErrorPercent: percentile(trials, 90), maxAbsErrorPercent: trials.last ?? .nan))
            for (name, keep) in [("protocol walk, subjects 1–9", true), ("protocol walk, subjects 10–19", false)] {
                let e = results.filter { r in
                    guard let subject = Int(r.name.split(separator: "-").first ?? "") else { return false }
                    return (subject <= 9) == keep
                }.compactMap { $0.trialErrorPercent.map(abs) }.sorted()
                if !e.isEmpty {
                    out.append(Summary(group: name, count: e.count, medianAbsErrorPercent: percentile(e, 50),
                                       p90AbsErrorPercent: percentile(e, 90), maxAbsErrorPercent: e.last ?? .nan))
                }
            }
        }
        // Two halves (alternate members): the same figures on disjoint halves show how stable they are.
        if let s = summary("half A (even rows)", results.enumerated().filter { $0.offset % 2 == 0 }.map(\.element)) { out.append(s) }
        if let s = summary("half B (odd rows)", results.enumerated().filter { $0.offset % 2 == 1 }.map(\.element)) { out.append(s) }
        return out
    }

    /// Linear-interpolated percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let r = p / 100 * Double(sorted.count - 1)
        let lo = Int(r.rounded(.down)), hi = min(lo + 1, sorted.count - 1)
        return sorted[lo] + (sorted[hi] - sorted[lo]) * (r - Double(lo))
    }
}
