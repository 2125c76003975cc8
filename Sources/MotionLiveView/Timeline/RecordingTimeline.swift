import Foundation
import MotionLiveViewProtocol

/// A recording prepared for the page: every channel's samples in time order, the attitude-dependent
/// ones once per reference frame, and a play head that can run, stop, jump and change speed.
///
/// The samples are computed before the server starts (the tool runs the engines over the whole file);
/// playing only walks an index, so a seek costs nothing but the last few seconds resent.
public final class RecordingTimeline: LiveViewSource, @unchecked Sendable {
    /// Seconds of samples resent before the play head after a seek, so that the plots are full at once.
    public static let prefill = 10.0

    private let lock = NSLock()
    private let source: String
    /// The recording's time span.
    public let span: ClosedRange<Double>
    private let common: [LiveSample]
    private let framed: [String: [LiveSample]]
    private let frames: [String]
    private let events: [LiveEvent]
    private var frame: String
    private var merged: [LiveSample] = []
    private var sampleIndex = 0
    private var eventIndex = 0
    private var head: Double
    private var playing = true
    private var speed = 1.0
    private var anchor = ContinuousClock.now
    private var anchorHead: Double
    private var needsPrefill = true

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
        self.frame = initialFrame
        head = span.lowerBound
        anchorHead = span.lowerBound
        merged = Self.merge(self.common, self.framed[initialFrame] ?? [])
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
        lock.lock()
        defer { lock.unlock() }
        return LiveViewHello(source: source, timeline: span, referenceFrame: frame, referenceFrames: frames, sampleRate: 0)
    }

    /// The keys of every channel the timeline holds in its current frame, sorted.
    public var channelKeys: [String] {
        lock.lock()
        defer { lock.unlock() }
        return Set(merged.map(\.channel.key)).sorted()
    }

    /// Its events (steps, activity changes), in time order.
    public var allEvents: [LiveEvent] { events }

    /// The play head now: time, whether it runs, speed.
    public var clock: LiveClock {
        lock.lock()
        defer { lock.unlock() }
        return LiveClock(time: head, playing: playing, speed: speed)
    }

    /// Starts the play head's clock.
    public func start(into broadcaster: LiveBroadcaster) throws {
        lock.lock()
        anchor = .now
        lock.unlock()
    }

    /// Moves the play head and sends the samples it passed (after a seek: the 10 s before it).
    public func tick(into broadcaster: LiveBroadcaster) -> LiveClock {
        lock.lock()
        defer { lock.unlock() }
        if playing {
            let elapsed = ContinuousClock.now - anchor
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            head = min(span.upperBound, anchorHead + seconds * speed)
            if head >= span.upperBound { playing = false }
        }
        if needsPrefill {
            needsPrefill = false
            broadcaster.reset(time: head, referenceFrame: frame)
            let from = head - Self.prefill
            sampleIndex = firstIndex(merged, atOrAfter: from)
            eventIndex = events.firstIndex { $0.time >= from } ?? events.count
        }
        while sampleIndex < merged.count, merged[sampleIndex].time <= head {
            broadcaster.publish(merged[sampleIndex])
            sampleIndex += 1
        }
        while eventIndex < events.count, events[eventIndex].time <= head {
            broadcaster.publish(events[eventIndex])
            eventIndex += 1
        }
        return LiveClock(time: head, playing: playing, speed: speed)
    }

    private func firstIndex(_ samples: [LiveSample], atOrAfter time: Double) -> Int {
        var low = 0, high = samples.count
        while low < high {
            let mid = (low + high) / 2
            if samples[mid].time < time { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// Play, pause, seek, speed or frame.
    public func handle(_ command: PageCommand, broadcaster: LiveBroadcaster) throws(LiveViewSourceError) {
        lock.lock()
        defer { lock.unlock() }
        switch command {
        case .play:
            if head >= span.upperBound { head = span.lowerBound; needsPrefill = true }
            playing = true
            anchor = .now
            anchorHead = head
        case .pause:
            playing = false
        case .seek(let time):
            // `time` counts from the recording's start.
            head = min(span.upperBound, span.lowerBound + time)
            anchor = .now
            anchorHead = head
            needsPrefill = true
        case .speed(let value):
            speed = value
            anchor = .now
            anchorHead = head
        case .referenceFrame(let name):
            guard let samples = framed[name] else {
                throw LiveViewSourceError("this recording has no attitude in \(name) (frames: \(frames.joined(separator: ", ")))")
            }
            frame = name
            merged = Self.merge(common, samples)
            needsPrefill = true
        case .ping:
            break
        }
    }

    /// Resends the 10 s before the play head with the next batch (to every page: they all clear and refill).
    public func pageOpened() {
        lock.lock()
        needsPrefill = true
        lock.unlock()
    }

    /// Stops the play head.
    public func stop() {
        lock.lock()
        playing = false
        lock.unlock()
    }
}
