import CoreMotion
import CoreMotionTesting
import Foundation
import MotionService
import Testing
import TestSupport

/// A harness on a synthetic 100 Hz accelerometer/gyroscope/magnetometer device, 25 Hz barometer.
func syntheticHarness(
    _ rates: [SensorKind: Double] = [.accelerometer: 100, .gyroscope: 100, .magnetometer: 100, .barometer: 25],
    duration: Double? = nil
) -> MotionTestHarness {
    let clock = VirtualClock()
    let device = ScheduledDevice(name: "synthetic", source: SyntheticSource(rates: rates, duration: duration), clock: clock)
    return MotionTestHarness(device: device, clock: clock)
}

func serialQueue() -> OperationQueue {
    let q = OperationQueue()
    q.maxConcurrentOperationCount = 1
    return q
}

/// Collects handler calls from any thread.
final class Recorder<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) {
        lock.lock()
        items.append(item)
        lock.unlock()
    }
    var all: [T] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}

@Suite("CMMotionManager raw sensors on a virtual clock")
struct RawSensorBehaviourTests {
    @Test("availability follows the device's sensors")
    func availability() {
        let full = syntheticHarness()
        full.run {
            let m = CMMotionManager()
            #expect(m.isAccelerometerAvailable && m.isGyroAvailable && m.isMagnetometerAvailable)
        }
        let accelOnly = syntheticHarness([.accelerometer: 50])
        accelOnly.run {
            let m = CMMotionManager()
            #expect(m.isAccelerometerAvailable)
            #expect(!m.isGyroAvailable && !m.isMagnetometerAvailable)
            #expect(!CMPedometer.isFloorCountingAvailable())
            #expect(!CMAltimeter.isRelativeAltitudeAvailable())
            #expect(CMPedometer.isStepCountingAvailable())
        }
        let none = MotionTestHarness(device: NoDevice(clock: VirtualClock()), clock: VirtualClock())
        none.run {
            let m = CMMotionManager()
            #expect(!m.isAccelerometerAvailable && !m.isGyroAvailable && !m.isMagnetometerAvailable && !m.isDeviceMotionAvailable)
            #expect(CMMotionManager.availableAttitudeReferenceFrames().isEmpty)
        }
    }

