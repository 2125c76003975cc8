import Foundation
import MotionLiveViewProtocol
import NIOConcurrencyHelpers

/// A recording prepared for the page: every channel's samples in time order, the attitude-dependent
/// ones once per reference frame, and a play head that can run, stop, jump and change speed.
///
/// The samples are computed before the server starts (the tool runs the engines over the whole file);
/// playing only walks an index, so a seek costs nothing but the last few seconds resent.
public final class RecordingTimeline: LiveViewSource, Sendable {
    /// Seconds of samples resent before the play head after a seek, so that the plots are full at once.
    public static let prefill = 10.0

    private let source: String
    /// The recording's time span.
    public let span: ClosedRange<Double>
    private let common: [LiveSample]
    private let framed: [String: [LiveSample]]
    private let frames: [String]
    private let events: [LiveEvent]
    /// The play head and what it walks.
    private struct State {
        var frame: String
        var merged: [LiveSample] = []
        var sampleIndex = 0
        var eventIndex = 0
        var head: Double
        var playing = true
        var speed = 1.0
        var anchor = ContinuousClock.now
        var anchorHead: Double
        var needsPrefill = true
    }
    private let state: NIOLockedValueBox<State>

    /// A timeline of `common` samples (the same in every frame), `framed` samples (per reference frame,
    /// for instance attitude and heading) and `events`; it starts playing at the start in
    /// `initialFrame`, which must be a key of `framed`.
    public init(source: String, span: ClosedRange<Double>, common: [LiveSample], framed: [String: [LiveSample]],
                initialFrame: String, events: [LiveEvent]) {
        precondition(framed[initialFrame] != nil, "the initial frame must have samples")
        self.source = source
        self.span = span
        self.common = common.sorted { $0.time < $1.time }
        self.framed = framed.mapValues { $0.sorted { $0.time < $1.time } }
        self.frames = PageCommand.referenceFrames.filter { framed[$0] != nil }
        self.events = events.sorted { $0.time < $1.time }
        state = NIOLockedValueBox(State(
            frame: initialFrame, merged: Self.merge(self.common, self.framed[initialFrame] ?? []),
            head: span.lowerBound, anchorHead: span.lowerBound))
    }

    private static func merge(_ a: [LiveSample], _ b: [LiveSample]) -> [LiveSample] {
        var out: [LiveSample] = []
        out.reserveCapacity(a.count + b.count)
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if j >= b.count || (i < a.count && a[i].time <= b[j].time) { out.append(a[i]); i += 1 } else { out.append(b[j]); j += 1 }
        }
        return out
    }

    /// The source's name, the timeline's span and the frames it was computed in.
    public var hello: LiveViewHello {
        let frame = state.withLockedValue { $0.frame }
        return LiveViewHello(source: source, timeline: span, referenceFrame: frame, referenceFrames: frames, sampleRate: 0)
    }

    /// The keys of every channel the timeline holds in its current frame, sorted.
    public var channelKeys: [String] {
        state.withLockedValue { Set($0.merged.map(\.channel.key)).sorted() }
    }

    /// Its events (steps, activity changes), in time order.
    public var allEvents: [LiveEvent] { events }

    /// The play head now: time, whether it runs, speed.
    public var clock: LiveClock {
        state.withLockedValue { LiveClock(time: $0.head, playing: $0.playing, speed: $0.speed) }
    }

    /// Starts the play head's clock.
    public func start(into broadcaster: LiveBroadcaster) throws {
        state.withLockedValue { $0.anchor = .now }
    }

    /// Moves the play head and sends the samples it passed (after a seek: the 10 s before it).
    public func tick(into broadcaster: LiveBroadcaster) -> LiveClock {
        // What the play head passed, taken under the lock; handed to the broadcaster after it.
        let (span, events) = (self.span, self.events)
        let step = state.withLockedValue { state in
            if state.playing {
                let elapsed = ContinuousClock.now - state.anchor
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
                state.head = min(span.upperBound, state.anchorHead + seconds * state.speed)
                if state.head >= span.upperBound { state.playing = false }
            }
            var reset: (time: Double, frame: String)?
            if state.needsPrefill {
                state.needsPrefill = false
                reset = (state.head, state.frame)
                let from = state.head - Self.prefill
                state.sampleIndex = Self.firstIndex(state.merged, atOrAfter: from)
                state.eventIndex = events.firstIndex { $0.time >= from } ?? events.count
            }
            let firstSample = state.sampleIndex
            while state.sampleIndex < state.merged.count, state.merged[state.sampleIndex].time <= state.head {
                state.sampleIndex += 1
            }
            let firstEvent = state.eventIndex
            while state.eventIndex < events.count, events[state.eventIndex].time <= state.head {
                state.eventIndex += 1
            }
            return (
                reset: reset, samples: Array(state.merged[firstSample..<state.sampleIndex]), events: events[firstEvent..<state.eventIndex],
                clock: LiveClock(time: state.head, playing: state.playing, speed: state.speed))
        }
        if let reset = step.reset { broadcaster.reset(time: reset.time, referenceFrame: reset.frame) }
        for sample in step.samples { broadcaster.publish(sample) }
        for event in step.events { broadcaster.publish(event) }
        return step.clock
    }

    private static func firstIndex(_ samples: [LiveSample], atOrAfter time: Double) -> Int {
        var low = 0, high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if samples[mid].time < time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Play, pause, seek, speed or frame.
    public func handle(_ command: PageCommand, broadcaster: LiveBroadcaster) throws(LiveViewSourceError) {
        let (span, framed, frames, common) = (self.span, self.framed, self.frames, self.common)
        let failure = state.withLockedValue { state -> LiveViewSourceError? in
            switch command {
            case .play:
                if state.head >= span.upperBound { state.head = span.lowerBound; state.needsPrefill = true }
                state.playing = true
                state.anchor = .now
                state.anchorHead = state.head
            case .pause:
                state.playing = false
            case .seek(let time):
                // `time` counts from the recording's start.
                state.head = min(span.upperBound, span.lowerBound + time)
                state.anchor = .now
                state.anchorHead = state.head
                state.needsPrefill = true
            case .speed(let value):
                state.speed = value
                state.anchor = .now
                state.anchorHead = state.head
            case .referenceFrame(let name):
                guard let samples = framed[name] else {
                    return LiveViewSourceError("this recording has no attitude in \(name) (frames: \(frames.joined(separator: ", ")))")
                }
                state.frame = name
                state.merged = Self.merge(common, samples)
                state.needsPrefill = true
            case .ping:
                break
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Resends the 10 s before the play head with the next batch (to every page: they all clear and refill).
    public func pageOpened() {
        state.withLockedValue { $0.needsPrefill = true }
    }

    /// Stops the play head.
    public func stop() {
        state.withLockedValue { $0.playing = false }
    }
}
