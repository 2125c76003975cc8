import Foundation

/// A 3-axis acceleration in g (1 g = 9.80665 m/s²), in the device's axes: with the phone in portrait
/// facing you, +x points right, +y up, +z out of the screen. At rest face-up the accelerometer reads
/// (0, 0, −1).
public struct CMAcceleration: Sendable, BitwiseCopyable {
    /// Acceleration along the device's x axis, g.
    public var x: Double
    /// Acceleration along the device's y axis, g.
    public var y: Double
    /// Acceleration along the device's z axis, g.
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    /// An acceleration of x, y and z g.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A 3-axis rotation rate in radians per second; the sign of each component follows the right-hand
/// rule about its device axis.
public struct CMRotationRate: Sendable, BitwiseCopyable {
    /// Rotation rate about the device's x axis, rad/s (right-hand rule).
    public var x: Double
    /// Rotation rate about the device's y axis, rad/s (right-hand rule).
    public var y: Double
    /// Rotation rate about the device's z axis, rad/s (right-hand rule).
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    /// A rotation rate of x, y and z rad/s.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A 3-axis magnetic field in microtesla, device axes.
public struct CMMagneticField: Sendable, BitwiseCopyable {
    /// Field along the device's x axis, µT.
    public var x: Double
    /// Field along the device's y axis, µT.
    public var y: Double
    /// Field along the device's z axis, µT.
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    /// A field of x, y and z µT.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A calibrated magnetic field (µT, device axes, the device's own bias removed) and how well it is
/// calibrated.
public struct CMCalibratedMagneticField: Sendable, BitwiseCopyable {
    /// The field, µT, device axes, with the device's own bias removed.
    public var field: CMMagneticField
    /// How well the field is calibrated.
    public var accuracy: CMMagneticFieldCalibrationAccuracy
    /// A zero field, `.uncalibrated`.
    public init() { self.init(field: CMMagneticField(), accuracy: .uncalibrated) }
    /// A field and its calibration accuracy.
    public init(field: CMMagneticField, accuracy: CMMagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }
}

/// A unit quaternion `x·i + y·j + z·k + w` (scalar last) that rotates device axes into the
/// reference frame: for a rotation by θ about the unit axis (ax, ay, az),
/// `x = ax·sin(θ/2)`, `y = ay·sin(θ/2)`, `z = az·sin(θ/2)`, `w = cos(θ/2)`.
public struct CMQuaternion: Sendable, BitwiseCopyable {
    /// The i component: the rotation axis's x times sin(θ/2).
    public var x: Double
    /// The j component: the rotation axis's y times sin(θ/2).
    public var y: Double
    /// The k component: the rotation axis's z times sin(θ/2).
    public var z: Double
    /// The scalar component: cos(θ/2).
    public var w: Double
    /// All components zero (not a rotation; Apple's C struct default).
    public init() { self.init(x: 0, y: 0, z: 0, w: 0) }
    /// A quaternion with these components (not normalised).
    public init(x: Double, y: Double, z: Double, w: Double) {
        self.x = x
        self.y = y
        self.z = z
        self.w = w
    }
}

/// A 3×3 rotation matrix; `mRC` is row R, column C. See ``CMAttitude/rotationMatrix`` for its
/// direction.
public struct CMRotationMatrix: Sendable, BitwiseCopyable {
    /// Row 1: the device's x axis in the reference frame. The matrix maps reference-frame vectors into
    /// device axes (`v_device = M · v_reference`), so its columns are the reference axes in device axes.
    public var m11: Double, m12: Double, m13: Double
    /// Row 2: the device's y axis in the reference frame.
    public var m21: Double, m22: Double, m23: Double
    /// Row 3: the device's z axis in the reference frame; `(m13, m23, m33)` is "up" in device axes,
    /// so gravity is `−(m13, m23, m33)`.
    public var m31: Double, m32: Double, m33: Double
    /// All entries zero.
    public init() { self.init(m11: 0, m12: 0, m13: 0, m21: 0, m22: 0, m23: 0, m31: 0, m32: 0, m33: 0) }
    /// A matrix with these entries, row by row.
    public init(
        m11: Double, m12: Double, m13: Double,
        m21: Double, m22: Double, m23: Double,
        m31: Double, m32: Double, m33: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }
}
