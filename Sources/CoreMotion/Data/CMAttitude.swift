import Foundation
import MotionSamples
import MotionSamples

/// The orientation of the device relative to a reference frame (``CMAttitudeReferenceFrame``), as a
/// quaternion, a rotation matrix or Euler angles.
///
/// Conventions (measured on a real iPhone, `docs/conventions.md#attitude`): the quaternion rotates device axes
/// into the reference frame; the Euler angles satisfy R = Rz(yaw)·Rx(pitch)·Ry(roll), so
/// pitch ∈ [−π/2, π/2] is about x, roll ∈ (−π, π] about y and yaw ∈ (−π, π] about z.
open class CMAttitude: NSObject, NSCopying, NSSecureCoding {
    private let lock = NSLock()
    private var value: Quaternion

    /// The identity attitude.
    public override init() {
        value = .identity
        super.init()
    }

    init(_ quaternion: Quaternion) {
        value = quaternion
        super.init()
    }

    /// The attitude as an engine quaternion.
    var engineQuaternion: Quaternion {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    /// Rotation about the device's y axis (top to bottom), radians, in (−π, π].
    open var roll: Double { engineQuaternion.appleEulerAngles.roll }
    /// Rotation about the device's x axis (side to side), radians, in [−π/2, π/2].
    open var pitch: Double { engineQuaternion.appleEulerAngles.pitch }
    /// Rotation about the device's z axis (out of the screen), radians, in (−π, π].
    open var yaw: Double { engineQuaternion.appleEulerAngles.yaw }

    /// The attitude as a unit quaternion (scalar last) rotating device axes into the reference frame.
    open var quaternion: CMQuaternion {
        let q = engineQuaternion
        return CMQuaternion(x: q.x, y: q.y, z: q.z, w: q.w)
    }

    /// The attitude as a rotation matrix: the transpose of the quaternion's matrix, so it maps
    /// reference-frame vectors into device axes (`v_device = M · v_reference`), as Apple's does (the
    /// evidence is in `docs/fusion.md`, "Apple's conventions").
    open var rotationMatrix: CMRotationMatrix { AttitudeConventions.rotationMatrix(of: engineQuaternion) }

    /// Replaces the receiver by its change relative to `attitude`: receiver := attitude⁻¹ · receiver.
    ///
    /// Cache an attitude as a zero point, then apply this to later samples' attitudes to get the
    /// rotation since then.
    open func multiply(byInverseOf attitude: CMAttitude) {
        let reference = attitude.engineQuaternion
        lock.lock()
        value = AttitudeConventions.relative(value, to: reference)
        lock.unlock()
    }

    /// `true`: attitudes support `NSSecureCoding`.
    public class var supportsSecureCoding: Bool { true }

    /// Encodes the quaternion (keys `q.w`, `q.x`, `q.y`, `q.z`).
    open func encode(with coder: NSCoder) {
        let q = engineQuaternion
        coder.encode(q.w, forKey: "q.w")
        coder.encode(q.x, forKey: "q.x")
        coder.encode(q.y, forKey: "q.y")
        coder.encode(q.z, forKey: "q.z")
    }

    /// Decodes an attitude written by `encode(with:)`.
    public required init?(coder: NSCoder) {
        value = Quaternion(
            w: coder.decodeDouble(forKey: "q.w"), x: coder.decodeDouble(forKey: "q.x"),
            y: coder.decodeDouble(forKey: "q.y"), z: coder.decodeDouble(forKey: "q.z")
        )
        super.init()
    }

    /// A new attitude with the same value (attitudes are mutable through ``multiply(byInverseOf:)``).
    open func copy(with zone: NSZone? = nil) -> Any { CMAttitude(engineQuaternion) }

    /// Roll, pitch and yaw in radians, for logs.
    open override var description: String {
        String(format: "CMAttitude roll %f pitch %f yaw %f", roll, pitch, yaw)
    }
}

/// The two conventions that Apple does not document, settled with evidence in `docs/fusion.md#apples-conventions` and
/// implemented beside the samples (`MotionSamples.rotationMatrix(of:)`, `relativeAttitude(_:toReference:)`).
enum AttitudeConventions {
    /// `CMRotationMatrix` of an attitude quaternion: the transpose of R, whose rows are the reference
    /// axes in device axes.
    static func rotationMatrix(of q: Quaternion) -> CMRotationMatrix {
        let r = MotionSamples.rotationMatrix(of: q)
        return CMRotationMatrix(
            m11: r.m11, m12: r.m12, m13: r.m13, m21: r.m21, m22: r.m22, m23: r.m23, m31: r.m31, m32: r.m32, m33: r.m33
        )
    }

    /// `a.multiply(byInverseOf: b)`: the receiver becomes b⁻¹ ⊗ a.
    static func relative(_ a: Quaternion, to b: Quaternion) -> Quaternion {
        relativeAttitude(a, toReference: b)
    }
}
