import Foundation

/// Opens the device a ``DeviceSpecification`` names.
public enum DeviceFactory {
    /// Makes the device for `specification` on `clock`.
    ///
    /// - Throws: ``DeviceSpecificationError`` naming the value and the reason (missing recording,
    ///   unknown scene, unreadable sysfs root…).
    public static func makeDevice(_ specification: DeviceSpecification, clock: any MotionClock) throws -> any MotionDevice {
        switch specification {
        case .none:
            return NoDevice(clock: clock)
        case .auto:
            return NoDevice(clock: clock)
        case .replay, .simulator, .iio:
            throw DeviceSpecificationError(value: specification.description, reason: "this device kind is not wired yet")
        }
    }
}
