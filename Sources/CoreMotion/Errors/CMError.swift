import Foundation
import MotionClient

/// The error domain of Core Motion errors (`"CMErrorDomain"`).
public let CMErrorDomain: String = "CMErrorDomain"

/// A Core Motion error code, as Apple's C enum imports into Swift: a struct with a `UInt32` raw value
/// and one global constant per code (`CMErrorNotAuthorized`). Client code compares
/// `(error as NSError).code == Int(CMErrorNotAuthorized.rawValue)`.
public struct CMError: RawRepresentable, Equatable, Hashable, Sendable, BitwiseCopyable {
    /// The code, as in Apple's `CMError` C enum (100 … 113).
    public var rawValue: UInt32
    /// The error with this code.
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }
    /// The error with this code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}

/// No error.
public var CMErrorNULL: CMError { CMError(100) }
/// The device must move before data can be sampled (magnetometer calibration); reported once through
/// the device-motion handler.
public var CMErrorDeviceRequiresMovement: CMError { CMError(101) }
/// True north cannot be determined (no location for the magnetic declination).
public var CMErrorTrueNorthNotAvailable: CMError { CMError(102) }
/// An unknown error; also the result of an activity query over a span without data.
public var CMErrorUnknown: CMError { CMError(103) }
/// Motion activity is not available on this device.
public var CMErrorMotionActivityNotAvailable: CMError { CMError(104) }
/// The app is not authorized for motion activity.
public var CMErrorMotionActivityNotAuthorized: CMError { CMError(105) }
/// The app lacks the motion-activity entitlement.
public var CMErrorMotionActivityNotEntitled: CMError { CMError(106) }
/// A parameter was invalid.
public var CMErrorInvalidParameter: CMError { CMError(107) }
/// The action is invalid.
public var CMErrorInvalidAction: CMError { CMError(108) }
/// The service is not available on this device.
public var CMErrorNotAvailable: CMError { CMError(109) }
/// A required entitlement is missing.
public var CMErrorNotEntitled: CMError { CMError(110) }
/// The app is not authorized to use Core Motion.
public var CMErrorNotAuthorized: CMError { CMError(111) }
/// No data was returned.
public var CMErrorNilData: CMError { CMError(112) }
/// The data has the wrong size.
public var CMErrorSize: CMError { CMError(113) }

extension CMError {
    /// An `NSError` in ``CMErrorDomain`` with this code and a readable description.
    func error(_ description: String) -> NSError {
        NSError(domain: CMErrorDomain, code: Int(rawValue), userInfo: [NSLocalizedDescriptionKey: description])
    }
}

extension CMError {
    /// The Core Motion error for a failure of the provider while reading `what` (e.g. "the pedometer
    /// history"): not authorized → `CMErrorMotionActivityNotAuthorized`, not available →
    /// `CMErrorMotionActivityNotAvailable`, a bad parameter → `CMErrorInvalidParameter`, anything else →
    /// `CMErrorUnknown`; the description says what happened.
    static func from(_ error: any Error, reading what: String) -> NSError {
        switch error as? MotionProviderError {
        case .notAuthorized(_, let reason)?:
            CMErrorMotionActivityNotAuthorized.error("\(what) is not authorized for this app: \(reason)")
        case .notAvailable(let reason)?:
            CMErrorMotionActivityNotAvailable.error("\(what) is not available: \(reason)")
        case .invalidParameter(let reason)?:
            CMErrorInvalidParameter.error(reason)
        default:
            CMErrorUnknown.error("\(what) cannot be read: \(error)")
        }
    }
}
