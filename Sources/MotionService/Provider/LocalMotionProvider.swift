import Foundation
import Logging

/// The client interface served in process: the app's own ``MotionService`` owns the device and runs the
/// engines. Used for recordings, the simulator, tests on a virtual clock, and Linux IIO sensors when no
/// `coremotiond` answers.
///
/// Authorization in process follows the environment: Linux has no motion permission prompt, so
/// ``authorizationStatus()`` is `.authorized` unless `COREMOTION_AUTHORIZATION` names another state (to
/// exercise an app's handling of it). Only `coremotiond` makes real per-user, per-app decisions.
public final class LocalMotionProvider: MotionProvider {
    /// The service behind this provider.
    public let service: MotionService
    private let authorizationOverride: AuthorizationStatus?

    /// - Parameters:
    ///   - service: the service that owns the device.
    ///   - authorization: what ``authorizationStatus()`` reports; `nil` reads `COREMOTION_AUTHORIZATION`
    ///     from the environment each time (default `.authorized`).
    public init(service: MotionService, authorization: AuthorizationStatus? = nil) {
        self.service = service
        self.authorizationOverride = authorization
    }

    /// The app's own history: nothing decides in process.
    public var undecidedWithholdsHistory: Bool { false }

    public var deviceName: String { service.device.name }
    public var clock: any MotionClock { service.clock }
    public var logger: Logger { service.logger }
    public var deliveries: DeliveryTracker { service.deliveries }

    public func sensorDescription(_ sensor: SensorKind) -> SensorDescription? { service.sensorDescription(sensor) }

    public func subscribe(
        to sensor: SensorKind, interval: TimeInterval, receive: @escaping @Sendable (SensorSample) -> Void
    ) -> (any MotionSubscription)? {
        guard let s = service.subscribe(to: sensor, interval: interval, receive: receive) else { return nil }
        let service = self.service
        return CancellableStream(interval: s.interval) { service.cancel(s) }
    }

    public var availableReferenceFrames: Set<AttitudeReferenceFrame> { service.availableReferenceFrames }

    public func subscribeDeviceMotion(
        frame: AttitudeReferenceFrame, interval: TimeInterval, receive: @escaping @Sendable (DeviceMotionUpdate) -> Void
    ) -> (any MotionSubscription)? {
        guard let s = service.subscribeDeviceMotion(frame: frame, interval: interval, receive: receive) else { return nil }
        let service = self.service
        return CancellableStream(interval: s.interval) { service.cancel(s) }
    }

    public var isAbsoluteAltitudeAvailable: Bool { service.isAbsoluteAltitudeAvailable }

    public func subscribeAltitude(absolute: Bool, receive: @escaping @Sendable (AltitudeValue) -> Void) -> (any MotionSubscription)? {
        guard let client = service.startAltitudeUpdates(absolute: absolute, receive: receive) else { return nil }
        let service = self.service
        return CancellableStream(interval: 0) { service.stopAltitudeUpdates(client) }
    }

    public func startPedometerRecording() {
        if service.has(.accelerometer) { service.startPedometerRecording() }
    }

    public func subscribePedometer(from start: Date, receive: @escaping @Sendable (PedometerTotals) -> Void) -> (any MotionSubscription)? {
        guard service.has(.accelerometer), let session = service.startPedometerSession(from: start, receive: receive) else { return nil }
        let service = self.service
        return CancellableStream(interval: 0) { service.stopPedometerSession(session) }
    }

    public func subscribePedometerEvents(receive: @escaping @Sendable (PedometerPauseEvent) -> Void) -> (any MotionSubscription)? {
        guard service.has(.accelerometer) else { return nil }
        let client = service.startPedometerEvents(receive)
        let service = self.service
        return CancellableStream(interval: 0) { service.stopPedometerEvents(client) }
    }

    public func pedometerTotals(from start: Date, to end: Date) throws -> PedometerTotals {
        try service.pedometerTotals(from: start, to: end)
    }

    public func startActivityRecording() {
        if service.has(.accelerometer) { service.startActivityRecording() }
    }

    public func subscribeActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        guard let client = service.startActivityUpdates(receive) else { return nil }
        let service = self.service
        return CancellableStream(interval: 0) { service.stopActivityUpdates(client) }
    }

    public func activityHistory(from start: Date, to end: Date) throws -> [ActivityReport] {
        try service.activityHistory(from: start, to: end)
    }

    public var isAccelerometerRecordingAvailable: Bool { service.has(.accelerometer) && service.history != nil }

    public func recordAccelerometer(forDuration duration: TimeInterval) throws {
        try service.recordAccelerometer(forDuration: duration)
    }

    public func resumeAccelerometerRecording() { service.resumeAccelerometerRecording() }

    public func recordedAccelerometer(from start: Date, to end: Date) throws -> [RecordedAccelerometerSample] {
        try service.recordedAccelerometer(from: start, to: end)
    }

    public var isHeadphoneMotionAvailable: Bool { service.isHeadphoneMotionAvailable }

    public func subscribeHeadphoneConnection(
        receive: @escaping @Sendable (HeadphoneConnectionState) -> Void
    ) -> (any MotionSubscription)? {
        headphoneStream(service.subscribeHeadphoneConnection(receive: receive))
    }

    public func subscribeHeadphoneMotion(receive: @escaping @Sendable (HeadphoneMotionSample) -> Void) -> (any MotionSubscription)? {
        headphoneStream(service.subscribeHeadphoneMotion(receive: receive))
    }

    public func subscribeHeadphoneActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        headphoneStream(service.subscribeHeadphoneActivity(receive: receive))
    }

    private func headphoneStream(_ subscription: HeadphoneSubscription?) -> (any MotionSubscription)? {
        guard let subscription else { return nil }
        let service = self.service
        return CancellableStream(interval: 0) { service.cancel(subscription) }
    }

    public func authorizationStatus() -> AuthorizationStatus {
        if let authorizationOverride { return authorizationOverride }
        return LocalMotionProvider.environmentAuthorization()
    }

    /// `COREMOTION_AUTHORIZATION` from the environment (`authorized` when unset or unknown).
    public static func environmentAuthorization(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> AuthorizationStatus {
        environment["COREMOTION_AUTHORIZATION"].flatMap(AuthorizationStatus.init(name:)) ?? .authorized
    }
}
