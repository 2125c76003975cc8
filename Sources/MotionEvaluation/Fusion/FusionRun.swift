import Foundation
import MotionEngine
import MotionSamples

/// Runs the engine over a recording's raw samples in time order.
public struct FusionRun {
    /// The engine, fed by ``process(_:_:)``.
    public var estimator: DeviceMotionEstimator
    /// The reference frame the caller reports the attitude in.
    public var frame: AttitudeFrame

    /// A run with a fresh estimator of `settings`.
    public init(settings: FusionFilter.Settings, frame: AttitudeFrame) {
        estimator = DeviceMotionEstimator(settings: settings)
        self.frame = frame
    }

    /// The raw samples of `recording` merged by time; ties: gyroscope, magnetometer, accelerometer.
    public static func mergedSamples(_ recording: Recording, useMagnetometer: Bool) -> [SensorSample] {
        var out: [SensorSample] = []
        out.reserveCapacity(recording.accelerometer.count + recording.gyroscope.count + recording.magnetometer.count)
        var i = 0, j = 0, k = 0
        let g = recording.gyroscope, a = recording.accelerometer
        let m = useMagnetometer ? recording.magnetometer : []
        while i < g.count || j < a.count || k < m.count {
            let tg = i < g.count ? g[i].time : .infinity
            let tm = k < m.count ? m[k].time : .infinity
            let ta = j < a.count ? a[j].time : .infinity
            if tg <= tm && tg <= ta {
                out.append(.gyroscope(g[i])); i += 1
            } else if tm <= ta {
                out.append(.magnetometer(m[k])); k += 1
            } else {
                out.append(.accelerometer(a[j])); j += 1
            }
        }
        return out
    }

    /// Feeds every sample and hands each estimate to `body`.
    public mutating func process(_ samples: [SensorSample], _ body: (inout FusionRun, DeviceMotionEstimate) -> Void) {
        for s in samples {
            if let e = estimator.add(s) { body(&self, e) }
        }
        while let e = estimator.flush() { body(&self, e) }
    }
}

/// What the gait detector saw during one run, printed with `COREMOTION_TRACE_GAIT` (docs/notes/fusion.md#gait-aware-correction).
struct GaitTrace {
    /// Whether `COREMOTION_TRACE_GAIT` is set (any value).
    static let isEnabled = ProcessInfo.processInfo.environment["COREMOTION_TRACE_GAIT"] != nil

    /// Estimates made while the detector reported walking.
    private(set) var walkingEstimates = 0
    private var periods: [Double] = [], amplitudes: [Double] = [], rates: [Double] = []
    private var atPeriod: [Double] = [], atHalfPeriod: [Double] = [], impacts: [Double] = []

    /// Records the filter's gait analysis after an estimate, if it reports walking.
    mutating func record(_ filter: FusionFilter) {
        guard filter.isWalking else { return }
        walkingEstimates += 1
        let g = filter.gaitAnalysis
        periods.append(g.period)
        amplitudes.append(g.amplitude)
        rates.append(g.rotationRMS)
        atPeriod.append(g.rotationAtPeriod)
        atHalfPeriod.append(g.rotationAtHalfPeriod)
        impacts.append(g.impactRatio)
    }

    /// One line: the walking share of `estimates` and the medians of the analysis while walking.
    func summary(label: String, estimates: Int) -> String {
        func median(_ v: [Double]) -> Double { ParityEvaluation.percentile(v, 50) }
        return "\(label) walking \(fixed(100 * Double(walkingEstimates) / Double(max(1, estimates)), 1)) %"
            + " period \(fixed(median(periods), 2)) amplitude \(fixed(median(amplitudes), 3))"
            + " rotation RMS \(fixed(median(rates), 2)) at period \(fixed(median(atPeriod), 2))"
            + " at half \(fixed(median(atHalfPeriod), 2)) impact \(fixed(median(impacts), 2))"
    }
}
