import Foundation
import MotionEngine

extension MotionService {
    /// The reference frames usable now: the arbitrary frame with an accelerometer and a gyroscope; the
    /// corrected and magnetic-north frames also with a magnetometer; true north also with a location
    /// (`COREMOTION_LOCATION`) for the declination.
    public var availableReferenceFrames: Set<AttitudeReferenceFrame> {
        guard isDeviceMotionAvailable else { return [] }
        var frames: Set<AttitudeReferenceFrame> = [.xArbitraryZVertical]
        if has(.magnetometer) {
            frames.formUnion([.xArbitraryCorrectedZVertical, .xMagneticNorthZVertical])
            if magneticDeclination() != nil { frames.insert(.xTrueNorthZVertical) }
        }
        return frames
    }

    private var deviceMotionHub: DeviceMotionHub {
        recorders.lock.lock()
        defer { recorders.lock.unlock() }
        if let hub = recorders.deviceMotion { return hub }
        let hub = DeviceMotionHub(service: self)
        recorders.deviceMotion = hub
        return hub
    }

    /// Subscribes to device motion in `frame`, decimated to `interval` seconds (clamped like the
    /// accelerometer's). Returns `nil` when the device cannot compute device motion or the frame is
    /// not available now.
    ///
    /// `receive` runs under the service's lock: it must be quick and must not call back into the
    /// service. Cancelling the stream ends the subscription; the fusion stops after the last one.
    public func subscribeDeviceMotion(
        frame: AttitudeReferenceFrame, interval: TimeInterval, receive: @escaping @Sendable (DeviceMotionUpdate) -> Void
    ) -> (any MotionSubscription)? {
        guard availableReferenceFrames.contains(frame), let accelerometer = sensorDescription(.accelerometer) else { return nil }
        let declination = frame == .xTrueNorthZVertical ? (magneticDeclination() ?? 0) : 0
        let subscription = DeviceMotionSubscription(
            id: nextDeviceMotionID(), interval: clampInterval(interval, for: .accelerometer),
            devicePeriod: 1 / accelerometer.maximumRate, frame: AttitudeFrame(frame, declination: declination), receive: receive
        )
        let hub = deviceMotionHub
        hub.add(subscription)
        return CancellableStream(interval: subscription.interval) { hub.remove(subscription) }
    }

    private func nextDeviceMotionID() -> Int {
        recorders.lock.lock()
        defer { recorders.lock.unlock() }
        recorders.deviceMotionIDs += 1
        return recorders.deviceMotionIDs
    }

    /// The magnetic declination at ``location`` on the device clock's date (radians, east positive,
    /// World Magnetic Model 2025), or `nil` without a location.
    public func magneticDeclination() -> Double? {
        location?.declination(on: clock.date(at: clock.now))
    }
}
