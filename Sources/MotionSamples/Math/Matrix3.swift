import Foundation

/// A 3×3 matrix of `Double`, row-major; `mRC` is row R, column C.
@frozen
public struct Matrix3: Sendable, Hashable, Codable {
    public var m11: Double, m12: Double, m13: Double
    public var m21: Double, m22: Double, m23: Double
    public var m31: Double, m32: Double, m33: Double

    @inlinable
    public init(
        _ m11: Double, _ m12: Double, _ m13: Double,
        _ m21: Double, _ m22: Double, _ m23: Double,
        _ m31: Double, _ m32: Double, _ m33: Double
    ) {
        self.m11 = m11; self.m12 = m12; self.m13 = m13
        self.m21 = m21; self.m22 = m22; self.m23 = m23
        self.m31 = m31; self.m32 = m32; self.m33 = m33
    }

    /// Builds a matrix from its three rows.
    @inlinable
    public init(rows r1: Vector3, _ r2: Vector3, _ r3: Vector3) {
        self.init(r1.x, r1.y, r1.z, r2.x, r2.y, r2.z, r3.x, r3.y, r3.z)
    }

    public static let identity = Matrix3(1, 0, 0, 0, 1, 0, 0, 0, 1)
    public static let zero = Matrix3(0, 0, 0, 0, 0, 0, 0, 0, 0)

    /// A diagonal matrix.
    @inlinable public static func diagonal(_ d: Vector3) -> Matrix3 { Matrix3(d.x, 0, 0, 0, d.y, 0, 0, 0, d.z) }

    @inlinable public var row1: Vector3 { Vector3(m11, m12, m13) }
    @inlinable public var row2: Vector3 { Vector3(m21, m22, m23) }
    @inlinable public var row3: Vector3 { Vector3(m31, m32, m33) }

    @inlinable
    public var transposed: Matrix3 { Matrix3(m11, m21, m31, m12, m22, m32, m13, m23, m33) }

    @inlinable
    public static func * (a: Matrix3, v: Vector3) -> Vector3 {
        Vector3(a.row1.dot(v), a.row2.dot(v), a.row3.dot(v))
    }

    @inlinable
    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        let bt = b.transposed
        return Matrix3(
            a.row1.dot(bt.row1), a.row1.dot(bt.row2), a.row1.dot(bt.row3),
            a.row2.dot(bt.row1), a.row2.dot(bt.row2), a.row2.dot(bt.row3),
            a.row3.dot(bt.row1), a.row3.dot(bt.row2), a.row3.dot(bt.row3)
        )
    }

    @inlinable public static func * (a: Matrix3, s: Double) -> Matrix3 {
        Matrix3(a.m11 * s, a.m12 * s, a.m13 * s, a.m21 * s, a.m22 * s, a.m23 * s, a.m31 * s, a.m32 * s, a.m33 * s)
    }

    @inlinable public static func + (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(
            a.m11 + b.m11, a.m12 + b.m12, a.m13 + b.m13,
            a.m21 + b.m21, a.m22 + b.m22, a.m23 + b.m23,
            a.m31 + b.m31, a.m32 + b.m32, a.m33 + b.m33
        )
    }

    @inlinable public static func - (a: Matrix3, b: Matrix3) -> Matrix3 { a + b * -1 }

    @inlinable
    public var determinant: Double {
        m11 * (m22 * m33 - m23 * m32) - m12 * (m21 * m33 - m23 * m31) + m13 * (m21 * m32 - m22 * m31)
    }

    /// The inverse, or `nil` when the matrix is singular.
    public var inverse: Matrix3? {
        let d = determinant
        guard d != 0, d.isFinite else { return nil }
        let inv = 1 / d
        return Matrix3(
            (m22 * m33 - m23 * m32) * inv, (m13 * m32 - m12 * m33) * inv, (m12 * m23 - m13 * m22) * inv,
            (m23 * m31 - m21 * m33) * inv, (m11 * m33 - m13 * m31) * inv, (m13 * m21 - m11 * m23) * inv,
            (m21 * m32 - m22 * m31) * inv, (m12 * m31 - m11 * m32) * inv, (m11 * m22 - m12 * m21) * inv
        )
    }

    @inlinable public var isFinite: Bool { row1.isFinite && row2.isFinite && row3.isFinite }
}
