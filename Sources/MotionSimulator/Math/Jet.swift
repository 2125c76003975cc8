import MotionSamples

/// A scalar function of time carried with its first two time derivatives (second-order forward
/// automatic differentiation): `value`, `d1 = d/dt`, `d2 = d²/dt²`.
///
/// Motion scripts are written once as functions of a time jet `Jet.time(t)`; velocity and
/// acceleration (and angular velocity) then follow exactly from the chain rule rather than from
/// finite differences, so the simulated sensors are the exact derivatives of the scripted motion.
@frozen
public struct Jet: Sendable, Hashable {
    /// The value.
    public var value: Double
    /// First time derivative (per second).
    public var d1: Double
    /// Second time derivative (per second²).
    public var d2: Double

    @inlinable
    public init(_ value: Double, _ d1: Double = 0, _ d2: Double = 0) {
        self.value = value
        self.d1 = d1
        self.d2 = d2
    }

    /// The independent variable `t` itself: (t, 1, 0).
    @inlinable public static func time(_ t: Double) -> Jet { Jet(t, 1, 0) }

    /// A constant.
    @inlinable public static func constant(_ c: Double) -> Jet { Jet(c, 0, 0) }

    /// The constant 0.
    public static let zero = Jet(0)
    /// The constant 1.
    public static let one = Jet(1)

    @inlinable public static func + (a: Jet, b: Jet) -> Jet { Jet(a.value + b.value, a.d1 + b.d1, a.d2 + b.d2) }
    @inlinable public static func - (a: Jet, b: Jet) -> Jet { Jet(a.value - b.value, a.d1 - b.d1, a.d2 - b.d2) }
    @inlinable public static prefix func - (a: Jet) -> Jet { Jet(-a.value, -a.d1, -a.d2) }
    @inlinable public static func + (a: Jet, b: Double) -> Jet { Jet(a.value + b, a.d1, a.d2) }
    @inlinable public static func - (a: Jet, b: Double) -> Jet { Jet(a.value - b, a.d1, a.d2) }
    @inlinable public static func + (a: Double, b: Jet) -> Jet { Jet(a + b.value, b.d1, b.d2) }
    @inlinable public static func - (a: Double, b: Jet) -> Jet { Jet(a - b.value, -b.d1, -b.d2) }
    @inlinable public static func * (a: Jet, s: Double) -> Jet { Jet(a.value * s, a.d1 * s, a.d2 * s) }
    @inlinable public static func * (s: Double, a: Jet) -> Jet { Jet(a.value * s, a.d1 * s, a.d2 * s) }
    @inlinable public static func / (a: Jet, s: Double) -> Jet { Jet(a.value / s, a.d1 / s, a.d2 / s) }

    /// Product rule: (ab)' = a'b + ab', (ab)'' = a''b + 2a'b' + ab''.
    @inlinable
    public static func * (a: Jet, b: Jet) -> Jet {
        Jet(
            a.value * b.value,
            a.d1 * b.value + a.value * b.d1,
            a.d2 * b.value + 2 * a.d1 * b.d1 + a.value * b.d2
        )
    }

    @inlinable public static func += (a: inout Jet, b: Jet) { a = a + b }
    @inlinable public static func -= (a: inout Jet, b: Jet) { a = a - b }

    /// `f(self)` given `f`, `f′` and `f″` at `value`: (f, f′·u′, f″·u′² + f′·u″).
    @inlinable
    public func applying(_ f: Double, _ df: Double, _ ddf: Double) -> Jet {
        Jet(f, df * d1, ddf * d1 * d1 + df * d2)
    }

    /// `sin` and `cos` of the jet (argument in radians).
    @inlinable
    public var sinCos: (sin: Jet, cos: Jet) {
        let (s, c) = PortableMath.sinCos(value)
        return (applying(s, c, -s), applying(c, -s, -c))
    }

    /// `sin(2π·self)` and `cos(2π·self)` for a jet counted in turns (cycles), reduced exactly.
    @inlinable
    public var sinCosTurns: (sin: Jet, cos: Jet) {
        let (s, c) = PortableMath.sinCos(turns: value)
        let w = PortableMath.twoPi
        return (applying(s, w * c, -w * w * s), applying(c, -w * s, -w * w * c))
    }

