// Shared helper of the phone network sources (phyphox, SensorServer; branch net-phyphox): the `MotionDevice`
// both feed. At the merge, fold with the Sensor Logger server's device if it has one of its own.
import Foundation
import Logging
import MotionSamples

/// Settings every live phone source shares (`COREMOTION_DEVICE` options `wait`, `silence`, `delay`).
public struct PhoneStreamSettings: Sendable, Hashable {
    /// How long making the device waits for the phone's first data, seconds: it returns as soon as every
    /// sensor the phone announced has sent two samples, or after this long with the sensors that have.
    public var wait: Double
    /// How long a sensor may send nothing before it is lost (`sensorLost`), seconds.
    public var silence: Double
    /// How long samples are held to release them merge-sorted and evenly paced, seconds after their time.
    public var delay: Double

    public init(wait: Double = 5, silence: Double = 3, delay: Double) {
        self.wait = wait
        self.silence = silence
        self.delay = delay
    }

    /// The option names these settings read.
    public static let optionNames = ["wait", "silence", "delay"]

    /// Reads `wait`, `silence` and `delay` from `options` (seconds), over `defaults`.
    public init(options: [String: String], defaults: PhoneStreamSettings) throws(PhoneOptionError) {
        self = defaults
        wait = try PhoneOptionError.seconds(options, "wait", defaults.wait, allowZero: true)
        silence = try PhoneOptionError.seconds(options, "silence", defaults.silence, allowZero: false)
        delay = try PhoneOptionError.seconds(options, "delay", defaults.delay, allowZero: true)
    }
}

/// A malformed option of a phone device (the message names the option and what it takes).
public struct PhoneOptionError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }

    static func seconds(_ options: [String: String], _ key: String, _ value: Double, allowZero: Bool) throws(PhoneOptionError) -> Double {
        guard let text = options[key] else { return value }
        guard let v = Double(text), v.isFinite, allowZero ? v >= 0 : v > 0, v <= 3600 else {
            throw PhoneOptionError("\(key) must be a number of seconds \(allowZero ? "from 0" : "above 0") to 3600, found '\(text)'")
        }
        return v
    }
}

/// What a phone device has received and refused, for `coremotion devices`, logs and tests.
public struct PhoneStreamStatistics: Sendable, Equatable {
    /// Samples accepted per sensor.
    public var samples: [SensorKind: Int] = [:]
    /// Whole replies or messages refused as malformed (each also logged).
    public var malformed = 0
    /// Single readings refused (a missing, non-finite or unbelievable value; each also logged).
    public var refusedReadings = 0
    /// Samples dropped because their time was not after the sensor's previous one.
    public var outOfOrder = 0
    /// Times the source (re)connected or started a new phyphox session.
    public var connections = 0
    /// The last problem reported, if any.
    public var lastProblem: String?

    public init() {}
}

/// The `MotionDevice` of a live phone source: the phyphox poller or the SensorServer client feeds it
/// samples already converted to Apple's axes and units and placed on ``clock``; it decides availability,
/// paces delivery and turns silence into lost sensors.
///
/// - **Start**: making the device waits for the phone's first data (``PhoneStreamSettings/wait``); a sensor
///   is available once it has sent two samples (its rate is measured from them, and again after 50).
/// - **Availability follows the data**: a sensor that sends nothing for ``PhoneStreamSettings/silence``
///   seconds is lost (``DeviceEvent/sensorLost(_:reason:)``, absent from ``sensors``); when it sends again
///   it returns (``DeviceEvent/sensorReturned(_:)``). A sensor that starts only after the wait appears the
///   same way.
/// - **Delivery**: samples are released merge-sorted by time, ``PhoneStreamSettings/delay`` seconds after
///   their time, on the device's thread, to the sensors asked for; nobody listening, they are gone, as on
///   hardware. A started sensor joins the stream as it flows: its first sample is the one falling due then
///   (taken ``PhoneStreamSettings/delay`` before the start), never an older one. phyphox's first reply holds
///   every sample since the measurement began; delivering that backlog to a sensor started just after
///   the device was made gave an app 1597 samples in its first 2 s at 100 Hz (CI, stop 21). The phone's
///   rate cannot be changed from here: `run`'s rates only choose the sensors.
/// - **Order**: a sample whose time is not after its sensor's previous one is dropped and counted
///   (``PhoneStreamStatistics/outOfOrder``).
/// - **Reference data**: Apple's processed outputs the phone sends (phyphox on iOS: attitude, gravity, linear
///   acceleration) are kept in ``reference`` (the last ``referenceCapacity`` of each), never delivered.
public final class PhoneStreamDevice: MotionDevice, @unchecked Sendable {
    public let name: String
    public let clock: any MotionClock
    public let settings: PhoneStreamSettings
    let logger: Logger
    /// The most reference samples of each kind kept.
    public let referenceCapacity = 100_000

