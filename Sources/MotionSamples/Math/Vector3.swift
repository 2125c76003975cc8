import Foundation

/// A three-component vector of `Double`, used for every vector quantity in the engine
/// (acceleration in g, rotation rate in rad/s, magnetic field in µT, positions, axes).
///
/// Plain value type with no allocation; the operators are `@inlinable` so the fusion hot path
/// compiles to straight-line arithmetic.
@frozen
public struct Vector3: Sendable, Hashable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double
    public var z: Double

    @inlinable
    public init(_ x: Double, _ y: Double, _ z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    @inlinable
    public init(x: Double, y: Double, z: Double) {
        self.init(x, y, z)
    }

    public static let zero = Vector3(0, 0, 0)
    public static let unitX = Vector3(1, 0, 0)
    public static let unitY = Vector3(0, 1, 0)
    public static let unitZ = Vector3(0, 0, 1)

    @inlinable public static func + (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x + b.x, a.y + b.y, a.z + b.z) }
    @inlinable public static func - (a: Vector3, b: Vector3) -> Vector3 { Vector3(a.x - b.x, a.y - b.y, a.z - b.z) }
    @inlinable public static prefix func - (a: Vector3) -> Vector3 { Vector3(-a.x, -a.y, -a.z) }
    @inlinable public static func * (a: Vector3, s: Double) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func * (s: Double, a: Vector3) -> Vector3 { Vector3(a.x * s, a.y * s, a.z * s) }
    @inlinable public static func / (a: Vector3, s: Double) -> Vector3 { Vector3(a.x / s, a.y / s, a.z / s) }
    @inlinable public static func += (a: inout Vector3, b: Vector3) { a = a + b }
    @inlinable public static func -= (a: inout Vector3, b: Vector3) { a = a - b }
    @inlinable public static func *= (a: inout Vector3, s: Double) { a = a * s }

    /// Dot product.
    @inlinable public func dot(_ b: Vector3) -> Double { x * b.x + y * b.y + z * b.z }

    /// Cross product `self × b`.
    @inlinable public func cross(_ b: Vector3) -> Vector3 {
        Vector3(y * b.z - z * b.y, z * b.x - x * b.z, x * b.y - y * b.x)
    }

    /// Component-wise product.
    @inlinable public func scaled(by b: Vector3) -> Vector3 { Vector3(x * b.x, y * b.y, z * b.z) }

    /// Euclidean norm.
    @inlinable public var norm: Double { (x * x + y * y + z * z).squareRoot() }

    /// Squared Euclidean norm.
    @inlinable public var normSquared: Double { x * x + y * y + z * z }

    /// The vector scaled to unit length, or `.zero` when its norm is zero or not finite.
    @inlinable public var normalized: Vector3 {
        let n = norm
        return n > 0 && n.isFinite ? self / n : .zero
    }

    /// True when all three components are finite (neither NaN nor infinite).
    @inlinable public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }

    /// Component `i` (0, 1, 2).
    @inlinable public subscript(i: Int) -> Double {
        get { i == 0 ? x : (i == 1 ? y : z) }
        set {
            switch i {
            case 0: x = newValue
            case 1: y = newValue
            default: z = newValue
            }
        }
    }

    /// Angle between two vectors in radians, in [0, π]; robust near 0 and π.
    @inlinable public func angle(to b: Vector3) -> Double {
        atan2(cross(b).norm, dot(b))
    }

    public var description: String { "(\(x), \(y), \(z))" }
}

