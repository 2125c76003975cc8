import Foundation

/// The four attitude reference frames of Core Motion (`CMAttitudeReferenceFrame`), with their raw values.
@frozen
public enum AttitudeReferenceFrame: UInt, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// z vertical, x arbitrary in the horizontal plane (yaw zero when updates start); no magnetometer.
    case xArbitraryZVertical = 1
    /// As ``xArbitraryZVertical`` but the magnetometer removes yaw drift.
    case xArbitraryCorrectedZVertical = 2
    /// z vertical, x towards magnetic north, y west.
    case xMagneticNorthZVertical = 4
    /// z vertical, x towards true (geographic) north, y west; needs the declination.
    case xTrueNorthZVertical = 8

    /// Whether the frame uses the magnetometer.
    public var usesMagnetometer: Bool { self != .xArbitraryZVertical }

    /// Whether `heading` is defined in this frame.
    public var hasHeading: Bool { self == .xMagneticNorthZVertical || self == .xTrueNorthZVertical }

    public var description: String {
        switch self {
        case .xArbitraryZVertical: "xArbitraryZVertical"
        case .xArbitraryCorrectedZVertical: "xArbitraryCorrectedZVertical"
        case .xMagneticNorthZVertical: "xMagneticNorthZVertical"
        case .xTrueNorthZVertical: "xTrueNorthZVertical"
        }
    }

    /// Parses the Swift case name (`"xMagneticNorthZVertical"`) or Apple's Objective-C constant name.
    public init?(name: String) {
        let key = name.replacingOccurrences(of: "CMAttitudeReferenceFrame", with: "").lowercased()
        guard let frame = Self.allCases.first(where: { $0.description.lowercased() == key }) else { return nil }
        self = frame
    }
}
