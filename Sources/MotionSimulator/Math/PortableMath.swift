import Foundation

/// Elementary functions written with IEEE-754 `+ − × ÷` and `squareRoot()` only, so that the
/// simulator produces bit-identical samples on every platform.
///
/// The C library's `sin`, `cos`, `exp` and `log` may differ by an ulp between glibc, Darwin and
/// other libms (and between versions); a simulator whose output must be identical for the same
/// scene and seed on every machine cannot use them. These implementations reduce the argument
/// exactly enough for the ranges the simulator uses (|x| < 10⁹ for the trigonometric functions)
/// and evaluate Taylor polynomials of high enough degree that the error stays within a couple of
/// ulps of the correctly rounded result (checked against the C library in the tests).
public enum PortableMath {
    /// π to double precision.
    public static let pi = 3.141592653589793

    /// 2π.
    public static let twoPi = 6.283185307179586

    // π/2 split in three parts of 33 significant bits (Cody–Waite), so that k·π/2 is subtracted
    // exactly for |k| < 2²⁰ (|x| < 1.6·10⁶) and with a small, still deterministic error above.
    @usableFromInline static let halfPi1 = 1.57079632673412561417e+00
    @usableFromInline static let halfPi2 = 6.07710050630396597660e-11
    @usableFromInline static let halfPi3 = 2.02226624871116645580e-21
    @usableFromInline static let twoOverPi = 0.6366197723675814

    /// `sin(x)` and `cos(x)` together, x in radians.
    @inlinable
    public static func sinCos(_ x: Double) -> (sin: Double, cos: Double) {
        guard x.isFinite else { return (.nan, .nan) }
        let (r, quadrant) = reduce(x)
        let s = sinKernel(r)
        let c = cosKernel(r)
        switch quadrant & 3 {
        case 0: return (s, c)
        case 1: return (c, -s)
        case 2: return (-s, -c)
        default: return (-c, s)
        }
    }

    /// `sin(2π·turns)` and `cos(2π·turns)`: the whole turns are removed exactly first, so the
    /// result stays accurate for phases that grow without bound (cycles of an oscillation).
    @inlinable
    public static func sinCos(turns: Double) -> (sin: Double, cos: Double) {
        let fraction = turns - turns.rounded(.down)
        return sinCos(fraction * twoPi)
    }

    /// `sin(x)`, x in radians.
    @inlinable public static func sin(_ x: Double) -> Double { sinCos(x).sin }

    /// `cos(x)`, x in radians.
    @inlinable public static func cos(_ x: Double) -> Double { sinCos(x).cos }

    /// Reduces `x` to `r ∈ [−π/4, π/4]` with `x = r + k·π/2`; returns `r` and `k mod 4`.
    @usableFromInline
    static func reduce(_ x: Double) -> (Double, Int) {
        if abs(x) <= 0.7853981633974483 { return (x, 0) }
        let k = (x * twoOverPi).rounded(.toNearestOrEven)
        let r = ((x - k * halfPi1) - k * halfPi2) - k * halfPi3
        let q = Int(k.truncatingRemainder(dividingBy: 4))
        return (r, q < 0 ? q + 4 : q)
    }

    /// sin on [−π/4, π/4]: Taylor series to x¹⁹ (remainder below 10⁻²² there).
    @usableFromInline
    static func sinKernel(_ x: Double) -> Double {
        let z = x * x
        var p = -1.0 / 121_645_100_408_832_000      // −1/19!
        p = p * z + 1.0 / 355_687_428_096_000       // 1/17!
        p = p * z - 1.0 / 1_307_674_368_000         // −1/15!
        p = p * z + 1.0 / 6_227_020_800             // 1/13!
        p = p * z - 1.0 / 39_916_800                // −1/11!
        p = p * z + 1.0 / 362_880                   // 1/9!
        p = p * z - 1.0 / 5040                      // −1/7!
        p = p * z + 1.0 / 120                       // 1/5!
        p = p * z - 1.0 / 6                         // −1/3!
        return x + x * z * p
    }

    /// cos on [−π/4, π/4]: Taylor series to x²⁰.
    @usableFromInline
    static func cosKernel(_ x: Double) -> Double {
        let z = x * x
        var p = 1.0 / 2_432_902_008_176_640_000     // 1/20!
        p = p * z - 1.0 / 6_402_373_705_728_000     // −1/18!
        p = p * z + 1.0 / 20_922_789_888_000        // 1/16!
        p = p * z - 1.0 / 87_178_291_200            // −1/14!
        p = p * z + 1.0 / 479_001_600               // 1/12!
        p = p * z - 1.0 / 3_628_800                 // −1/10!
        p = p * z + 1.0 / 40_320                    // 1/8!
        p = p * z - 1.0 / 720                       // −1/6!
        p = p * z + 1.0 / 24                        // 1/4!
        // 1 − z/2 + z²·p, arranged so the large terms are added last.
        let h = 0.5 * z
        let w = 1.0 - h
        return w + (((1.0 - w) - h) + z * z * p)
    }

    private static let ln2Hi = 0.6931471803691238
    private static let ln2Lo = 1.9082149292705877e-10
    private static let ln2 = 0.6931471805599453
    private static let sqrtHalf = 0.7071067811865476

