import Foundation
import Logging
import MotionSamples

/// One timed item of a live source: a raw sample, a headphone sample or a location fix, with its host
/// time (seconds on the device's clock).
public enum LiveItem: Sendable, Hashable {
    case sample(SensorSample)
    case headphone(HeadphoneMotionSample)
    case location(TimedLocation)

    /// Host time, seconds.
    @inlinable
    public var time: TimeInterval {
        switch self {
        case .sample(let s): s.time
        case .headphone(let h): h.time
        case .location(let l): l.time
        }
    }

    /// The stream's name, for messages: the sensor, `headphone` or `location`.
    public var streamName: String {
        switch self {
        case .sample(let s): s.sensor.description
        case .headphone: "headphone"
        case .location: "location"
        }
    }
}

/// The ``MotionSamples/MotionDevice`` of a live phone, whatever protocol brings its samples (Sensor Logger,
/// phyphox, SensorServer): the network source decodes and converts, maps the phone's clock
/// (``PhoneClock``) and hands each message's items to ``ingest(_:reference:arrival:)``; this class does the
/// rest, the same way for every source. The rules (availability, silence, pacing, order, plausibility,
/// reference data, bounds) are written once, in docs/network.md, "What every phone device does"; in short:
///
/// - **Plausibility.** An item beyond ``PhoneSampleLimits`` is refused, counted and logged.
/// - **Pacing.** Items wait in a ``JitterBuffer`` and reach the sinks in time order, each at its time
///   plus the buffer's delay (about one batch period, at least ``Configuration/jitter``'s minimum).
/// - **Order and duplicates.** Per stream, an item not newer than the last one delivered is dropped
///   (``Statistics/duplicates`` when equal, ``Statistics/late`` when older).
/// - **Availability.** A sensor exists from its first sample on (``sensors``), with the rate measured from
///   its samples; one first seen after the device was made is announced with `sensorReturned`.
/// - **Silence.** No item at all for ``Configuration/silence`` seconds (at least three message periods):
///   every sensor is lost; a sensor missing for `max(silence, 10 sample periods)` is lost alone. Its next
///   sample brings it back (`sensorReturned`).
/// - **A start joins the stream as it flows**: a sensor started at `t` gets the samples from `t − delay`
///   on, never an older backlog (phyphox's first reply holds every sample since the measurement began).
/// - **Reference data** (Apple's processed outputs the phone sends) is kept, bounded, never delivered.
/// - **Headphones.** ``subscribeHeadphone(_:)`` gives the paced headphone stream with connect and
///   disconnect events.
///
/// With nobody listening nothing older than the delay is kept, and the buffer holds at most
/// ``Configuration/maximumBuffered`` items. On a ``MotionSamples/VirtualClock`` delivery happens inside
/// `advance` (tests); on the system clock a thread (a ``MotionSamples/DueTimeDriver``) wakes when items fall
/// due, and at least every 100 ms for the silences, while anything is asked.
public final class LiveDevice: MotionDevice, @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`
    /// Timing of availability and delivery, and the device's bounds.
    public struct Configuration: Sendable, Hashable {
        /// No item from the phone for this long (seconds; at least three message periods) loses every sensor.
        public var silence: TimeInterval
        /// No headphone sample for this long (seconds of sample time) is a disconnection.
        public var headphoneSilence: TimeInterval
        /// The jitter buffer's delay rule.
        public var jitter: JitterBuffer<LiveItem>.Configuration
        /// Most items held waiting (older ones are dropped first, counted in ``Statistics/overflow``).
        public var maximumBuffered: Int
        /// Most reference entries kept per kind (attitude, gravity, heading…), the newest: 12,000 is 2 min
        /// at 100 Hz; with every kind full a phone holds about 4 MB.
        public var referenceEntries: Int
        /// Reference entries older than this before the newest message are dropped, seconds.
        public var referenceWindow: TimeInterval

        /// - Parameters:
        ///   - silence: see ``silence`` (2 s).
        ///   - headphoneSilence: see ``headphoneSilence`` (1 s).
        ///   - jitter: the delay rule.
        ///   - maximumBuffered: see ``maximumBuffered`` (200,000 items).
        ///   - referenceEntries: see ``referenceEntries`` (12,000).
        ///   - referenceWindow: see ``referenceWindow`` (600 s).
        public init(
            silence: TimeInterval = 2, headphoneSilence: TimeInterval = 1,
            jitter: JitterBuffer<LiveItem>.Configuration = .init(), maximumBuffered: Int = 200_000,
            referenceEntries: Int = 12_000, referenceWindow: TimeInterval = 600
        ) {
            self.silence = silence
            self.headphoneSilence = headphoneSilence
            self.jitter = jitter
            self.maximumBuffered = maximumBuffered
            self.referenceEntries = max(referenceEntries, 1)
            self.referenceWindow = referenceWindow
        }

        /// The configuration of a phyphox or SensorServer device: `settings`' silence, and its delay as the
        /// jitter buffer's least delay (and its greatest, when over the usual 2 s).
        public init(_ settings: PhoneStreamSettings) {
            let jitter = JitterBuffer<LiveItem>.Configuration()
            self.init(
                silence: settings.silence,
                jitter: .init(minimumDelay: settings.delay, maximumDelay: max(jitter.maximumDelay, settings.delay)))
        }
    }

    /// What happened to the items handed over, and what the source refused.
    public struct Statistics: Sendable, Hashable {
        /// Messages ingested (that held at least one item).
        public var messages = 0
        /// Samples accepted per sensor.
        public var samples: [SensorKind: Int] = [:]
        /// Items handed to a sink (samples of running sensors, fixes, headphone samples).
        public var delivered = 0
        /// Items dropped because a newer one of the same stream was already delivered.
        public var late = 0
        /// Items dropped because one with the same time was already delivered.
        public var duplicates = 0
        /// Items dropped because the buffer was full.
        public var overflow = 0
        /// Whole replies or messages the source refused as malformed (each also logged).
        public var malformed = 0
        /// Single readings refused (a missing, non-finite or unbelievable value; each also logged).
        public var refusedReadings = 0
        /// Times the source (re)connected or started a new session.
        public var connections = 0
        /// The last problem reported, if any.
        public var lastProblem: String?
        /// The jitter buffer's delay now, seconds.
        public var delay: TimeInterval = 0
        /// Median time between messages, seconds (the phone's batch period), when known.
        public var batchPeriod: TimeInterval?
    }

    /// The clock the mapped times are on (the system clock for a phone; a virtual one in tests).
    public let clock: any MotionClock
    /// The timing and bounds this device was made with.
    public let configuration: Configuration
    let logger: Logger

    private let lock = NSCondition()
    private var storedName: String
    private var storedModel: String?
    private var buffer: JitterBuffer<LiveItem>
    private var streams: [SensorKind: StreamState] = [:]
    private var lastMessage: TimeInterval?
    private var messageIntervals = MedianWindow(capacity: 16)
    private var statistics = Statistics()
    private var problemCounts: [String: Int] = [:]
    private var reference = ReferenceData()
    // Run state.
    private var active: Set<SensorKind> = []
    /// Per running sensor, the oldest sample time it is given: its start less the delay then.
    private var deliverFrom: [SensorKind: Double] = [:]
    private var sink: SampleSink?
    private var events: DeviceEventSink?
    private var locationSink: LocationSink?
    private var lastFix: TimedLocation?
    private var fixIntervals = MedianWindow(capacity: 8)
    private var lastFixTime: TimeInterval?
    private var fixHasAltitude = false
    private var headphoneSubscribers: [(id: Int, receive: @Sendable (HeadphoneMotionEvent) -> Void)] = []
    private var nextSubscriber = 0
    private var headphoneConnected = false
    private var lastHeadphoneTime: TimeInterval?
    /// Delivers the due items and checks the silences: in `advance` on a virtual clock, on a thread while
    /// anything is asked otherwise.
    private let driver: DueTimeDriver
    // The source's start and end.
    private var announced: [SensorKind: String] = [:]
    private var answered = false
    private var closed = false
    private var closeHandlers: [@Sendable () -> Void] = []
    /// Serialises hand-over to the sinks (outside `lock`), so items leave in order.
    private let deliveryLock = NSLock()

    /// Per-sensor availability and order.
    private struct StreamState {
        var lastArrival: TimeInterval
        var newestTime: TimeInterval
        var intervals = MedianWindow(capacity: 16)
        var rate: Double = 0
        var lost = false
        var lastDelivered = -Double.infinity
    }

    /// - Parameters:
    ///   - name: the device's name (``name``), e.g. `sensorlogger:127.0.0.1:8000 (iPhone 13 3F2A…)`.
    ///   - clock: the clock the mapped times are on.
    ///   - logger: where problems, lost and returned sensors are logged.
    public init(
        name: String, clock: any MotionClock, configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "coremotion.network")
    ) {
        self.storedName = name
        self.clock = clock
        self.configuration = configuration
        self.logger = logger
        self.buffer = JitterBuffer(configuration: configuration.jitter)
        self.driver = DueTimeDriver(clock: clock, name: "coremotion.network", pollInterval: 0.1)
        driver.bind(step: { [weak self] t in self?.emitDue(until: t) }, nextDue: { [weak self] in self?.nextDue })
    }

    deinit {
        let handlers = closed ? [] : closeHandlers
        for h in handlers { h() }
    }

    // MARK: MotionDevice

    /// The device's name (the source, the address, the phone once known).
    public var name: String {
        lock.lock()
        defer { lock.unlock() }
        return storedName
    }

    /// Renames the device (when the phone says who it is).
    public func rename(_ name: String) {
        lock.lock()
        storedName = name
        lock.unlock()
    }

    /// The phone's model, when the source learns it.
    public var model: String? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return storedModel
        }
        set {
            lock.lock()
            storedModel = newValue
            lock.unlock()
        }
    }

    /// The sensors sending now (docs/network.md, "What every phone device does": availability, silence),
    /// each with the rate measured from its samples.
    public var sensors: [SensorKind: SensorDescription] {
        lock.lock()
        defer { lock.unlock() }
        var out: [SensorKind: SensorDescription] = [:]
        let now = clock.now
        for (kind, state) in streams where !state.lost && !isSilent(kind, state, now: now) {
            let rate = state.rate > 0 ? state.rate : 1
            out[kind] = SensorDescription(kind: kind, name: announced[kind] ?? storedName, minimumRate: rate, maximumRate: rate)
        }
        return out
    }

    /// Starts the sensors of `rates` (the phone's rate cannot be changed from here: the keys only choose the
    /// sensors). A sensor started now gets the samples from now less the delay on; one already running keeps
    /// its stream.
    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        lock.lock()
        guard !closed else { return lock.unlock() }
        let from = clock.now - buffer.delay
        active = Set(rates.keys)
        deliverFrom = Dictionary(uniqueKeysWithValues: active.map { ($0, deliverFrom[$0] ?? from) })
        self.sink = sink
        self.events = events
        updateDriver()
    }

    /// The phone's location fixes, once one came.
    public var locationDescription: LocationDescription? {
        lock.lock()
        defer { lock.unlock() }
        guard lastFix != nil else { return nil }
        return LocationDescription(name: storedName, hasAltitude: fixHasAltitude, typicalInterval: fixIntervals.median ?? 1)
    }

    /// Delivers fixes to `sink` (the last one at once), or stops with `nil`.
    public func runLocation(_ sink: LocationSink?) {
        lock.lock()
        let starting = locationSink == nil && sink != nil
        locationSink = sink
        let fix = lastFix
        updateDriver()
        if starting, let sink, let fix {
            deliveryLock.lock()
            sink(fix)
            deliveryLock.unlock()
        }
    }

    // MARK: Headphones

    /// Subscribes to the paced headphone stream: ``HeadphoneMotionEvent/connected`` before the first sample
    /// (at once when samples are flowing), every sample in time order, ``HeadphoneMotionEvent/disconnected``
    /// after a silence. Returns a token for ``cancelHeadphone(_:)``. `receive` runs on the device's thread
    /// (inside `advance` on a virtual clock); keep it short.
    public func subscribeHeadphone(_ receive: @escaping @Sendable (HeadphoneMotionEvent) -> Void) -> Int {
        lock.lock()
        nextSubscriber += 1
        let id = nextSubscriber
        headphoneSubscribers.append((id, receive))
        let connected = headphoneConnected
        updateDriver()
        if connected {
            deliveryLock.lock()
            receive(.connected)
            deliveryLock.unlock()
        }
        return id
    }

    /// Ends a headphone subscription.
    public func cancelHeadphone(_ token: Int) {
        lock.lock()
        headphoneSubscribers.removeAll { $0.id == token }
        updateDriver()
    }

    /// The paced headphone stream as an async sequence (ends when the task iterating it is cancelled).
    public func headphoneEvents() -> AsyncStream<HeadphoneMotionEvent> {
        AsyncStream { continuation in
            let token = subscribeHeadphone { continuation.yield($0) }
            continuation.onTermination = { [weak self] _ in self?.cancelHeadphone(token) }
        }
    }

    /// Whether headphone samples are flowing now.
    public var isHeadphoneConnected: Bool {
        lock.lock()
        defer { lock.unlock() }
        return headphoneConnected
    }

    // MARK: Feeding

    /// Hands over the samples of one message, already on the device's clock, that arrived at `arrival`.
    public func ingest(_ samples: [SensorSample], arrival: TimeInterval) {
        ingest(samples.map { .sample($0) }, arrival: arrival)
    }

    /// Hands over the items of one message, already on the device's clock, that arrived at `arrival`
    /// (the device's clock too), and the reference data it carried. Any order; any thread. Samples beyond
    /// Items beyond ``PhoneSampleLimits`` are refused (counted, logged).
    public func ingest(_ items: [LiveItem], reference new: ReferenceData? = nil, arrival: TimeInterval) {
        var announcements: [DeviceEvent] = []
        var refused: [String] = []
        lock.lock()
        if let new { keepReference(new, now: arrival) }
        guard !closed, !items.isEmpty else {
            lock.unlock()
            if clock.isVirtual { emitDue(until: clock.now) }
            return
        }
        statistics.messages += 1
        if let last = lastMessage, arrival > last { messageIntervals.add(arrival - last) }
        lastMessage = max(lastMessage ?? arrival, arrival)
        // Availability and rates, per sensor, from this message's believable samples.
        var perSensor: [SensorKind: (count: Int, low: Double, high: Double)] = [:]
        var oldest = Double.infinity
        var accepted: [LiveItem] = []
        accepted.reserveCapacity(items.count)
        for item in items {
            if let problem = PhoneSampleLimits.problem(item) {
                statistics.refusedReadings += 1
                refused.append("\(item.streamName) reading refused: \(problem)")
                continue
            }
            if case .sample(let s) = item {
                let t = s.time
                statistics.samples[s.sensor, default: 0] += 1
                if let e = perSensor[s.sensor] {
                    perSensor[s.sensor] = (e.count + 1, min(e.low, t), max(e.high, t))
                } else {
                    perSensor[s.sensor] = (1, t, t)
                }
            }
            oldest = min(oldest, item.time)
            accepted.append(item)
        }
        for (kind, e) in perSensor {
            if var state = streams[kind] {
                if e.count >= 2, e.high > e.low {
                    state.intervals.add((e.high - e.low) / Double(e.count - 1))
                } else if e.high > state.newestTime {
                    state.intervals.add(e.high - state.newestTime)
                }
                if let m = state.intervals.median, m > 0 { state.rate = 1 / m }
                state.lastArrival = arrival
                state.newestTime = max(state.newestTime, e.high)
                if state.lost {
                    state.lost = false
                    announcements.append(.sensorReturned(kind))
                }
                streams[kind] = state
            } else {
                var state = StreamState(lastArrival: arrival, newestTime: e.high)
                if e.count >= 2, e.high > e.low {
                    state.intervals.add((e.high - e.low) / Double(e.count - 1))
                    state.rate = Double(e.count - 1) / (e.high - e.low)
                }
                streams[kind] = state
                announcements.append(.sensorReturned(kind))
            }
        }
        if oldest.isFinite { buffer.noteMessage(oldest: oldest, arrival: arrival) }
        // Keep only what someone will take.
        let wantsHeadphone = !headphoneSubscribers.isEmpty
        let wantsLocation = locationSink != nil
        for item in accepted {
            switch item {
            case .sample(let s): buffer.insert(item, time: s.time)
            case .headphone(let h): if wantsHeadphone { buffer.insert(item, time: h.time) }
            case .location(let fix):
                noteFix(fix)
                if wantsLocation { buffer.insert(item, time: fix.time) } else { lastFix = fix }
            }
        }
        if isIdle {
            // Nobody to deliver to: keep only what is not yet due, so a start joins the stream as it flows.
            let now = clock.now
            while let first = buffer.oldestTime, first + buffer.delay <= now { _ = buffer.popFirst() }
        }
        while buffer.count > configuration.maximumBuffered {
            _ = buffer.popFirst()
            statistics.overflow += 1
        }
        let events = self.events
        lock.broadcast()  // for `waitForFirstData`
        lock.unlock()
        driver.wake()
        for message in refused { report(message, category: "reading") }
        announce(announcements, to: events)
        if clock.isVirtual { emitDue(until: clock.now) }
    }

    private func noteFix(_ fix: TimedLocation) {
        if let last = lastFixTime, fix.time > last { fixIntervals.add(fix.time - last) }
        lastFixTime = max(lastFixTime ?? fix.time, fix.time)
        if fix.fusableAltitude != nil { fixHasAltitude = true }
    }

    /// What happened so far.
    public var currentStatistics: Statistics {
        lock.lock()
        defer { lock.unlock() }
        var s = statistics
        s.delay = buffer.delay
        s.batchPeriod = messageIntervals.median
        return s
    }

    /// Whether any item has reached a sink (an app's handler, a headphone subscriber, a location sink).
    public var hasDelivered: Bool {
        lock.lock()
        defer { lock.unlock() }
        return statistics.delivered > 0
    }

    /// The time of the last message, on the device's clock.
    public var lastMessageArrival: TimeInterval? {
        lock.lock()
        defer { lock.unlock() }
        return lastMessage
    }

    // MARK: Reference data

    /// Apple's outputs the phone sent (attitude, gravity, user acceleration, heading, steps…), times on the
    /// device's clock, between `from` and `to` (inclusive), time-ordered with one entry per time: reference
    /// data, never delivered as results.
    public func referenceData(from: TimeInterval = -.infinity, to: TimeInterval = .infinity) -> ReferenceData {
        lock.lock()
        let kept = reference
        lock.unlock()
        func select<T>(_ list: [T], _ time: (T) -> Double) -> [T] {
            var out = list.filter { time($0) >= from && time($0) <= to }
            out.sort { time($0) < time($1) }
            var k = 1
            while k < out.count {
                if time(out[k]) == time(out[k - 1]) { out.remove(at: k) } else { k += 1 }
            }
            return out
        }
        var r = ReferenceData()
        r.attitude = select(kept.attitude, \.time)
        r.gravity = select(kept.gravity, \.time)
        r.userAcceleration = select(kept.userAcceleration, \.time)
        r.rotationRate = select(kept.rotationRate, \.time)
        r.calibratedMagneticField = select(kept.calibratedMagneticField, \.time)
        r.heading = select(kept.heading, \.time)
        r.cumulativeSteps = select(kept.cumulativeSteps, \.time)
        r.relativeAltitude = select(kept.relativeAltitude, \.time)
        r.activity = select(kept.activity, \.time)
        return r
    }

    /// Adds `new` and drops entries older than ``Configuration/referenceWindow`` before `now` and the oldest
    /// beyond ``Configuration/referenceEntries`` per kind. Caller holds `lock`.
    private func keepReference(_ new: ReferenceData, now: TimeInterval) {
        let limit = configuration.referenceEntries
        let oldest = now - configuration.referenceWindow
        func keep<T>(_ added: [T], _ list: inout [T], _ t: (T) -> Double) {
            list.append(contentsOf: added)
            if let first = list.first, t(first) < oldest {
                list.removeFirst(list.firstIndex(where: { t($0) >= oldest }) ?? list.count)
            }
            if list.count > limit { list.removeFirst(list.count - limit) }
        }
        keep(new.attitude, &reference.attitude, \.time)
        keep(new.gravity, &reference.gravity, \.time)
        keep(new.userAcceleration, &reference.userAcceleration, \.time)
        keep(new.rotationRate, &reference.rotationRate, \.time)
        keep(new.calibratedMagneticField, &reference.calibratedMagneticField, \.time)
        keep(new.heading, &reference.heading, \.time)
        keep(new.cumulativeSteps, &reference.cumulativeSteps, \.time)
        keep(new.relativeAltitude, &reference.relativeAltitude, \.time)
        keep(new.activity, &reference.activity, \.time)
    }

    // MARK: For the sources

    /// Stops the source (its polling or connection, through ``onClose(_:)``) and the delivery. Nothing is
    /// delivered after.
    public func close() {
        lock.lock()
        let handlers = closed ? [] : closeHandlers
        closed = true
        closeHandlers = []
        active = []
        sink = nil
        events = nil
        locationSink = nil
        headphoneSubscribers = []
        updateDriver()
        for h in handlers { h() }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

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
    /// waits for the first data (``waitForFirstData(_:)``).
    ///
    /// - Throws: ``PhoneRequestError`` with `failure(wait, " (last problem)")` when the phone did not answer
    ///   within `wait` seconds; the device is closed then.
    func start(
        thread name: String, wait: TimeInterval, loop: @escaping @Sendable () -> Void, failure: (Double, String) -> String
    ) throws(PhoneRequestError) {
        let thread = Thread { loop() }
        thread.name = name
        thread.start()
        guard waitForFirstData(wait) else {
            let problem = currentStatistics.lastProblem
            close()
            throw PhoneRequestError(failure(wait, problem.map { " (\($0))" } ?? ""))
        }
    }

    /// The sensors the phone says it has, with a description of where each comes from. Replaces the
    /// previous announcement (a new phyphox session); ``waitForFirstData(_:)`` waits for these.
    func announce(_ sensors: [SensorKind: String]) {
        lock.lock()
        announced = sensors
        lock.broadcast()
        lock.unlock()
        // A new session: the silences are checked now, so a sensor gone quiet is lost before it returns.
        driver.wake()
    }

    /// The phone answered (a reply or a connection): makes the start succeed even without data.
    func noteAnswered() {
        lock.lock()
        answered = true
        lock.broadcast()
        lock.unlock()
        driver.wake()
    }

    /// Counts a (re)connection or new session.
    func noteConnection() {
        lock.lock()
        statistics.connections += 1
        lock.unlock()
    }

    /// Blocks until every announced sensor has sent two samples (so its rate is known), or `wait` seconds
    /// passed (wall clock).
    ///
    /// - Returns: whether the phone answered at all (``noteAnswered()``) by then.
    func waitForFirstData(_ wait: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(wait)
        lock.lock()
        defer { lock.unlock() }
        while !closed {
            let ready = answered && !announced.isEmpty && announced.keys.allSatisfy { (statistics.samples[$0] ?? 0) >= 2 }
            if ready || !lock.wait(until: deadline) { break }
        }
        return answered
    }

    /// Counts `count` readings refused before they became samples (too few values, not a rotation) and logs why.
    func refuse(_ message: String, count: Int = 1) {
        lock.lock()
        statistics.refusedReadings += count
        lock.unlock()
        report(message, category: "reading")
    }

    /// Logs a problem: a malformed reply (`category` "malformed", counted in ``Statistics/malformed``), a
    /// refused reading, a failed request. The first ten of each category are logged as errors, then every
    /// hundredth with the count, so that a hostile phone cannot flood the log.
    func report(_ message: String, category: String) {
        lock.lock()
        let n = (problemCounts[category] ?? 0) + 1
        problemCounts[category] = n
        statistics.lastProblem = message
        if category == "malformed" { statistics.malformed += 1 }
        let name = storedName
        lock.unlock()
        // The message quotes what the phone sent: escaped, so it cannot forge log lines or drive a terminal.
        if n <= 10 {
            logger.error("\(name): \(LogSafeText.logSafe(message, limit: 400))")
        } else if n % 100 == 0 {
            logger.error("\(name): \(LogSafeText.logSafe(message, limit: 400)) (\(n) problems of this kind so far)")
        }
    }

    /// Logs and hands `announcements` to `events`. Called without `lock`.
    private func announce(_ announcements: [DeviceEvent], to events: DeviceEventSink?) {
        guard !announcements.isEmpty else { return }
        let name = self.name
        for event in announcements {
            switch event {
            case .sensorLost(let kind, let reason): logger.warning("\(name): \(kind) lost: \(reason)")
            case .sensorReturned(let kind): logger.notice("\(name): \(kind) is sending")
            case .endOfData: break
            }
            events?(event)
        }
    }

    // MARK: Delivery

    /// How long without any message counts as silence now. Caller holds `lock`.
    private var phoneSilence: TimeInterval {
        max(configuration.silence, 3 * (messageIntervals.median ?? 0))
    }

    /// Whether `state`'s sensor has been silent too long at `now`. Caller holds `lock`.
    private func isSilent(_ kind: SensorKind, _ state: StreamState, now: TimeInterval) -> Bool {
        let silence = max(phoneSilence, state.rate > 0 ? 10 / state.rate : 0)
        return now - state.lastArrival > silence
    }

    /// Delivers every item due at `now` and reports silences.
    func emitDue(until now: TimeInterval) {
        var out: [LiveItem] = []
        var lostNow: [DeviceEvent] = []
        var headphoneEvents: [HeadphoneMotionEvent] = []
        lock.lock()
        while let (t, item) = buffer.popDue(now: now) {
            switch item {
            case .sample(let s):
                guard var state = streams[s.sensor] else { continue }
                if t <= state.lastDelivered {
                    if t == state.lastDelivered { statistics.duplicates += 1 } else { statistics.late += 1 }
                    continue
                }
                state.lastDelivered = t
                streams[s.sensor] = state
                if let from = deliverFrom[s.sensor], t >= from { out.append(item) }
            case .headphone:
                if let last = lastHeadphoneTime, t <= last {
                    if t == last { statistics.duplicates += 1 } else { statistics.late += 1 }
                    continue
                }
                lastHeadphoneTime = t
                out.append(item)
            case .location(let fix):
                if let last = lastFix?.time, t < last { statistics.late += 1; continue }
                lastFix = fix
                out.append(item)
            }
        }
        statistics.delivered += out.count
        // Silences.
        let problem = statistics.lastProblem.map { " (last problem: \($0))" } ?? ""
        for (kind, state) in streams where !state.lost && isSilent(kind, state, now: now) {
            streams[kind]!.lost = true
            let phoneSilent = lastMessage.map { now - $0 > phoneSilence } ?? false
            let reason = (phoneSilent ? "no data from the phone" : "no \(kind) data from the phone")
                + " for \(Self.seconds(now - state.lastArrival)) s" + problem
            lostNow.append(.sensorLost(kind, reason: reason))
        }
        if headphoneConnected, let last = lastHeadphoneTime, now - (last + buffer.delay) > configuration.headphoneSilence {
            headphoneConnected = false
            headphoneEvents.append(.disconnected)
        }
        let sink = self.sink
        let events = self.events
        let locationSink = self.locationSink
        let headphone = headphoneSubscribers.map(\.receive)
        lock.unlock()
        guard !out.isEmpty || !lostNow.isEmpty || !headphoneEvents.isEmpty else { return }
        deliveryLock.lock()
        for item in out {
            switch item {
            case .sample(let s): sink?(s)
            case .location(let fix): locationSink?(fix)
            case .headphone(let h):
                lock.lock()
                let connecting = !headphoneConnected
                headphoneConnected = true
                lock.unlock()
                for receive in headphone {
                    if connecting { receive(.connected) }
                    receive(.sample(h))
                }
            }
        }
        for event in headphoneEvents { for receive in headphone { receive(event) } }
        deliveryLock.unlock()
        announce(lostNow, to: events)
    }

    private static func seconds(_ t: TimeInterval) -> String { String(format: "%.1f", t) }

    /// Whether anything needs delivering. Caller holds `lock`.
    private var isIdle: Bool { active.isEmpty && locationSink == nil && headphoneSubscribers.isEmpty }

    /// Starts or stops the delivery thread; called holding `lock`, returns without it.
    private func updateDriver() {
        if isIdle { buffer.removeAll() }
        driver.setBusy(!isIdle)
        lock.unlock()
    }

    /// When the next item falls due; `.infinity` with none (the driver still steps every 100 ms for the
    /// silences).
    private var nextDue: TimeInterval? {
        lock.lock()
        defer { lock.unlock() }
        return buffer.nextDue ?? .infinity
    }
}

/// The median of the last few values added.
struct MedianWindow: Sendable, Hashable {
    private var values: [Double] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    mutating func add(_ v: Double) {
        guard v.isFinite, v > 0 else { return }
        if values.count < capacity { values.append(v) } else { values[next] = v }
        next = (next + 1) % capacity
    }

    var median: Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
