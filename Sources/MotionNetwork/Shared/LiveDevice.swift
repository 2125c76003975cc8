import Foundation
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
}

/// The ``MotionSamples/MotionDevice`` of a live phone, whatever protocol brings its samples: the network
/// source decodes and converts, maps the phone's clock (``PhoneClock``) and hands each message's items
/// to ``ingest(_:arrival:)``; this class does the rest, the same way for every source.
///
/// - **Pacing.** Items wait in a ``JitterBuffer`` and reach the sinks in time order, each at its time
///   plus the buffer's delay (about one batch period), so an app sees an even stream, not 250 ms bursts.
///   Sample times stay the phone's (mapped): a sample is always delivered after its timestamp.
/// - **Order and duplicates.** Per stream, an item not newer than the last one delivered is dropped
///   (``Statistics/duplicates`` when equal, ``Statistics/late`` when older).
/// - **Availability.** A sensor exists from its first sample on (``sensors``), with the rate measured from
///   its samples. A sensor first seen after the device was made is announced with
///   ``MotionSamples/DeviceEvent/sensorReturned(_:)``.
/// - **Silence.** No message at all for ``Configuration/silence`` seconds (at least three batch periods):
///   every sensor is lost (``MotionSamples/DeviceEvent/sensorLost(_:reason:)``); a sensor missing from
///   the messages for `max(silence, 10 sample periods)` is lost alone. The next sample of a lost sensor
///   brings it back (`sensorReturned`).
/// - **Headphones.** ``subscribeHeadphone(_:)`` gives the paced headphone stream with connect and
///   disconnect events.
///
/// Samples of every sensor wait in the buffer for its delay whether or not the sensor runs, so an app that
/// starts a sensor joins the stream as it flows (its first sample comes at once, the buffer's delay old, as
/// every later one) instead of waiting up to a batch period and a delay for the next message (measured on
/// a 250 ms pusher: a 2 s accelerometer run got 148 samples of 200 before, the first half-second missing).
/// Samples of sensors that are not running are dropped when they fall due; with nobody listening at all
/// nothing older than the delay is kept, and the buffer holds at most ``Configuration/maximumBuffered`` items. On a ``MotionSamples/VirtualClock``
/// delivery happens inside `advance` (tests); on the system clock a thread wakes when items fall due.
public final class LiveDevice: MotionDevice, @unchecked Sendable {
    /// Timing of availability and delivery.
    public struct Configuration: Sendable, Hashable {
        /// No message for this long (seconds; at least three batch periods) loses every sensor.
        public var silence: TimeInterval
        /// No headphone sample for this long (seconds of sample time) is a disconnection.
        public var headphoneSilence: TimeInterval
        /// The jitter buffer's delay rule.
        public var jitter: JitterBuffer<LiveItem>.Configuration
        /// Most items held waiting (older ones are dropped first, counted in ``Statistics/overflow``).
        public var maximumBuffered: Int

        public init(
            silence: TimeInterval = 2, headphoneSilence: TimeInterval = 1,
            jitter: JitterBuffer<LiveItem>.Configuration = .init(), maximumBuffered: Int = 200_000
        ) {
            self.silence = silence
            self.headphoneSilence = headphoneSilence
            self.jitter = jitter
            self.maximumBuffered = maximumBuffered
        }
    }

    /// What happened to the items handed over.
    public struct Statistics: Sendable, Hashable {
        /// Messages ingested.
        public var messages = 0
        /// Items handed to a sink (samples of running sensors, fixes, headphone samples).
        public var delivered = 0
        /// Items dropped because a newer one of the same stream was already delivered.
        public var late = 0
        /// Items dropped because one with the same time was already delivered.
        public var duplicates = 0
        /// Items dropped because the buffer was full.
        public var overflow = 0
        /// The jitter buffer's delay now, seconds.
        public var delay: TimeInterval = 0
        /// Median time between messages, seconds (the phone's batch period), when known.
        public var batchPeriod: TimeInterval?
    }

    public let clock: any MotionClock
    public let configuration: Configuration

    private let lock = NSCondition()
    private var storedName: String
    private var storedModel: String?
    private var buffer: JitterBuffer<LiveItem>
    private var streams: [SensorKind: StreamState] = [:]
    private var lastMessage: TimeInterval?
    private var messageIntervals = MedianWindow(capacity: 16)
    private var statistics = Statistics()
    // Run state.
    private var active: Set<SensorKind> = []
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
    private var driverRunning = false
    private var driverGeneration = 0
    private var observerToken: Int?
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
    public init(name: String, clock: any MotionClock, configuration: Configuration = Configuration()) {
        self.storedName = name
        self.clock = clock
        self.configuration = configuration
        self.buffer = JitterBuffer(configuration: configuration.jitter)
        if let virtual = clock as? VirtualClock {
            observerToken = virtual.addObserver { [weak self] t in self?.emitDue(until: t) }
        }
    }

