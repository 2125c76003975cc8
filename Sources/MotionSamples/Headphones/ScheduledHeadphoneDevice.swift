import Foundation

/// A headphone device that plays a ``HeadphoneTimeline`` against a clock: recordings and the simulator.
///
/// Source time `t` is delivered at clock time `origin + (t − t₀) / speed`, where `origin` is the clock's time
/// when the device was made and `t₀` the timeline's start: like the phone's replay (``ScheduledDevice``), the
/// stream goes on whether or not anyone listens, and events that fell due while no sink was set are skipped.
/// Event times are restamped on the clock, so recorded intervals and gaps are kept exactly (never resampled).
///
/// On a ``SystemClock`` a background thread (a ``DueTimeDriver``) wakes at each event's time while a sink is
/// set. On a ``VirtualClock`` the events are delivered synchronously inside `advance`.
public final class ScheduledHeadphoneDevice: HeadphoneDevice, @unchecked Sendable {  // @unchecked: the cursor is guarded by `playLock`, the run state by `stateLock`
    public let name: String
    public let clock: any MotionClock
    public let rate: Double
    /// Playback speed factor (2 = twice as fast).
    public let speed: Double
    /// What is played.
    public let timeline: HeadphoneTimeline

    private let origin: TimeInterval
    /// Serialises hand-over to the sink, so that events leave in order whoever plays them; never taken with
    /// `playLock` or `stateLock` held, so a stalled sink stalls only the deliveries.
    private let deliveryLock = NSLock()
    // Cursor state, guarded by `playLock` (never held while the sink runs).
    private let playLock = NSLock()
    private var cursor = 0
    private var pass = 0

    // Run state, guarded by `stateLock`.
    private let stateLock = NSLock()
    private var sink: HeadphoneEventSink?
    /// Plays the due events: in `advance` on a virtual clock, on a thread while a sink is set otherwise.
    private let driver: DueTimeDriver

    /// - Parameters:
    ///   - name: the device's description.
    ///   - timeline: what to play.
    ///   - clock: the clock to play it on.
    ///   - speed: playback speed factor (> 0).
    public init(name: String, timeline: HeadphoneTimeline, clock: any MotionClock, speed: Double = 1) {
        precondition(speed > 0 && speed.isFinite, "speed must be positive")
        self.name = name
        self.timeline = timeline
        self.clock = clock
        self.speed = speed
        self.rate = timeline.rate * speed
        self.origin = clock.now
        self.driver = DueTimeDriver(clock: clock, name: "coremotion.headphones", pollInterval: 0.05)
        driver.bind(step: { [weak self] t in self?.emitDue(until: t) }, nextDue: { [weak self] in self?.nextDue() })
    }

    /// Clock time at which source time `t` of pass `pass` plays.
    private func deviceTime(_ t: Double, pass: Int) -> TimeInterval {
        origin + (t + Double(pass) * (timeline.loopSpan ?? 0) - timeline.startTime) / speed
    }

    public var isConnected: Bool {
        timeline.isConnected(at: timeline.startTime + (clock.now - origin) * speed)
    }

    public func run(_ sink: HeadphoneEventSink?) {
        stateLock.lock()
        let starting = self.sink == nil && sink != nil
        self.sink = sink
        if clock.isVirtual {
            stateLock.unlock()
            return
        }
        if starting {
            // Events that fell due while nobody listened are gone, as for a real headset.
            stateLock.unlock()
            emitDue(until: clock.now, deliver: false)
            stateLock.lock()
        }
        // A finite timeline that has played its last event ends the thread at once (nothing is due).
        driver.setBusy(sink != nil)
        stateLock.unlock()
    }

    /// The next event and its clock time, moving to the next pass when looping. Caller holds `playLock`.
    private func peek() -> (HeadphoneEvent, TimeInterval)? {
        while true {
            if cursor < timeline.events.count {
                let event = timeline.events[cursor]
                // A repeated pass does not connect again while connected.
                if pass > 0, cursor == 0, case .connected = event, timeline.endsConnected {
                    cursor += 1
                    continue
                }
                return (event, deviceTime(event.time, pass: pass))
            }
            guard timeline.loopSpan != nil, !timeline.events.isEmpty else { return nil }
            pass += 1
            cursor = 0
        }
    }

    /// Plays every event due up to clock time `time`: to the sink when `deliver`, else only moving on.
    func emitDue(until time: TimeInterval, deliver: Bool = true) {
        if deliver { deliveryLock.lock() }
        defer { if deliver { deliveryLock.unlock() } }
        stateLock.lock()
        let sink = deliver ? self.sink : nil
        stateLock.unlock()
        // Collected under the play lock, handed over without it.
        var due: [HeadphoneEvent] = []
        var last = -Double.infinity
        playLock.lock()
        while let (event, t) = peek(), t <= time {
            cursor += 1
            // Times never go backwards, even where a recorded status record overlaps the samples.
            let stamp = max(t, last)
            last = stamp
            if sink != nil { due.append(event.at(time: stamp)) }
        }
        playLock.unlock()
        if let sink { for event in due { sink(event) } }
    }

    private func nextDue() -> TimeInterval? {
        playLock.lock()
        defer { playLock.unlock() }
        return peek()?.1
    }
}
