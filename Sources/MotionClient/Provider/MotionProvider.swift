import Foundation
import Logging

/// What the `CoreMotion` API needs from whoever owns the device and the engines: the in-process service
/// or the connection to `coremotiond`.
///
/// Every receive closure runs on a thread of the provider (the device's thread in process, the connection's
/// thread for the daemon), in the order the values were produced. It must be quick and must not call
/// back into the provider: hand the value to a ``QueueDelivery``.
///
/// Synchronous queries (``pedometerTotals(from:to:)`` and friends) may block for a round trip to the
/// daemon; call them off the thread that runs receive closures.
public protocol MotionProvider: AnyObject, Sendable {
    /// Short description of the device, e.g. `replay:/data/walk (Sensor Logger, iPhone 13)`.
    var deviceName: String { get }
    /// The clock of every timestamp (seconds on the `systemUptime` time base) and its mapping to dates.
    var clock: any MotionClock { get }
    /// Where log messages about this provider go.
    var logger: Logger { get }
    /// The delivery streams a virtual-clock harness waits for.
    var deliveries: DeliveryTracker { get }

    // MARK: Raw sensors

    /// What the device offers for `sensor` now, or `nil` without it.
    func sensorDescription(_ sensor: SensorKind) -> SensorDescription?

    /// Every sample of `sensor`, thinned to `interval` seconds (clamped with ``clampInterval(_:for:)``).
    /// `nil` when the device lacks the sensor or the peer refused.
    func subscribe(to sensor: SensorKind, interval: TimeInterval, receive: @escaping @Sendable (SensorSample) -> Void)
        -> (any MotionSubscription)?

    // MARK: Device motion

    /// The reference frames usable now.
    var availableReferenceFrames: Set<AttitudeReferenceFrame> { get }

    /// Fused device motion in `frame`, thinned to `interval` seconds. `nil` when the frame is not available.
    func subscribeDeviceMotion(
        frame: AttitudeReferenceFrame, interval: TimeInterval, receive: @escaping @Sendable (DeviceMotionUpdate) -> Void
    ) -> (any MotionSubscription)?

    // MARK: Altimeter

    /// Whether absolute altitude is available (a barometer and a reference).
    var isAbsoluteAltitudeAvailable: Bool { get }

    /// Altitude updates with their own zero (the first update); with `absolute`, also absolute altitude.
    /// `nil` without a barometer.
    func subscribeAltitude(absolute: Bool, receive: @escaping @Sendable (AltitudeValue) -> Void) -> (any MotionSubscription)?

    // MARK: Pedometer

    /// Makes sure steps are being counted into the history (the daemon always counts).
    func startPedometerRecording()

    /// Live totals cumulative from `start` (history before now included), reported at most once a second
    /// while steps come in and at each pause.
    func subscribePedometer(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> (any MotionSubscription)?

    /// Pause and resume events.
    func subscribePedometerEvents(receive: @escaping @Sendable (PedometerPauseEvent) -> Void) -> (any MotionSubscription)?

    /// Totals over `[start, end)` from the history.
    func pedometerTotals(from start: Date, to end: Date) throws -> PedometerTotals

    // MARK: Activity

    /// Makes sure activity is being classified into the history (the daemon always classifies).
    func startActivityRecording()

    /// Live activity: the current state first (when known), then changes.
    func subscribeActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)?

    /// The activity states overlapping `[start, end]`; the first may begin before `start`.
    func activityHistory(from start: Date, to end: Date) throws -> [ActivityReport]

    // MARK: Sensor recorder

    /// Whether the accelerometer can be recorded (an accelerometer and a writable history).
    var isAccelerometerRecordingAvailable: Bool { get }

    /// Records the accelerometer at 50 Hz for `duration` seconds from now (at most 12 h).
    func recordAccelerometer(forDuration duration: TimeInterval) throws

    /// Resumes an earlier request that has not ended (in process; the daemon never stops).
    func resumeAccelerometerRecording()

    /// The recorded samples between the dates (a span of at most 12 h), in time order.
    func recordedAccelerometer(from start: Date, to end: Date) throws -> [RecordedAccelerometerSample]

    // MARK: Headphones

    /// Whether headphone motion is supported: a headphone source is configured (in process by
    /// `COREMOTION_HEADPHONE_DEVICE`, through the daemon by its `--headphone-device`). It says nothing about a
    /// connected headset, as Apple's `CMHeadphoneMotionManager.isDeviceMotionAvailable` does not.
    var isHeadphoneMotionAvailable: Bool { get }

