import Foundation
import Logging

/// The client interface served in process: the app's own ``MotionService`` owns the device and runs the
/// engines. Used for recordings, the simulator, tests on a virtual clock, and Linux IIO sensors when no
/// `coremotiond` answers; `coremotiond` serves its clients' streams through the same methods.
///
/// The streams are the service's own (``MotionClient/CancellableStream``s whose cancel ends them); the
/// members below that are not stream subscriptions live beside the engine they belong to (the pedometer in
/// `Pedometer/`, device motion in `DeviceMotion/`, and so on).
///
/// Authorization in process follows the environment: Linux has no motion permission prompt, so
/// ``authorizationStatus()`` is `.authorized` unless `COREMOTION_AUTHORIZATION` names another state (to
/// exercise an app's handling of it). Only `coremotiond` makes real per-user, per-app decisions.
extension MotionService: MotionProvider {
    /// The app's own history: nothing decides in process.
    public var undecidedWithholdsHistory: Bool { false }

    /// The device's name, e.g. `replay:/data/walk (Sensor Logger, iPhone 13)`.
    public var deviceName: String { device.name }

    /// Every sample of `sensor` as soon as the device has it (latency 0), thinned to `interval` seconds
    /// (clamped with ``MotionProvider/clampInterval(_:for:)``); `nil` when the device lacks the sensor.
    /// `receive` runs on the device's thread under the service's lock.
    public func subscribe(
        to sensor: SensorKind, interval: TimeInterval, receive: @escaping @Sendable (SensorSample) -> Void
    ) -> (any MotionSubscription)? {
        guard let s = subscribe(to: sensor, interval: interval, maximumLatency: 0, receive: receive) else { return nil }
        return CancellableStream(interval: s.interval) { [self] in cancel(s) }
    }

    /// Whether the accelerometer can be recorded: the device has one and the history opened.
    public var isAccelerometerRecordingAvailable: Bool { has(.accelerometer) && history != nil }

    /// The fixed status given at ``init(device:keepsCalibration:history:location:historySettings:headphones:authorization:)``,
    /// or else the environment's (``environmentAuthorization(_:)``).
    public func authorizationStatus() -> AuthorizationStatus {
        authorizationOverride ?? Self.environmentAuthorization()
    }

    /// `COREMOTION_AUTHORIZATION` from the environment (`authorized` when unset or unknown).
    public static func environmentAuthorization(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AuthorizationStatus {
        environment["COREMOTION_AUTHORIZATION"].flatMap(AuthorizationStatus.init(name:)) ?? .authorized
    }
}