    @Test("intervals are clamped at the fast end only; the getter returns the interval in effect")
    func intervalClamp() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            #expect(m.accelerometerUpdateInterval == 0.01)  // default
            m.accelerometerUpdateInterval = 0.0001
            #expect(m.accelerometerUpdateInterval == 0.01)  // fastest: the 100 Hz device period
            m.accelerometerUpdateInterval = 0.05
            #expect(m.accelerometerUpdateInterval == 0.05)
            // No slowest interval: Apple documents a cap only at the hardware's maximum frequency
            // (https://developer.apple.com/documentation/coremotion/cmmotionmanager/accelerometerupdateinterval).
            m.accelerometerUpdateInterval = 30
            #expect(m.accelerometerUpdateInterval == 30)
            m.deviceMotionUpdateInterval = 2.5
            #expect(m.deviceMotionUpdateInterval == 2.5)
            m.accelerometerUpdateInterval = .infinity
            #expect(m.accelerometerUpdateInterval == .greatestFiniteMagnitude)
            m.gyroUpdateInterval = -3
            #expect(m.gyroUpdateInterval == 0.01)
            m.magnetometerUpdateInterval = .nan
            #expect(m.magnetometerUpdateInterval == 0.01)
        }
    }

    @Test("pull properties are nil until the first sample, then hold the latest")
    func pullNilUntilFirstSample() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            #expect(m.accelerometerData == nil && m.gyroData == nil && m.magnetometerData == nil)
            m.startAccelerometerUpdates()
            #expect(m.isAccelerometerActive)
            #expect(m.accelerometerData == nil)
            h.advance(by: 0.5)
            let latest = m.accelerometerData
            #expect(latest != nil)
            #expect(abs((latest?.timestamp ?? 0) - h.now) <= 0.01)
            #expect(m.gyroData == nil)  // gyro not started
            m.stopAccelerometerUpdates()
            #expect(!m.isAccelerometerActive)
        }
    }

    @Test("push delivers one call per sample, in timestamp order, on the given queue, at the interval")
    func pushOrderAndRate() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let queue = serialQueue()
            let calls = Recorder<(Double, Double)>()
            m.accelerometerUpdateInterval = 0.01
            m.startAccelerometerUpdates(to: queue) { data, error in
                #expect(error == nil)
                if let data { calls.append((data.timestamp, data.acceleration.x)) }
            }
            h.advance(by: 2)
            m.stopAccelerometerUpdates()
            let all = calls.all
            #expect(all.count >= 199 && all.count <= 201)  // 100 Hz for 2 s
            #expect(zip(all.dropFirst(), all).allSatisfy { $0.0 > $1.0 })
            // Consecutive sample indices: nothing lost, nothing duplicated.
            #expect(zip(all.dropFirst(), all).allSatisfy { $0.1 == $1.1 + 1 })
            let steps = zip(all.dropFirst(), all).map { $0.0 - $1.0 }
            #expect(steps.allSatisfy { abs($0 - 0.01) < 1e-9 })
        }
    }

    @Test("a slower interval thins the stream evenly")
    func decimation() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let calls = Recorder<Double>()
            m.gyroUpdateInterval = 0.1
            m.startGyroUpdates(to: serialQueue()) { data, _ in if let data { calls.append(data.timestamp) } }
            h.advance(by: 3)
            m.stopGyroUpdates()
            let t = calls.all
            #expect(t.count >= 29 && t.count <= 31)
            let steps = zip(t.dropFirst(), t).map { $0 - $1 }
            #expect(steps.allSatisfy { abs($0 - 0.1) < 1e-6 })
        }
    }

    @Test("intervals longer than 1 s are honoured: the first sample at once, then one per interval")
    func longIntervals() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let accelerometer = Recorder<Double>()
            let gyro = Recorder<Double>()
            let motion = Recorder<Double>()
            m.accelerometerUpdateInterval = 5
            m.gyroUpdateInterval = 2
            m.deviceMotionUpdateInterval = 1.5
            let queue = serialQueue()
            m.startAccelerometerUpdates(to: queue) { data, _ in if let data { accelerometer.append(data.timestamp) } }
            m.startGyroUpdates(to: queue) { data, _ in if let data { gyro.append(data.timestamp) } }
            m.startDeviceMotionUpdates(to: queue) { data, _ in if let data { motion.append(data.timestamp) } }
            h.advance(by: 12.5)
            m.stopAccelerometerUpdates()
            m.stopGyroUpdates()
            m.stopDeviceMotionUpdates()
            func steps(_ t: [Double]) -> [Double] { zip(t.dropFirst(), t).map { $0 - $1 } }
            #expect(accelerometer.all.count == 3)  // 0, 5, 10 s
            #expect(gyro.all.count == 7)  // 0, 2, …, 12 s
            #expect(motion.all.count >= 8 && motion.all.count <= 9)  // 0, 1.5, …, 12 s
            #expect(steps(accelerometer.all).allSatisfy { abs($0 - 5) < 1e-6 })
            #expect(steps(gyro.all).allSatisfy { abs($0 - 2) < 1e-6 })
            #expect(steps(motion.all).allSatisfy { abs($0 - 1.5) < 1e-6 })
        }
    }

    @Test("a slow handler loses nothing")
    func slowHandlerLosesNothing() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let calls = Recorder<Double>()
            m.startAccelerometerUpdates(to: serialQueue()) { data, _ in
                if let data {
                    if calls.all.count % 50 == 0 { Thread.sleep(forTimeInterval: 0.002) }
                    calls.append(data.acceleration.x)
                }
            }
            h.advance(by: 5)
            m.stopAccelerometerUpdates()
            let x = calls.all
            #expect(x.count >= 499 && x.count <= 501)
            #expect(zip(x.dropFirst(), x).allSatisfy { $0 == $1 + 1 })
        }
    }

    @Test("stopping turns that sensor's waiting operations into no-ops")
    func stopCancelsPending() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let queue = serialQueue()
            queue.isSuspended = true
            let accel = Recorder<Double>()
            let gyro = Recorder<Double>()
            m.startAccelerometerUpdates(to: queue) { data, _ in if let data { accel.append(data.timestamp) } }
            m.startGyroUpdates(to: queue) { data, _ in if let data { gyro.append(data.timestamp) } }
            h.clock.advance(by: 1)  // 100 operations each wait on the suspended queue
            m.stopAccelerometerUpdates()
            queue.isSuspended = false
            queue.waitUntilAllOperationsAreFinished()
            #expect(accel.all.isEmpty)
            #expect(gyro.all.count >= 99)  // the gyro stream was not stopped
            m.stopGyroUpdates()
        }
    }

    @Test("starting an unavailable sensor does nothing")
    func startUnavailable() {
        let h = syntheticHarness([.accelerometer: 100])
        h.run {
            let m = CMMotionManager()
            let calls = Recorder<Int>()
            m.startMagnetometerUpdates(to: serialQueue()) { _, _ in calls.append(1) }
            m.startGyroUpdates()
            #expect(!m.isMagnetometerActive && !m.isGyroActive)
            h.advance(by: 1)
            #expect(calls.all.isEmpty)
            #expect(m.gyroData == nil && m.magnetometerData == nil)
        }
    }

    @Test("several managers share the hardware: fastest rate runs, each gets its own interval")
    func sharedHardware() {
        let h = syntheticHarness([.accelerometer: 200])
        h.run {
            let fast = CMMotionManager()
            let slow = CMMotionManager()
            fast.accelerometerUpdateInterval = 0.005
            slow.accelerometerUpdateInterval = 0.05
            let f = Recorder<Double>()
            let s = Recorder<Double>()
            slow.startAccelerometerUpdates(to: serialQueue()) { d, _ in if let d { s.append(d.timestamp) } }
            #expect(h.service.activeRate(.accelerometer) == 200)  // the replayed device has one rate
            fast.startAccelerometerUpdates(to: serialQueue()) { d, _ in if let d { f.append(d.timestamp) } }
            h.advance(by: 2)
            #expect(f.all.count >= 399 && f.all.count <= 401)
            #expect(s.all.count >= 39 && s.all.count <= 41)
            fast.stopAccelerometerUpdates()
            h.advance(by: 1)
            #expect(s.all.count >= 59 && s.all.count <= 61)  // the other manager keeps its stream
            slow.stopAccelerometerUpdates()
            #expect(h.service.activeRate(.accelerometer) == nil)  // nobody needs it: off
        }
    }

    @Test("timestamps are on the clock of the device (systemUptime base on real hardware)")
    func timestampsOnClock() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let calls = Recorder<Double>()
            let start = h.now
            m.startMagnetometerUpdates(to: serialQueue()) { d, _ in if let d { calls.append(d.timestamp) } }
            h.advance(by: 1)
            m.stopMagnetometerUpdates()
            #expect(!calls.all.isEmpty && calls.all.allSatisfy { $0 >= start && $0 <= h.now + 1e-9 })
        }
    }

    @Test("past the bound, the oldest waiting samples are dropped and counted")
    func memoryBound() {
        let queue = serialQueue()
        queue.isSuspended = true
        let seen = Recorder<Int>()
        let delivery = QueueDelivery<Int>(queue: queue, capacity: 10, label: "test") { seen.append($0) }
        for i in 0..<25 { delivery.deliver(i) }
        #expect(delivery.droppedCount == 15)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        #expect(seen.all == Array(15..<25))
    }

    @Test("managers and threads starting, stopping and reading concurrently (thread-sanitizer clean)")
    func concurrentUse() async {
        let h = syntheticHarness()
        let stop = Recorder<Bool>()
        await h.run {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for _ in 0..<40 {
                        h.advance(by: 0.05, timeout: 5)
                    }
                    stop.append(true)
                }
                for worker in 0..<4 {
                    group.addTask {
                        let m = CMMotionManager()
                        let q = OperationQueue()
                        let calls = Recorder<Double>()
                        while stop.all.isEmpty {
                            m.accelerometerUpdateInterval = worker % 2 == 0 ? 0.01 : 0.02
                            m.startAccelerometerUpdates(to: q) { d, _ in if let d { calls.append(d.timestamp) } }
                            m.startGyroUpdates()
                            _ = m.gyroData
                            _ = m.accelerometerData
                            _ = m.isAccelerometerActive
                            m.stopGyroUpdates()
                            m.stopAccelerometerUpdates()
                            await Task.yield()
                        }
                        drain(q)
                    }
                }
            }
        }
        #expect(h.service.activeRate(.accelerometer) == nil)
    }
}

/// Waits for a queue from any context.
func drain(_ queue: OperationQueue) { queue.waitUntilAllOperationsAreFinished() }
