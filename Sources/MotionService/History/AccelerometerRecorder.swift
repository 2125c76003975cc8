import Foundation
import MotionHistory

/// The service's lazily made background recorders.
final class Recorders: @unchecked Sendable {  // @unchecked: every var is read and written only under `lock`
    let lock = NSLock()
    var accelerometer: AccelerometerRecorder?
    var deviceMotion: DeviceMotionHub?
    var deviceMotionIDs = 0
    var pedometer: PedometerRecorder?
    var activity: ActivityRecorder?
}

/// Records the accelerometer at 50 Hz into the history while a recording request is in force (the
/// engine behind `CMSensorRecorder`). Recording happens while this process runs: requests are kept in
/// the history, so a later process using the same device resumes a request that has not ended.
final class AccelerometerRecorder: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`; `service` is weak and never reassigned
    /// Apple's recording rate, Hz.
    static let rate = 50.0

    private weak var service: MotionService?
    private let lock = NSLock()
    private var subscription: SensorSubscription?
    private var end = Date.distantPast
    private var pending: [AccelerometerRecord] = []
    /// A `record(until:)` is subscribing: another one only extends ``end``.
    private var starting = false
    /// The recording expired while it was subscribing: the new subscription is cancelled at once.
    private var cancelWhenSubscribed = false

    init(service: MotionService) {
        self.service = service
    }

    /// Records until `end` (extending a running recording).
    func record(until end: Date) {
        guard let service else { return }
        lock.lock()
        self.end = max(self.end, end)
        let running = subscription != nil || starting
        if starting { cancelWhenSubscribed = false }  // extended before the subscription was in place
        if !running { starting = true }
        lock.unlock()
        guard !running else { return }
        // Recording for the history: samples may come in batches (MotionService.backgroundLatency).
        let s = service.subscribe(to: .accelerometer, interval: 1 / Self.rate, maximumLatency: MotionService.backgroundLatency) { [weak self] sample in
            self?.receive(sample)
        }
        lock.lock()
        starting = false
        let cancelNow = cancelWhenSubscribed
        cancelWhenSubscribed = false
        if !cancelNow { subscription = s }
        lock.unlock()
        if cancelNow, let s { service.cancel(s) }
    }

    private func receive(_ sample: SensorSample) {
        guard case .accelerometer(let v) = sample, let service else { return }
        let date = service.date(at: v.time)
        lock.lock()
        let expired = date >= end
        if !expired { pending.append(AccelerometerRecord(date: date, acceleration: v.value)) }
        let batch = pending.count >= 50 || expired ? pending : []
        if !batch.isEmpty { pending.removeAll(keepingCapacity: true) }
        var finished: SensorSubscription?
        if expired {
            finished = subscription
            subscription = nil
            if finished == nil && starting { cancelWhenSubscribed = true }
        }
        lock.unlock()
        if !batch.isEmpty { append(batch) }
        if let finished {
            // Samples are delivered under the service's lock: unsubscribe from outside it.
            DispatchQueue.global().async { service.cancel(finished) }
        }
    }

    private func append(_ batch: [AccelerometerRecord]) {
        guard let service, let history = service.history else { return }
        do {
            try history.append(contentsOf: batch, source: service.historySource)
        } catch {
            service.logger.error("recording the accelerometer failed: \(error)")
        }
    }

    /// Hands samples still held here to the history.
    func flush() {
        lock.lock()
        let batch = pending
        pending.removeAll()
        lock.unlock()
        if !batch.isEmpty { append(batch) }
    }
}

extension MotionService {
    private var accelerometerRecorder: AccelerometerRecorder {
        recorders.lock.lock()
        defer { recorders.lock.unlock() }
        if let r = recorders.accelerometer { return r }
        let r = AccelerometerRecorder(service: self)
        recorders.accelerometer = r
        return r
    }

    /// Records the accelerometer at 50 Hz for `duration` seconds from now (at most 12 hours) into the
    /// history.
    ///
    /// - Throws: ``MotionProviderError/historyUnavailable(_:)``, or the history's error for a bad duration.
    public func recordAccelerometer(forDuration duration: TimeInterval) throws {
        guard let history else { throw MotionProviderError.historyUnavailable(historyProblem ?? "unknown reason") }
        let start = date(at: clock.now)
        let request = try history.addAccelerometerRecording(from: start, duration: duration, source: historySource)
        if has(.accelerometer) { accelerometerRecorder.record(until: request.end) }
    }

    /// Resumes recording when an earlier request of this device is still in force.
    public func resumeAccelerometerRecording() {
        guard has(.accelerometer), let history else { return }
        let now = date(at: clock.now)
        if let end = try? history.accelerometerRecordingEnd(activeAt: now, source: historyQuerySource) {
            accelerometerRecorder.record(until: end)
        }
    }

    /// The recorded accelerometer samples of this device between the dates (a span of at most 12 h).
    public func recordedAccelerometer(from start: Date, to end: Date) throws -> [RecordedAccelerometerSample] {
        guard let history else { throw MotionProviderError.historyUnavailable(historyProblem ?? "unknown reason") }
        recorders.lock.lock()
        let recorder = recorders.accelerometer
        recorders.lock.unlock()
        recorder?.flush()
        return try history.accelerometerSamples(from: start, to: end, source: historyQuerySource)
    }
}
