import Foundation
import MotionService

/// Altitude from the barometer: relative to the start of updates, and absolute when a reference is
/// configured.
open class CMAltimeter: NSObject, @unchecked Sendable {
    let service: MotionService

    public override init() {
        service = MotionService.current
        super.init()
    }

    /// Whether relative altitude is available: the device needs a barometer.
    open class func isRelativeAltitudeAvailable() -> Bool { MotionService.current.has(.barometer) }
    /// Whether absolute altitude is available: a barometer and a configured reference.
    open class func isAbsoluteAltitudeAvailable() -> Bool { false }
    /// Authorization (see the README's authorization policy; `.authorized` by default).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Starts relative-altitude updates on `queue` (no effect without a barometer).
    open func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {}
    /// Stops relative-altitude updates.
    open func stopRelativeAltitudeUpdates() {}
    /// Starts absolute-altitude updates on `queue`.
    open func startAbsoluteAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAbsoluteAltitudeHandler) {}
    /// Stops absolute-altitude updates.
    open func stopAbsoluteAltitudeUpdates() {}
}