    private let lock = NSCondition()
    private var published: [SensorKind: SensorDescription] = [:]
    private var isPublished = false
    private var announced: [SensorKind: String] = [:]
    private var lastTime: [SensorKind: Double] = [:]
    private var lastArrival: [SensorKind: Double] = [:]
    private var recentTimes: [SensorKind: [Double]] = [:]
    private var lost: Set<SensorKind> = []
    private var pendingEvents: [DeviceEvent] = []
    private var buffer: PhoneJitterBuffer
    /// Per running sensor, the oldest sample time it delivers (``clock`` time): its start less the delay.
    private var deliverFrom: [SensorKind: Double] = [:]
    private var sink: SampleSink?
    private var eventSink: DeviceEventSink?
    private var referenceData = ReferenceData()
    private var stats = PhoneStreamStatistics()
    private var problemCounts: [String: Int] = [:]
    private var answered = false
    private var closed = false
    private var modelName: String?
    private var closeHandlers: [@Sendable () -> Void] = []

    /// - Parameters:
    ///   - name: e.g. `phyphox:http://192.168.1.5:8080 (Android, Pixel 7)`; the source may refine it.
    ///   - clock: the clock samples are placed on (the system clock: a phone is live).
    public init(name: String, clock: any MotionClock, settings: PhoneStreamSettings, logger: Logger) {
        self.name = name
        self.clock = clock
        self.settings = settings
        self.logger = logger
        self.buffer = PhoneJitterBuffer(delay: settings.delay)
        let thread = Thread { [weak self] in self?.releaseLoop() }
        thread.name = "coremotion.phone"
        thread.start()
    }

    deinit {
        close()
    }

    // MARK: MotionDevice

    public var sensors: [SensorKind: SensorDescription] {
        lock.lock()
        defer { lock.unlock() }
        return published
    }