    /// The square root (value must be positive).
    @inlinable
    public var squareRoot: Jet {
        let r = value.squareRoot()
        return applying(r, 0.5 / r, -0.25 / (r * value))
    }
}

/// A vector of ``Jet``s: a vector quantity with its first two time derivatives.
@frozen
public struct JetVector: Sendable, Hashable {
    /// x component.
    public var x: Jet
    /// y component.
    public var y: Jet
    /// z component.
    public var z: Jet

    @inlinable
    public init(_ x: Jet, _ y: Jet, _ z: Jet) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// A constant vector.
    @inlinable public init(constant v: Vector3) { self.init(Jet(v.x), Jet(v.y), Jet(v.z)) }

    /// The constant zero vector.
    public static let zero = JetVector(.zero, .zero, .zero)

    /// The vector's value, its first and second derivatives.
    @inlinable public var value: Vector3 { Vector3(x.value, y.value, z.value) }
    @inlinable public var d1: Vector3 { Vector3(x.d1, y.d1, z.d1) }
    @inlinable public var d2: Vector3 { Vector3(x.d2, y.d2, z.d2) }

    @inlinable public static func + (a: JetVector, b: JetVector) -> JetVector { JetVector(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: JetVector, b: JetVector) -> JetVector { JetVector(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static func * (a: JetVector, s: Jet) -> JetVector { JetVector(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (a: JetVector, s: Double) -> JetVector { JetVector(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func += (a: inout JetVector, b: JetVector) { a = a + b }

    /// Dot product.
    @inlinable public func dot(_ b: JetVector) -> Jet { x * b.x + y * b.y + z * b.z }

    /// Cross product `self × b`.
    @inlinable public func cross(_ b: JetVector) -> JetVector {
        JetVector(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }
}

/// A quaternion of ``Jet``s: an orientation with its first two time derivatives.
///
/// The body angular velocity of a unit quaternion `q` (device → reference) is
/// `ω = 2·vec(q* ⊗ q̇)` and its angular acceleration `ω̇ = 2·vec(q* ⊗ q̈)` (the term `q̇* ⊗ q̇` is a
/// scalar and drops out of the vector part).
@frozen
public struct JetQuaternion: Sendable, Hashable {
    /// Scalar part.
    public var w: Jet
    /// Vector part, x.
    public var x: Jet
    /// Vector part, y.
    public var y: Jet
    /// Vector part, z.
    public var z: Jet

    @inlinable
    public init(w: Jet, x: Jet, y: Jet, z: Jet) {
        self.w = w
        self.x = x
        self.y = y
        self.z = z
    }

    /// A constant orientation.
    @inlinable
    public init(constant q: Quaternion) {
        self.init(w: Jet(q.w), x: Jet(q.x), y: Jet(q.y), z: Jet(q.z))
    }

    /// The constant identity rotation.
    public static let identity = JetQuaternion(constant: .identity)

    /// Rotation by the jet angle `angle` (radians) about the fixed unit axis `axis`.
    @inlinable
    public init(unitAxis axis: Vector3, angle: Jet) {
        let (s, c) = (angle * 0.5).sinCos
        self.init(w: c, x: s * axis.x, y: s * axis.y, z: s * axis.z)
    }

    /// Rotation by the rotation vector `v` (axis × angle, radians), with exact derivatives for any
    /// angle including zero: `q = (C(θ²), v·S(θ²))` with `C(x) = cos(√x/2)`, `S(x) = sin(√x/2)/√x`.
    public init(rotationVector v: JetVector) {
        let theta2 = v.dot(v)
        let (c, s) = JetQuaternion.halfAngleFunctions(theta2)
        self.init(w: c, x: v.x * s, y: v.y * s, z: v.z * s)
    }

    /// Coefficients of `C(x) = Σ (−1)ⁿ xⁿ / (4ⁿ (2n)!)`, n ≤ 9.
    static let cosSeries: [Double] = seriesCoefficients(sinc: false)
    /// Coefficients of `S(x) = Σ (−1)ⁿ xⁿ / (2·4ⁿ (2n+1)!)`, n ≤ 9.
    static let sincSeries: [Double] = seriesCoefficients(sinc: true)

    private static func seriesCoefficients(sinc: Bool) -> [Double] {
        var out: [Double] = []
        var fact2n = 1.0
        var pow4 = 1.0
        var sign = 1.0
        for n in 0...9 {
            if n > 0 {
                fact2n *= Double(2 * n - 1) * Double(2 * n)
                pow4 *= 4
                sign = -sign
            }
            out.append(sinc ? sign / (2 * pow4 * fact2n * Double(2 * n + 1)) : sign / (pow4 * fact2n))
        }
        return out
    }

    /// `C(θ²)` and `S(θ²)` as jets (power series near zero, closed form elsewhere).
    static func halfAngleFunctions(_ x2: Jet) -> (Jet, Jet) {
        let x = x2.value
        var c0 = 0.0, c1 = 0.0, c2 = 0.0, s0 = 0.0, s1 = 0.0, s2 = 0.0
        if x < 1 {
            let cn = JetQuaternion.cosSeries, sn = JetQuaternion.sincSeries
            // Horner for the function and its first two derivatives.
            for n in stride(from: 9, through: 0, by: -1) {
                c2 = c2 * x + 2 * c1
                c1 = c1 * x + c0
                c0 = c0 * x + cn[n]
                s2 = s2 * x + 2 * s1
                s1 = s1 * x + s0
                s0 = s0 * x + sn[n]
            }
        } else {
            let u = x.squareRoot()
            let (sh, ch) = PortableMath.sinCos(u / 2)
            // F(u) = cos(u/2):   F′ = −sin(u/2)/2,  F″ = −cos(u/2)/4.
            // G(u) = sin(u/2)/u: G′ = cos(u/2)/(2u) − sin(u/2)/u²,
            //                    G″ = −sin(u/2)/(4u) − cos(u/2)/u² + 2 sin(u/2)/u³.
            // With u = √x: φ′(x) = Φ′(u)/(2u), φ″(x) = (Φ″(u) − Φ′(u)/u)/(4u²).
            let f1 = -sh / 2, f2 = -ch / 4
            let g = sh / u
            let g1 = ch / (2 * u) - sh / (u * u)
            let g2 = -sh / (4 * u) - ch / (u * u) + 2 * sh / (u * u * u)
            c0 = ch
            c1 = f1 / (2 * u)
            c2 = (f2 - f1 / u) / (4 * x)
            s0 = g
            s1 = g1 / (2 * u)
            s2 = (g2 - g1 / u) / (4 * x)
        }
        return (x2.applying(c0, c1, c2), x2.applying(s0, s1, s2))
    }

    /// The quaternion's value, its first and second derivatives.
    @inlinable public var value: Quaternion { Quaternion(w: w.value, x: x.value, y: y.value, z: z.value) }
    @inlinable public var d1: Quaternion { Quaternion(w: w.d1, x: x.d1, y: y.d1, z: z.d1) }
    @inlinable public var d2: Quaternion { Quaternion(w: w.d2, x: x.d2, y: y.d2, z: z.d2) }

    /// Hamilton product `a ⊗ b` (apply `b` first).
    @inlinable
    public static func * (a: JetQuaternion, b: JetQuaternion) -> JetQuaternion {
        JetQuaternion(
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w
        )
    }

    /// Rotates a jet vector: `q ⊗ v ⊗ q*`.
    @inlinable
    public func rotate(_ v: JetVector) -> JetVector {
        let u = JetVector(x, y, z)
        let t = u.cross(v) * 2.0
        return v + t * w + u.cross(t)
    }

    /// Body angular velocity, rad/s: `2·vec(q* ⊗ q̇)`.
    @inlinable
    public var bodyAngularVelocity: Vector3 {
        let q = value.conjugate * d1
        return Vector3(2 * q.x, 2 * q.y, 2 * q.z)
    }

    /// Body angular acceleration, rad/s²: `2·vec(q* ⊗ q̈)`.
    @inlinable
    public var bodyAngularAcceleration: Vector3 {
        let q = value.conjugate * d2
        return Vector3(2 * q.x, 2 * q.y, 2 * q.z)
    }
}