    deinit {
        if let token = observerToken, let virtual = clock as? VirtualClock { virtual.removeObserver(token) }
    }

    // MARK: MotionDevice

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

    public var sensors: [SensorKind: SensorDescription] {
        lock.lock()
        defer { lock.unlock() }
        var out: [SensorKind: SensorDescription] = [:]
        let now = clock.now
        for (kind, state) in streams where !state.lost && !isSilent(kind, state, now: now) {
            let rate = state.rate > 0 ? state.rate : 1
            out[kind] = SensorDescription(kind: kind, name: storedName, minimumRate: rate, maximumRate: rate)
        }
        return out
    }

    public func run(_ rates: [SensorKind: Double], sink: @escaping SampleSink, events: @escaping DeviceEventSink) {
        lock.lock()
        active = Set(rates.keys)
        self.sink = sink
        self.events = events
        updateDriver()
    }

    public var locationDescription: LocationDescription? {
        lock.lock()
        defer { lock.unlock() }
        guard lastFix != nil else { return nil }
        return LocationDescription(name: storedName, hasAltitude: fixHasAltitude, typicalInterval: fixIntervals.median ?? 1)
    }

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

    /// Hands over the items of one message, already on the device's clock, that arrived at `arrival`
    /// (the device's clock too). Any order; any thread.
    public func ingest(_ items: [LiveItem], arrival: TimeInterval) {
        var announcements: [DeviceEvent] = []
        lock.lock()
        statistics.messages += 1
        if let last = lastMessage, arrival > last { messageIntervals.add(arrival - last) }
        lastMessage = max(lastMessage ?? arrival, arrival)
        // Availability and rates, per sensor, from this message's samples.
        var perSensor: [SensorKind: (count: Int, low: Double, high: Double)] = [:]
        var oldest = Double.infinity
        for item in items {
            oldest = min(oldest, item.time)
            if case .sample(let s) = item {
                let t = s.time
                if let e = perSensor[s.sensor] {
                    perSensor[s.sensor] = (e.count + 1, min(e.low, t), max(e.high, t))
                } else {
                    perSensor[s.sensor] = (1, t, t)
                }
            }
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
        for item in items {
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
        lock.broadcast()
        lock.unlock()
        if let events { for event in announcements { events(event) } }
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
        var lostNow: [(SensorKind, String)] = []
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
                if active.contains(s.sensor) { out.append(item) }
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
        for (kind, state) in streams where !state.lost && isSilent(kind, state, now: now) {
            streams[kind]!.lost = true
            let reason = (lastMessage.map { now - $0 > phoneSilence } ?? false)
                ? "the phone sent nothing for \(Self.seconds(phoneSilence)) s"
                : "the phone stopped sending \(kind) (nothing for \(Self.seconds(now - state.lastArrival)) s)"
            lostNow.append((kind, reason))
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
        if let events { for (kind, reason) in lostNow { events(.sensorLost(kind, reason: reason)) } }
    }

    private static func seconds(_ t: TimeInterval) -> String { String(format: "%.1f", t) }

    /// Whether anything needs delivering. Caller holds `lock`.
    private var isIdle: Bool { active.isEmpty && locationSink == nil && headphoneSubscribers.isEmpty }

    /// Starts or stops the delivery thread; called holding `lock`, returns without it.
    private func updateDriver() {
        if isIdle { buffer.removeAll() }
        guard !clock.isVirtual else {
            lock.unlock()
            return
        }
        if !isIdle && !driverRunning {
            driverRunning = true
            driverGeneration += 1
            let generation = driverGeneration
            let thread = Thread { [weak self] in self?.drive(generation: generation) }
            thread.name = "coremotion.network"
            thread.qualityOfService = .userInteractive
            thread.start()
        } else if isIdle && driverRunning {
            driverRunning = false
            lock.broadcast()
        }
        lock.unlock()
    }

    private func drive(generation: Int) {
        while true {
            lock.lock()
            let keepGoing = driverRunning && driverGeneration == generation
            lock.unlock()
            guard keepGoing else { return }
            emitDue(until: clock.now)
            lock.lock()
            // Wake for the next item, and at least every 100 ms for the silence checks.
            let now = clock.now
            let wait = min(max((buffer.nextDue ?? now + 0.1) - now, 0), 0.1)
            if wait > 0.0002 && driverRunning && driverGeneration == generation {
                _ = lock.wait(until: Date().addingTimeInterval(wait))
            }
            lock.unlock()
        }
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
