import Foundation

/// A 3-axis acceleration in g (1 g = 9.80665 m/s²), in the device's axes: with the phone in portrait
/// facing you, +x points right, +y up, +z out of the screen. At rest face-up the accelerometer reads
/// (0, 0, −1).
public struct CMAcceleration: Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A 3-axis rotation rate in radians per second; the sign of each component follows the right-hand
/// rule about its device axis.
public struct CMRotationRate: Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A 3-axis magnetic field in microtesla, device axes.
public struct CMMagneticField: Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double
    /// All components zero.
    public init() { self.init(x: 0, y: 0, z: 0) }
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }
}

/// A calibrated magnetic field (µT, device axes, the device's own bias removed) and how well it is
/// calibrated.
public struct CMCalibratedMagneticField: Sendable, BitwiseCopyable {
    public var field: CMMagneticField
    public var accuracy: CMMagneticFieldCalibrationAccuracy
    /// A zero field, `.uncalibrated`.
    public init() { self.init(field: CMMagneticField(), accuracy: .uncalibrated) }
    public init(field: CMMagneticField, accuracy: CMMagneticFieldCalibrationAccuracy) {
        self.field = field
        self.accuracy = accuracy
    }
}

/// A unit quaternion `x·i + y·j + z·k + w` (scalar last) that rotates device axes into the
/// reference frame: for a rotation by θ about the unit axis (ax, ay, az),
/// `x = ax·sin(θ/2)`, `y = ay·sin(θ/2)`, `z = az·sin(θ/2)`, `w = cos(θ/2)`.
public struct CMQuaternion: Sendable, BitwiseCopyable {
    public var x: Double
    public var y: Double
    public var z: Double
    public var w: Double
    /// All components zero (not a rotation; Apple's C struct default).
    public init() { self.init(x: 0, y: 0, z: 0, w: 0) }
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
    public var m11: Double, m12: Double, m13: Double
    public var m21: Double, m22: Double, m23: Double
    public var m31: Double, m32: Double, m33: Double
    /// All entries zero.
    public init() { self.init(m11: 0, m12: 0, m13: 0, m21: 0, m22: 0, m23: 0, m31: 0, m32: 0, m33: 0) }
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
