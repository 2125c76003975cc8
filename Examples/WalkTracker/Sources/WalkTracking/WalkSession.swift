import CoreMotion

/// A walk in progress: the steps taken and the distance covered since it started, from `CMPedometer`'s
/// live updates.
///
/// The app's motion code, as on iOS. `CMPedometer` calls its handler on a queue of its own, so the session
/// keeps the latest ``WalkProgress`` behind a lock and hands a copy to `onUpdate`, on that queue; an app
/// sends it on to the main queue to show it.
///
/// ```swift
/// let session = WalkSession()
/// session.start { progress in
///     DispatchQueue.main.async { label.text = progress.summary }
/// }
/// ```
public final class WalkSession: @unchecked Sendable {  // @unchecked: `latest` is read and written under `state`
    private let pedometer = CMPedometer()
    private let state = NSLock()
    private var latest: WalkProgress?

    public init() {}

    /// Whether this device counts steps (it needs an accelerometer).
    public static var isAvailable: Bool { CMPedometer.isStepCountingAvailable() }

    /// Whether this device estimates the distance walked.
    public static var isDistanceAvailable: Bool { CMPedometer.isDistanceAvailable() }

    /// The walk so far, `nil` before the first update.
    public var progress: WalkProgress? {
        state.withLock { latest }
    }

    /// Starts counting from `date` (now, in an app; the harness's date in a test).
    ///
    /// - Parameters:
    ///   - onUpdate: runs on the pedometer's queue after every update, with the walk so far.
    ///   - onError: runs on the pedometer's queue when Core Motion reports an error (not authorized, …).
    public func start(
        from date: Date = Date(),
        onUpdate: @escaping @Sendable (WalkProgress) -> Void = { _ in },
        onError: @escaping @Sendable (any Error) -> Void = { _ in }
    ) {
        pedometer.startUpdates(from: date) { @Sendable [weak self] data, error in
            if let error { return onError(error) }
            guard let self, let data else { return }
            let progress = WalkProgress(data)
            self.state.withLock { self.latest = progress }
            onUpdate(progress)
        }
    }

    /// Stops the updates; ``progress`` keeps the last one.
    public func stop() {
        pedometer.stopUpdates()
    }
}

/// A walk's figures at one update, as plain values an app may pass between queues.
public struct WalkProgress: Sendable, Equatable {
    /// When the walk started.
    public var start: Date
    /// The time of this update.
    public var end: Date
    /// Steps since ``start``.
    public var steps: Int
    /// Metres since ``start``, where the device estimates distance.
    public var distance: Double?
    /// Steps per second now, when the person is walking.
    public var cadence: Double?

    /// Plain values from a pedometer update.
    public init(_ data: CMPedometerData) {
        start = data.startDate
        end = data.endDate
        steps = data.numberOfSteps.intValue
        distance = data.distance?.doubleValue
        cadence = data.currentCadence?.doubleValue
    }

    /// Seconds from ``start`` to ``end``.
    public var duration: TimeInterval { end.timeIntervalSince(start) }

    /// Metres per step, when the distance is known and there are steps.
    public var strideLength: Double? {
        guard let distance, steps > 0 else { return nil }
        return distance / Double(steps)
    }

    /// `42 steps · 31 m · 1.85 steps/s`.
    public var summary: String {
        var text = "\(steps) step\(steps == 1 ? "" : "s")"
        if let distance { text += String(format: " · %.0f m", distance) }
        if let cadence { text += String(format: " · %.2f steps/s", cadence) }
        return text
    }
}
