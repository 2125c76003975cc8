import CoreMotion
import Foundation

/// App code as an iOS developer writes it: counts strides from accelerometer peaks and keeps a running
/// tally, updated from a Core Motion handler on its own queue. Nothing in it knows about Linux,
/// recordings or virtual clocks.
final class StrideMeter: @unchecked Sendable {
    private let motion = CMMotionManager()
    private let queue: OperationQueue = {
        let q = OperationQueue()
        q.maxConcurrentOperationCount = 1
        return q
    }()
    private(set) var strides = 0
    private(set) var samples = 0
    private(set) var timestamps: [TimeInterval] = []
    private(set) var peakMagnitude = 0.0
    private var lastPeak: TimeInterval = -1
    private var above = false

    var isAvailable: Bool { motion.isAccelerometerAvailable }

    func start() {
        motion.accelerometerUpdateInterval = 1.0 / 50.0
        motion.startAccelerometerUpdates(to: queue) { [weak self] data, error in
            guard let self, let data, error == nil else { return }
            let a = data.acceleration
            let magnitude = (a.x * a.x + a.y * a.y + a.z * a.z).squareRoot()
            self.samples += 1
            self.timestamps.append(data.timestamp)
            self.peakMagnitude = max(self.peakMagnitude, magnitude)
            // A stride: the magnitude rises through 1.15 g, at most one per 0.3 s.
            if magnitude > 1.15 && !self.above && data.timestamp - self.lastPeak > 0.3 {
                self.strides += 1
                self.lastPeak = data.timestamp
            }
            self.above = magnitude > 1.15
        }
    }

    func stop() { motion.stopAccelerometerUpdates() }
}
