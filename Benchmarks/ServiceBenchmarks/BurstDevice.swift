import Foundation
import MotionSamples

/// An accelerometer that delivers `rate` samples a second in batches of 1000, stamped on the system clock:
/// a source faster than any sensor, to measure what the delivery path can carry.
final class BurstDevice: MotionDevice, @unchecked Sendable {
    let name = "burst"
    let clock: any MotionClock = SystemClock.shared
    let rate: Double
    private let lock = NSLock()
    private var running = false
    private var generation = 0

    init(rate: Double) {
        self.rate = rate
    }

    var sensors: [SensorKind: SensorDescription] {
        [.accelerometer: SensorDescription(kind: .accelerometer, name: "burst", minimumRate: rate, maximumRate: rate)]
    }

    func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        lock.lock()
        generation += 1
        let mine = generation
        let start = rates[.accelerometer] != nil
        running = start
        lock.unlock()
        guard start else { return }
        let batch = 1000
        let period = Double(batch) / rate
        Thread.detachNewThread { [self] in
            var next = clock.now
            var index = 0.0
            while true {
                lock.lock()
                let go = running && generation == mine
                lock.unlock()
                if !go { return }
                let now = clock.now
                if now < next { Thread.sleep(forTimeInterval: next - now) }
                let t = clock.now
                for _ in 0..<batch {
                    index += 1
                    sink(.accelerometer(TimedVector(time: t, value: Vector3(index, 0, -1))))
                }
                next += period
            }
        }
    }
}
