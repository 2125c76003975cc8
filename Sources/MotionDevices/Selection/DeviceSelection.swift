import Foundation
import MotionSamples

/// The devices a process uses, as `COREMOTION_DEVICE` and `COREMOTION_HEADPHONE_DEVICE` choose them: what an
/// in-process service is built over (`CoreMotion`'s in-process provider, the `coremotion` tool) and what
/// `coremotiond` owns.
public struct DeviceSelection {
    /// How the device was chosen.
    public var specification: DeviceSpecification
    /// The device all samples come from.
    public var device: any MotionDevice
    /// How the headphones were chosen.
    public var headphoneSpecification: HeadphoneDeviceSpecification
    /// The headphones beside the device, or `nil` for none.
    public var headphones: (any HeadphoneDevice)?

    /// Opens the devices `specification` and `headphoneSpecification` name, on `clock`.
    ///
    /// - Throws: ``DeviceSpecificationError`` naming the variable, the value and the reason.
    public init(
        _ specification: DeviceSpecification, headphones headphoneSpecification: HeadphoneDeviceSpecification = .none,
        clock: any MotionClock = SystemClock.shared
    ) throws {
        self.specification = specification
        self.headphoneSpecification = headphoneSpecification
        device = try DeviceFactory.makeDevice(specification, clock: clock)
        headphones = try HeadphoneDeviceFactory.makeDevice(headphoneSpecification, clock: clock)
    }

    /// Opens the devices the environment names (`COREMOTION_DEVICE`, `COREMOTION_HEADPHONE_DEVICE`) on the
    /// system clock.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DeviceSelection {
        try DeviceSelection(
            DeviceSpecification.fromEnvironment(environment),
            headphones: HeadphoneDeviceSpecification.fromEnvironment(environment))
    }

    /// Whether the device is this machine's own hardware (`auto`, `iio`), whose sensor calibration is worth
    /// keeping between processes; recordings, the simulator and phones start fresh.
    public var isMachineHardware: Bool { specification.isMachineHardware }
}

extension DeviceSpecification {
    /// Whether this names this machine's own hardware (`auto`, `iio`).
    public var isMachineHardware: Bool {
        switch self {
        case .auto, .iio: return true
        default: return false
        }
    }
}