    public var model: String? {
        lock.lock()
        defer { lock.unlock() }
        return modelName
    }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        lock.lock()
        let from = clock.now - settings.delay
        deliverFrom = Dictionary(uniqueKeysWithValues: rates.keys.map { ($0, deliverFrom[$0] ?? from) })
        self.sink = sink
        self.eventSink = events
        lock.unlock()
    }

    // MARK: Reading what the device holds

    /// Apple's processed outputs received so far (times on ``clock``), never delivered as results.
    public var reference: ReferenceData {
        lock.lock()
        defer { lock.unlock() }
        return referenceData
    }

    /// What the device received and refused so far.
    public var statistics: PhoneStreamStatistics {
        lock.lock()
        defer { lock.unlock() }
        return stats
    }

    /// Stops the source (its polling or connection) and the delivery thread. Nothing is delivered after.
    public func close() {
        lock.lock()
        let handlers = closed ? [] : closeHandlers
        closed = true
        closeHandlers = []
        sink = nil
        eventSink = nil
        lock.broadcast()
        lock.unlock()
        for h in handlers { h() }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    // MARK: For the sources

    /// Runs `handler` when the device closes (the source stops its task there).
    func onClose(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        let run = closed
        if !closed { closeHandlers.append(handler) }
        lock.unlock()
        if run { handler() }
    }

    /// Runs `loop` (the source's polling or receiving loop, until ``close()``) on a thread of its own — not a
    /// Task: the caller may be blocking a thread of Swift concurrency's pool (a test, an async main) — and
    /// waits for the first data.
    ///
    /// - Throws: ``PhoneRequestError`` with `failure(wait, " (last problem)")` when the phone did not answer
    ///   during ``PhoneStreamSettings/wait``; the device is closed then.
    func start(thread name: String, loop: @escaping @Sendable () -> Void, failure: (Double, String) -> String) throws(PhoneRequestError) {
        let thread = Thread { loop() }
        thread.name = name
        thread.start()
        guard waitForFirstData() else {
            let problem = statistics.lastProblem
            close()
            throw PhoneRequestError(failure(settings.wait, problem.map { " (\($0))" } ?? ""))
        }
    }

    /// The sensors the phone says it has, with a description of where each comes from. Replaces the
    /// previous announcement (a new phyphox session); the start waits for these.
    func announce(_ sensors: [SensorKind: String]) {
        lock.lock()
        announced = sensors
        lock.broadcast()
        lock.unlock()
    }

    /// The phone answered (a reply or a connection): makes the start succeed even without data.
    func noteAnswered() {
        lock.lock()
        answered = true
        lock.unlock()
    }

    /// Counts a (re)connection or new session.
    func noteConnection() {
        lock.lock()
        stats.connections += 1
        lock.unlock()
    }

    func setModel(_ model: String?) {
        lock.lock()
        modelName = model
        lock.unlock()
    }

    /// Takes samples in Apple's units, timed on ``clock``, in time order per sensor, that arrived at
    /// `arrival`. Unbelievable readings are refused with a message (``PhoneSampleLimits``).
    func ingest(_ samples: [SensorSample], arrival: TimeInterval) {
        guard !samples.isEmpty else { return }
        var refused: [String] = []
        lock.lock()
        for sample in samples {
            let kind = sample.sensor
            if let problem = PhoneSampleLimits.problem(sample) {
                stats.refusedReadings += 1
                refused.append("\(kind) reading refused: \(problem)")
                continue
            }
            guard sample.time.isFinite, sample.time > (lastTime[kind] ?? -.infinity) else {
                stats.outOfOrder += 1
                continue
            }
            lastTime[kind] = sample.time
            lastArrival[kind] = arrival
            stats.samples[kind, default: 0] += 1
            var recent = recentTimes[kind, default: []]
            recent.append(sample.time)
            if recent.count > 64 { recent.removeFirst(recent.count - 64) }
            recentTimes[kind] = recent
            buffer.insert(sample)
            let count = stats.samples[kind] ?? 0
            if isPublished, published[kind] == nil, count >= 2 {
                published[kind] = describe(kind)
                lost.remove(kind)
                pendingEvents.append(.sensorReturned(kind))
            } else if count == 50, published[kind] != nil {
                published[kind] = describe(kind)
            }
        }
        lock.broadcast()
        lock.unlock()
        for message in refused { report(message, category: "reading") }
    }

    /// Keeps Apple's processed outputs (times on ``clock``).
    func ingestReference(attitude: [TimedQuaternion] = [], gravity: [TimedVector] = [], userAcceleration: [TimedVector] = []) {
        lock.lock()
        defer { lock.unlock() }
        func keep<T>(_ new: [T], in stream: inout [T]) {
            stream.append(contentsOf: new)
            if stream.count > referenceCapacity { stream.removeFirst(stream.count - referenceCapacity) }
        }
        keep(attitude, in: &referenceData.attitude)
        keep(gravity, in: &referenceData.gravity)
        keep(userAcceleration, in: &referenceData.userAcceleration)
    }

    /// Counts `count` readings refused before conversion (too few values, not a rotation) and logs why.
    func refuse(_ message: String, count: Int = 1) {
        lock.lock()
        stats.refusedReadings += count
        lock.unlock()
        report(message, category: "reading")
    }

    /// Logs a problem: a malformed reply (`category` "malformed"), a refused reading, a failed request.
    /// The first ten of each category are logged as errors, then every hundredth with the count, so that a
    /// hostile phone cannot flood the log.
    func report(_ message: String, category: String) {
        lock.lock()
        let n = (problemCounts[category] ?? 0) + 1
        problemCounts[category] = n
        stats.lastProblem = message
        if category == "malformed" { stats.malformed += 1 }
        lock.unlock()
        // The message quotes what the phone sent: escaped, so it cannot forge log lines or drive a terminal.
        if n <= 10 {
            logger.error("\(name): \(LogSafeText.logSafe(message, limit: 400))")
        } else if n % 100 == 0 {
            logger.error("\(name): \(LogSafeText.logSafe(message, limit: 400)) (\(n) problems of this kind so far)")
        }
    }

    /// Blocks until every announced sensor has sent two samples, or ``PhoneStreamSettings/wait`` seconds
    /// passed, then publishes the sensors that have.
    ///
    /// - Returns: whether the phone answered at all during the wait.
    func waitForFirstData() -> Bool {
        let deadline = Date().addingTimeInterval(settings.wait)
        lock.lock()
        defer { lock.unlock() }
        while !closed {
            let ready = answered && !announced.isEmpty && announced.keys.allSatisfy { (stats.samples[$0] ?? 0) >= 2 }
            if ready || !lock.wait(until: deadline) { break }
        }
        isPublished = true
        for (kind, count) in stats.samples where count >= 2 {
            published[kind] = describe(kind)
        }
        return answered
    }

    /// The description of `kind` with its rate measured from the recent samples. Caller holds `lock`.
    private func describe(_ kind: SensorKind) -> SensorDescription {
        let times = recentTimes[kind] ?? []
        var intervals: [Double] = []
        for i in times.indices.dropFirst() { intervals.append(times[i] - times[i - 1]) }
        intervals.sort()
        let median = intervals.isEmpty ? 0 : intervals[intervals.count / 2]
        let rate = median > 0 ? 1 / median : 1
        return SensorDescription(kind: kind, name: announced[kind] ?? kind.rawValue, minimumRate: rate, maximumRate: rate)
    }

    // MARK: Delivery

    private func releaseLoop() {
        while true {
            lock.lock()
            if closed {
                lock.unlock()
                return
            }
            let now = clock.now
            if isPublished {
                for kind in published.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
                    let last = lastArrival[kind] ?? now
                    if now - last > settings.silence {
                        published[kind] = nil
                        lost.insert(kind)
                        let reason = "no data from the phone for \(String(format: "%.1f", now - last)) s"
                            + (stats.lastProblem.map { " (last problem: \($0))" } ?? "")
                        pendingEvents.append(.sensorLost(kind, reason: reason))
                    }
                }
            }
            let events = pendingEvents
            pendingEvents = []
            var due: [SensorSample] = []
            while let s = buffer.popDue(now: now) {
                if let from = deliverFrom[s.sensor], s.time >= from { due.append(s) }
            }
            let sink = self.sink
            let eventSink = self.eventSink
            lock.unlock()

            for e in events {
                switch e {
                case .sensorLost(let k, let reason): logger.warning("\(name): \(k) lost: \(reason)")
                case .sensorReturned(let k): logger.notice("\(name): \(k) is sending")
                case .endOfData: break
                }
                eventSink?(e)
            }
            if let sink {
                for s in due { sink(s) }
            }

            lock.lock()
            if !closed && pendingEvents.isEmpty {
                let next = buffer.nextDue.map { $0 - clock.now } ?? 0.1
                let wait = min(max(next, 0.001), 0.1)
                _ = lock.wait(until: Date().addingTimeInterval(wait))
            }
            lock.unlock()
        }
    }
}
