import Foundation

/// A headphone device fed by a live source that pushes samples as they arrive: a network receiver (Sensor
/// Logger's `headphone` readings), a head-worn IMU fused in this process, a Bluetooth headset.
///
/// The source calls ``receive(_:)`` with each sample, in time order, already in Apple's units and axes and
/// stamped on ``clock`` (see ``HeadphoneMotionSample``), and ``finish(reason:)`` when it stops for good or
/// ``disconnect(reason:)`` when it knows the headset went away. The device applies the connection rule of
/// every headphone source: the first sample connects; when no sample *arrives* for longer than
/// ``gapThreshold`` (measured on ``clock``, by a ``DueTimeDriver`` thread on the system clock while
/// connected, or on every step of a virtual clock) it disconnects, stamped at the last arrival + the
/// threshold; the next sample connects again. A sample not later than the previous one is dropped (counted
/// in ``droppedCount``): a network source reorders its readings before pushing them.
///
/// A source that paces its samples and says itself when the headset goes away (Sensor Logger's receiver:
/// `MotionNetwork.SensorLoggerHeadphones`) passes no threshold (`nil`): the device then has no watchdog
/// and follows the source's ``disconnect(reason:)`` and ``finish(reason:)`` only.
public final class LiveHeadphoneDevice: HeadphoneDevice, @unchecked Sendable {  // @unchecked: every stored var is guarded by `stateLock`
    public let name: String
    public let clock: any MotionClock
    public let rate: Double
    /// A silence longer than this (seconds, on ``clock``) disconnects; `nil`: only the source disconnects.
    public let gapThreshold: TimeInterval?

    // State, guarded by `stateLock` (never held while delivering).
    private let stateLock = NSLock()
    private var connected = false
    private var lastArrival = -Double.infinity
    private var lastSampleTime = -Double.infinity
    private var sink: HeadphoneEventSink?
    private var dropped = 0
    /// The gap watchdog (busy while connected), when there is a threshold.
    private let watchdog: DueTimeDriver?
    // Serialises deliveries from the source's thread and the watchdog, so that events stay in order.
    private let deliveryLock = NSLock()

    /// - Parameters:
    ///   - name: the device's description.
    ///   - clock: the clock the samples are stamped on.
    ///   - rate: the headset's nominal rate, Hz.
    ///   - gapThreshold: the silence that disconnects, seconds (default ``HeadphoneTimeline/gapThreshold``);
    ///     `nil` for a source that says itself when the headset goes away (no watchdog).
    public init(name: String, clock: any MotionClock, rate: Double, gapThreshold: TimeInterval? = HeadphoneTimeline.gapThreshold) {
        self.name = name
        self.clock = clock
        self.rate = rate
        self.gapThreshold = gapThreshold
        if let gapThreshold {
            // Checked 4 times per threshold, at most every 100 ms and at least every 10 ms; woken at the due time.
            let watchdog = DueTimeDriver(
                clock: clock, name: "coremotion.headphones.watchdog", pollInterval: max(0.01, min(0.1, gapThreshold / 4)))
            self.watchdog = watchdog
            watchdog.bind(step: { [weak self] t in self?.checkGap(now: t) }, nextDue: { [weak self] in self?.gapDue })
        } else {
            self.watchdog = nil
        }
    }

    public var isConnected: Bool {
        stateLock.lock()
        defer { stateLock.unlock() }
        return connected
    }

    /// Samples dropped for being out of order, duplicated or not finite.
    public var droppedCount: Int {
        stateLock.lock()
        defer { stateLock.unlock() }
        return dropped
    }

    public func run(_ sink: HeadphoneEventSink?) {
        stateLock.lock()
        self.sink = sink
        stateLock.unlock()
    }

    /// Takes one sample from the source (any thread; in time order).
    public func receive(_ sample: HeadphoneMotionSample) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        stateLock.lock()
        guard sample.isFinite, sample.time > lastSampleTime else {
            dropped += 1
            stateLock.unlock()
            return
        }
        lastSampleTime = sample.time
        lastArrival = clock.now
        let connecting = !connected
        connected = true
        if connecting { watchdog?.setBusy(true) }
        let sink = self.sink
        stateLock.unlock()
        if connecting { sink?(.connected(time: sample.time)) }
        sink?(.motion(sample))
    }

    /// The source knows the headset went away (a lost sensor, a status message): disconnects now.
    public func disconnect(reason: String) {
        end(at: clock.now, reason: reason)
    }

    /// The source stopped for good: disconnects now (a later sample would connect again).
    public func finish(reason: String = "the source stopped") {
        end(at: clock.now, reason: reason)
    }

    private func end(at time: TimeInterval, reason: String) {
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        stateLock.lock()
        guard connected else {
            stateLock.unlock()
            return
        }
        connected = false
        watchdog?.setBusy(false)
        let sink = self.sink
        stateLock.unlock()
        sink?(.disconnected(time: time, reason: reason))
    }

    /// When the silence will have lasted the threshold, while connected. Takes `stateLock`.
    private var gapDue: TimeInterval? {
        stateLock.lock()
        defer { stateLock.unlock() }
        guard connected, let gapThreshold else { return nil }
        return lastArrival + gapThreshold
    }

    /// Disconnects when the silence has lasted longer than the threshold.
    func checkGap(now: TimeInterval) {
        guard let gapThreshold else { return }
        stateLock.lock()
        let silent = connected && now - lastArrival > gapThreshold
        let since = lastArrival
        stateLock.unlock()
        guard silent else { return }
        deliveryLock.lock()
        defer { deliveryLock.unlock() }
        stateLock.lock()
        // A sample may have arrived meanwhile.
        guard connected, lastArrival == since else {
            stateLock.unlock()
            return
        }
        connected = false
        watchdog?.setBusy(false)
        let sink = self.sink
        stateLock.unlock()
        sink?(.disconnected(time: since + gapThreshold, reason: "no sample for more than \(gapThreshold) s"))
    }
}
