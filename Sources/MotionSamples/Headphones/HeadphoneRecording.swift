import Foundation

/// A recording of headphone motion as the headset's own fusion delivered it (Apple's
/// `CMHeadphoneMotionManager` output), converted at the reader into Core Motion's units.
///
/// Times are seconds on the recording's axis; samples are strictly increasing and finite (the readers'
/// bad-input policy, ``RecordingNotice``). Unlike ``Recording`` (raw sensors that this package fuses), these
/// samples *are* the result: a replay delivers them as recorded, at their own times.
public struct HeadphoneRecording: Sendable {
    /// Where it came from (format, file, device).
    public var metadata: RecordingMetadata
    /// The samples, time-ordered.
    public var samples: [HeadphoneMotionSample]
    /// The capture's own connection records (`connected`, `disconnected`…), when it has any.
    public var status: [HeadphoneStatusRecord]
    /// The time a replay starts at (the capture's `starting` record, or the phone's first sample in a Sensor
    /// Logger export so that both replays of one export stay in step); `nil`: the first event's.
    public var startTime: Double?
    /// What the reader skipped or noticed.
    public var notices: [RecordingNotice]

    /// A recording; the readers make these.
    public init(
        metadata: RecordingMetadata, samples: [HeadphoneMotionSample] = [], status: [HeadphoneStatusRecord] = [],
        startTime: Double? = nil, notices: [RecordingNotice] = []
    ) {
        self.metadata = metadata
        self.samples = samples
        self.status = status
        self.startTime = startTime
        self.notices = notices
    }

    /// The median sample rate, Hz.
    public var rate: Double { HeadphoneTimeline.nominalRate(samples.map(\.time)) }

    /// Duration from the first to the last sample, seconds.
    public var duration: Double { (samples.last?.time ?? 0) - (samples.first?.time ?? 0) }

    /// The events a replay plays (``HeadphoneTimeline``): connection from the samples and the recorded status;
    /// with `loop`, the samples repeat one period after the last (no disconnection at the seam).
    public func timeline(loop: Bool = false) -> HeadphoneTimeline {
        let rate = self.rate
        let span = loop ? duration + 1 / rate : nil
        return HeadphoneTimeline(
            name: metadata.source, samples: samples, status: status, rate: rate,
            startTime: startTime, loopSpan: span)
    }
}