    /// The headphones' connection: the state now first, then every change (connected when samples start,
    /// disconnected after a silence longer than 1 s or at the end of the stream). `nil` without headphones.
    func subscribeHeadphoneConnection(receive: @escaping @Sendable (HeadphoneConnectionState) -> Void) -> (any MotionSubscription)?

    /// Headphone device motion at the headset's own rate, with the bud that measured each sample
    /// (``MotionSamples/HeadphoneMotionSample/location``). Each sample's attitude is relative to this stream's
    /// start anchor: Z vertical, X the heading of its first sample (whose quaternion then has `z = 0`). `nil`
    /// without headphones.
    func subscribeHeadphoneMotion(receive: @escaping @Sendable (HeadphoneMotionSample) -> Void) -> (any MotionSubscription)?

    /// Activity from headphone motion (stationary, walking, running, or none of them): the current state first
    /// when known, then changes. `nil` without headphones.
    func subscribeHeadphoneActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)?

    // MARK: Authorization

    /// What this process may do: the daemon's decision for this user and app, or the environment's
    /// (`COREMOTION_AUTHORIZATION`) in process.
    func authorizationStatus() -> AuthorizationStatus

    /// Whether `.notDetermined` withholds stored data (history queries, the sensor recorder) until the user
    /// decides: `true` for `coremotiond`, which keeps one history for every app; `false` in process, where
    /// nothing decides and the app reads its own history.
    var undecidedWithholdsHistory: Bool { get }
}

/// A running stream of values from a ``MotionProvider``. Cancelling is idempotent; after it returns no
/// new value reaches the receive closure (one already running finishes).
public protocol MotionSubscription: AnyObject, Sendable {
    /// The interval in effect, seconds (0 for streams without one).
    var interval: TimeInterval { get }
    /// Ends the stream.
    func cancel()
}

extension MotionProvider {
    /// A provider that shares a history between apps requires a decision (the safe default).
    public var undecidedWithholdsHistory: Bool { true }

    /// Whether the device has `sensor` now.
    public func has(_ sensor: SensorKind) -> Bool { sensorDescription(sensor) != nil }

    /// Whether device motion can be computed: it needs an accelerometer and a gyroscope.
    public var isDeviceMotionAvailable: Bool { has(.accelerometer) && has(.gyroscope) }

    /// Shortest and longest update interval a client may ask for, seconds: the sensor's fastest sample
    /// period up to ``longestUpdateInterval`` (no bound of its own at the slow end).
    public func intervalRange(_ sensor: SensorKind) -> ClosedRange<TimeInterval>? {
        guard let d = sensorDescription(sensor) else { return nil }
        let fastest = 1 / d.maximumRate
        return fastest...max(fastest, longestUpdateInterval)
    }

    /// `requested` clamped into ``intervalRange(_:)``; NaN and negative values count as "fastest". Without
    /// the sensor, the value is only made non-negative.
    public func clampInterval(_ requested: TimeInterval, for sensor: SensorKind) -> TimeInterval {
        let value = requested.isNaN ? 0 : max(0, requested)
        guard let range = intervalRange(sensor) else { return value }
        return min(max(value, range.lowerBound), range.upperBound)
    }

    /// The wall-clock date of a device timestamp.
    public func date(at time: TimeInterval) -> Date { clock.date(at: time) }
}

/// The longest update interval a client may ask for, seconds: no bound of its own. Apple documents a bound
/// only at the fast end ("capped to minimum and maximum values; the maximum value is determined by the
/// maximum frequency supported by the hardware",
/// https://developer.apple.com/documentation/coremotion/cmmotionmanager/accelerometerupdateinterval) and
/// tells apps to ask for the largest interval they can live with to save energy ("Reduce the Frequency of
/// Motion Updates", Energy Efficiency Guide for iOS Apps,
/// https://developer.apple.com/library/archive/documentation/Performance/Conceptual/EnergyGuide-iOS/MotionBestPractices.html),
/// so an interval of 5 s gives one sample every 5 s. Only infinity is brought down to the largest finite
/// value (the stream then delivers its first sample only), so that every interval stays a finite number on
/// the wire.
public let longestUpdateInterval: TimeInterval = .greatestFiniteMagnitude
