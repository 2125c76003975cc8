import Foundation

/// One client's view of the fused attitude in the reference frame it asked for.
///
/// The filter runs once; each client keeps one of these, created when its updates start. It
/// captures the start yaw for the arbitrary frames (so their yaw reads zero at start, as on Apple's
/// devices) and holds the declination for the true-north frame. Pure and allocation-free.
public struct AttitudeFrame: Sendable, Hashable {
    /// The reference frame the client asked for.
    public let referenceFrame: AttitudeReferenceFrame
    /// Magnetic declination, radians, positive when magnetic north is east of true north (only used
    /// by `AttitudeReferenceFrame.xTrueNorthZVertical`; see ``WorldMagneticModel``).
    public var declination: Double
    /// Rotation about the vertical captured at the first estimate (arbitrary frames), radians.
    public private(set) var startYaw: Double?

    /// A frame before its first estimate; `declination` (radians) matters for the true-north
    /// frame only.
    public init(_ referenceFrame: AttitudeReferenceFrame, declination: Double = 0) {
        self.referenceFrame = referenceFrame
        self.declination = declination
    }

    /// The attitude (device → this frame) for `estimate`; the first call fixes the start yaw of the
    /// arbitrary frames.
    public mutating func attitude(for estimate: DeviceMotionEstimate) -> Quaternion {
        switch referenceFrame {
        case .xArbitraryZVertical:
            return removingStartYaw(estimate.attitude6D)
        case .xArbitraryCorrectedZVertical:
            return removingStartYaw(estimate.attitude9D)
        case .xMagneticNorthZVertical:
            return estimate.attitude9D
        case .xTrueNorthZVertical:
            // Magnetic north lies `declination` east of true north: v_true = Rz(−declination) v_magnetic.
            return (Quaternion.aboutZ(-declination) * estimate.attitude9D).normalizedFast
        }
    }

    /// `CMDeviceMotion.heading` for `attitude` (already in this frame), degrees: in [0, 360) for
    /// the north frames, −1 for the arbitrary frames (Apple's "invalid"). See `headingDegrees(of:)` (MotionSamples).
    public func heading(of attitude: Quaternion) -> Double {
        referenceFrame.hasHeading ? headingDegrees(of: attitude) : -1
    }

    private mutating func removingStartYaw(_ q: Quaternion) -> Quaternion {
        if startYaw == nil { startYaw = q.appleEulerAngles.yaw }
        return (Quaternion.aboutZ(-(startYaw ?? 0)) * q).normalizedFast
    }
}
