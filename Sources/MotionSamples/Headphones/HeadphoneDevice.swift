import Foundation

/// Receives a headphone device's events, in time order, on the device's thread (or, on a virtual clock, on
/// the thread that advances it).
public typealias HeadphoneEventSink = @Sendable (HeadphoneEvent) -> Void

/// A source of headphone motion: a headset's own fused output (replayed, simulated, or live from a phone
/// over the network) or a head-worn IMU fused here. A process has at most one, beside its phone device,
/// chosen by `COREMOTION_HEADPHONE_DEVICE` (`docs/headphones.md`).
///
/// Connection follows the stream: the headphones are connected while samples flow. A device delivers
/// ``HeadphoneEvent/connected(time:)`` before the first sample, ``HeadphoneEvent/disconnected(time:reason:)``
/// when no sample came for longer than ``HeadphoneTimeline/gapThreshold`` (1 s) or the stream ended, and
/// `connected` again before the next sample. Samples are Apple's units and axes (``HeadphoneMotionSample``),
/// stamped on ``clock``, at the headset's own rate (not configurable), with its gaps kept.
///
/// Implementations: ``ScheduledHeadphoneDevice`` (a ``HeadphoneTimeline`` played against a clock: recordings
/// and the simulator) and ``LiveHeadphoneDevice`` (samples pushed by a live source: a network server, a
/// fused head IMU).
public protocol HeadphoneDevice: AnyObject, Sendable {
    /// Short description, e.g. `replay:head-shake.jsonl (AirPods capture, 50 Hz)`.
    var name: String { get }
    /// The clock the device stamps its events on.
    var clock: any MotionClock { get }
    /// The headset's own sample rate, Hz (nominal: the recorded or announced rate).
    var rate: Double { get }
    /// Whether the headphones are connected now. Cheap, and never blocks on the device's delivery: it may be
    /// called from inside a sink.
    var isConnected: Bool { get }
    /// Starts delivering every event to `sink`, or stops with `nil`; a later call replaces the sink. Events
    /// that fell due while no sink was set are skipped (the world went on), except that ``isConnected`` always
    /// tells the state now.
    func run(_ sink: HeadphoneEventSink?)
}

/// Whether headphones are connected, at a time: what a connection-status stream delivers (the state when it
/// starts, then every change).
public struct HeadphoneConnectionState: Sendable, Hashable {
    /// When the state began or was read, seconds on the clock.
    public var time: Double
    /// Whether the headphones are connected.
    public var isConnected: Bool

    /// The state `isConnected` at `time`.
    public init(time: Double, isConnected: Bool) {
        self.time = time
        self.isConnected = isConnected
    }
}

extension LiveHeadphoneDevice {
    /// Feeds the device from an asynchronous sequence of samples (a network receiver's stream, already in time
    /// order and on ``clock``), and finishes it when the sequence ends or fails. Cancel the task to stop.
    public func feed<Samples: AsyncSequence & Sendable>(from samples: Samples) -> Task<Void, Never>
    where Samples.Element == HeadphoneMotionSample {
        Task { [self] in
            do {
                for try await sample in samples {
                    if Task.isCancelled { break }
                    receive(sample)
                }
                finish(reason: "the source's stream ended")
            } catch {
                finish(reason: "the source failed: \(error)")
            }
        }
    }
}
