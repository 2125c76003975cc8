import Foundation
import MotionEngine
import MotionSamples

/// Runs the engine over a recording's raw samples in time order.
struct FusionRun {
    var estimator: DeviceMotionEstimator
    var frame: AttitudeFrame

    init(settings: FusionFilter.Settings, frame: AttitudeFrame) {
        estimator = DeviceMotionEstimator(settings: settings)
        self.frame = frame
    }

    /// The raw samples of `recording` merged by time; ties: gyroscope, magnetometer, accelerometer.
    static func mergedSamples(_ recording: Recording, useMagnetometer: Bool) -> [SensorSample] {
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
    mutating func process(_ samples: [SensorSample], _ body: (inout FusionRun, DeviceMotionEstimate) -> Void) {
        for s in samples {
            if let e = estimator.add(s) { body(&self, e) }
        }
        while let e = estimator.flush() { body(&self, e) }
    }
}