    /// `eˣ`. Overflows to `+∞` above about 709.78 and underflows to 0 below about −745.
    public static func exp(_ x: Double) -> Double {
        guard !x.isNaN else { return .nan }
        if x > 709.782712893384 { return .infinity }
        if x < -745.1332191019412 { return 0 }
        let k = (x / ln2).rounded(.toNearestOrEven)
        let r = (x - k * ln2Hi) - k * ln2Lo            // |r| ≤ ln2/2
        // Taylor series of eʳ to r¹⁴ (remainder below 10⁻¹⁷ for |r| ≤ 0.347).
        var p = 1.0 / 87_178_291_200
        p = p * r + 1.0 / 6_227_020_800
        p = p * r + 1.0 / 479_001_600
        p = p * r + 1.0 / 39_916_800
        p = p * r + 1.0 / 3_628_800
        p = p * r + 1.0 / 362_880
        p = p * r + 1.0 / 40_320
        p = p * r + 1.0 / 5040
        p = p * r + 1.0 / 720
        p = p * r + 1.0 / 120
        p = p * r + 1.0 / 24
        p = p * r + 1.0 / 6
        p = p * r + 0.5
        let er = 1.0 + (r + r * r * p)
        return scale(er, by: Int(k))
    }

    /// `x · 2ⁿ`, exact while the result is a normal number.
    private static func scale(_ x: Double, by n: Int) -> Double {
        var result = x
        var n = n
        // Multiply in steps that stay inside the normal range.
        while n > 1000 {
            result *= Double(sign: .plus, exponent: 1000, significand: 1)
            n -= 1000
        }
        while n < -1000 {
            result *= Double(sign: .plus, exponent: -1000, significand: 1)
            n += 1000
        }
        return result * Double(sign: .plus, exponent: n, significand: 1)
    }

    /// Natural logarithm; `−∞` at 0, NaN for negative arguments.
    public static func log(_ x: Double) -> Double {
        guard x > 0, !x.isNaN else { return x == 0 ? -.infinity : .nan }
        guard x.isFinite else { return .infinity }
        // x = m · 2ᵉ with m ∈ [√½, √2).
        var e = Int(x.exponent)
        var m = x.significand                           // in [1, 2), subnormals included
        if m > 2 * sqrtHalf {
            m *= 0.5
            e += 1
        }
        // log m = 2·atanh(s), s = (m − 1)/(m + 1) ∈ [−0.1716, 0.1716]; series to s²³.
        let s = (m - 1) / (m + 1)
        let z = s * s
        var p = 1.0 / 23
        p = p * z + 1.0 / 21
        p = p * z + 1.0 / 19
        p = p * z + 1.0 / 17
        p = p * z + 1.0 / 15
        p = p * z + 1.0 / 13
        p = p * z + 1.0 / 11
        p = p * z + 1.0 / 9
        p = p * z + 1.0 / 7
        p = p * z + 1.0 / 5
        p = p * z + 1.0 / 3
        let logM = 2 * s + 2 * s * z * p
        let fe = Double(e)
        return fe * ln2Hi + (logM + fe * ln2Lo)
    }

    /// `xʸ` for `x > 0` (as `exp(y·log x)`); 1 when `y == 0`.
    public static func pow(_ x: Double, _ y: Double) -> Double {
        if y == 0 { return 1 }
        if x == 1 { return 1 }
        guard x > 0 else { return x == 0 ? (y > 0 ? 0 : .infinity) : .nan }
        return exp(y * log(x))
    }

    /// `atan(x)` in (−π/2, π/2).
    public static func atan(_ x: Double) -> Double {
        guard !x.isNaN else { return .nan }
        if x.isInfinite { return x > 0 ? pi / 2 : -pi / 2 }
        // atan(x) = ±π/2 − atan(1/x) brings |x| to at most 1.
        if abs(x) > 1 { return (x > 0 ? pi / 2 : -pi / 2) - atan(1 / x) }
        // Halve the angle, atan(x) = 2·atan(x / (1 + √(1 + x²))), until |x| ≤ 0.1 (three times at most).
        var t = x
        var factor = 1.0
        var halvings = 0
        while abs(t) > 0.1 && halvings < 6 {
            t = t / (1 + (1 + t * t).squareRoot())
            factor *= 2
            halvings += 1
        }
        // Series t − t³/3 + t⁵/5 − … to t²⁷ (remainder below 10⁻³⁰ for |t| ≤ 0.1).
        let z = t * t
        var p = -1.0 / 27
        var k = 25.0
        var sign = 1.0
        while k >= 3 {
            p = p * z + sign / k
            sign = -sign
            k -= 2
        }
        return factor * (t + t * z * p)
    }

    /// `atan2(y, x)` in (−π, π].
    public static func atan2(_ y: Double, _ x: Double) -> Double {
        guard !x.isNaN, !y.isNaN else { return .nan }
        if x == 0 && y == 0 { return (x.sign == .minus) ? (y.sign == .minus ? -pi : pi) : y }
        if abs(y) <= abs(x) {
            let a = atan(y / x)
            if x > 0 { return a }
            return y.sign == .minus ? a - pi : a + pi
        }
        let a = atan(x / y)
        return y > 0 ? pi / 2 - a : -pi / 2 - a
    }

    /// `acos(x)` in [0, π] (clamped to [−1, 1]).
    public static func acos(_ x: Double) -> Double {
        let c = max(-1, min(1, x))
        return atan2((1 - c * c).squareRoot(), c)
    }

    /// Degrees to radians.
    @inlinable public static func radians(_ degrees: Double) -> Double { degrees * (pi / 180) }

    /// Radians to degrees.
    @inlinable public static func degrees(_ radians: Double) -> Double { radians * (180 / pi) }
}
