import Foundation
import MotionSamples

/// A magnetometer calibration: `calibrated = softIron · (raw − hardIron)`.
///
/// Hard iron is the field the device itself (and anything fixed to it) adds, µT; soft iron is the
/// distortion of the external field by nearby ferromagnetic parts (unitless, identity when
/// unknown). The service can save a calibration when device motion stops and give it back at the
/// next start, as iOS keeps its own between sessions.
public struct MagnetometerCalibration: Sendable, Hashable, Codable {
    /// Hard-iron offset, µT, device axes.
    public var hardIron: Vector3
    /// Soft-iron correction, applied after removing the hard iron.
    public var softIron: Matrix3
    /// How far the calibration is trusted.
    public var accuracy: MagnetometerCalibrationAccuracy

    /// A calibration of this hard and soft iron; none (identity, `.uncalibrated`) unless given.
    public init(hardIron: Vector3 = .zero, softIron: Matrix3 = .identity, accuracy: MagnetometerCalibrationAccuracy = .uncalibrated) {
        self.hardIron = hardIron
        self.softIron = softIron
        self.accuracy = accuracy
    }

    /// The calibrated field for a raw reading, µT.
    @inline(__always)
    public func apply(_ raw: Vector3) -> Vector3 {
        softIron * (raw - hardIron)
    }
}

/// Estimates the hard-iron offset online, without the heading: two kinds of equation per sample,
/// both linear in the unknowns `(h, c, V)`:
/// - the calibrated field has a constant norm F: `2 m·h + c = |m|²` with `c = F² − |h|²`;
/// - its component along the vertical (from the 6D attitude, which the magnetometer never touches)
///   is constant: `u·h − V = m·u`, V the downward component of the Earth's field.
///
/// The normal equations are accumulated with exponential forgetting (time constant
/// ``FusionFilter/Settings/magnetometerCalibrationWindow``) and solved twice a second. A new offset
/// is adopted only when it explains the recent field clearly better than the current one (the
/// residual falls below a fraction of the current one and below an absolute level) and the device
/// has turned enough for it to be determined; so a sensor that is already calibrated keeps its
/// calibration, and a magnet fixed to the device (or removed from it) becomes part of the
/// calibration within seconds instead of a disturbance that never ends.
///
/// Accuracy levels (Apple's `CMMagneticFieldCalibrationAccuracy`): uncalibrated until the device
/// has turned enough to test any offset; low when the current offset leaves a residual above 6 %
/// of the field; medium when the device has turned about two axes and the residual is below 6 %;
/// high when it has turned about all three and the residual is below 3 %.
struct MagnetometerCalibrator: Sendable {
    /// Current calibration.
    var calibration = MagnetometerCalibration()
    /// Normal equations of x = (hx, hy, hz, c, V): upper triangle of A (row-major) and b.
    var a = SIMD16<Double>()
    var b = SIMD8<Double>()
    /// Weighted sum of squared right-hand sides, and of weights, per equation kind.
    var rhsSquares = 0.0
    var weight = 0.0
    /// Scatter of the raw field (device axes): Σw m, Σw m mᵀ (upper triangle), Σw.
    var directionSum = Vector3.zero
    var directionScatter = SIMD8<Double>()
    var directionWeight = 0.0
    /// Cached forgetting factor and the interval it was computed for.
    var forgetting = 1.0
    var forgettingInterval = 0.0
    /// Smoothed field norm with the current calibration, µT.
    var fieldNorm = 0.0
    /// Seconds since the last solve.
    var sinceSolve = 0.0
    /// Number of adopted calibrations (the filter re-converges its heading on a change).
    var revision = 0
    /// Whether the current offset has been confirmed by data from several orientations (or adopted from it).
    var isVerified = false
    /// Whether the current offset was estimated here (rather than given with the data or restored).
    var isEstimated = false
    /// Number of small refinements of a confirmed offset.
    var refinements = 0
    /// The confirmed offset in use before the current one.
    var previousHardIron: Vector3?
    /// Seconds the current offset has failed to explain the field while the device turned.
    var failingTime = 0.0
    /// Latest figures, for the accuracy.
    var turnedAxes = 0
    var relativeResidual = 1.0

    init() {}

    /// Index of A[i][j] (i ≤ j) in the packed upper triangle.
    @inline(__always)
    static func index(_ i: Int, _ j: Int) -> Int {
        // Row starts 0, 5, 9, 12, 14: start(i) = 5i − i(i−1)/2.
        5 * i - i * (i - 1) / 2 + (j - i)
    }

    /// Adds one raw sample `m` (µT) with the device's up vector `up` (unit, device axes).
    mutating func add(raw m: Vector3, up u: Vector3, interval dt: Double, window: Double) {
        // Intervals that differ only by timestamp rounding (< 1 ppm) keep the factor (an exp()).
        if abs(dt - forgettingInterval) > 1e-6 * forgettingInterval {
            forgettingInterval = dt
            forgetting = exp(-dt / window)
        }
        let lambda = forgetting
        a *= lambda
        b *= lambda
        rhsSquares *= lambda
        weight *= lambda
        directionSum *= lambda
        directionScatter *= lambda
        directionWeight *= lambda

        let calibrated = m - calibration.hardIron
        let norm = calibrated.norm
        guard norm > 1 else { return }
        fieldNorm = fieldNorm == 0 ? norm : fieldNorm + 0.02 * (norm - fieldNorm)
        // Sphere row (2m, 1, 0) = |m|², weighted so its residual is in µT: 1/(2F)².
        let w1 = 1 / (4 * max(fieldNorm * fieldNorm, 1))
        let r1 = SIMD8<Double>(2 * m.x, 2 * m.y, 2 * m.z, 1, 0, 0, 0, 0)
        let y1 = m.normSquared
        // Vertical row (u, 0, −1) = m·u.
        let r2 = SIMD8<Double>(u.x, u.y, u.z, 0, -1, 0, 0, 0)
        let y2 = m.dot(u)
        // Rank-two update of the packed upper triangle, row by row.
        var k = 0
        for i in 0..<5 {
            let f1 = w1 * r1[i], f2 = r2[i]
            for j in i..<5 {
                a[k] += f1 * r1[j] + f2 * r2[j]
                k += 1
            }
        }
        b += w1 * y1 * r1 + y2 * r2
        rhsSquares += w1 * y1 * y1 + y2 * y2
        weight += 1
        // Scatter of the raw field: its covariance does not depend on the offset.
        directionSum += m
        directionScatter[0] += m.x * m.x
        directionScatter[1] += m.x * m.y
        directionScatter[2] += m.x * m.z
        directionScatter[3] += m.y * m.y
        directionScatter[4] += m.y * m.z
        directionScatter[5] += m.z * m.z
        directionWeight += 1
        sinceSolve += dt
    }

    /// Whether the next ``solveIfDue(reference:settings:)`` will solve.
    func isDue(settings s: FusionFilter.Settings) -> Bool {
        sinceSolve >= s.magnetometerCalibrationInterval && weight > 10
    }

    /// Solves when due and adopts a better offset. `reference` is the Earth's field learned so far
    /// (norm µT, dip rad), if any: a new offset must reproduce it. Returns true when the offset changed.
    mutating func solveIfDue(reference: (norm: Double, dip: Double)?, settings s: FusionFilter.Settings) -> Bool {
        guard sinceSolve >= s.magnetometerCalibrationInterval, weight > 10 else { return false }
        let elapsed = sinceSolve
        sinceSolve = 0
        let current = calibration.hardIron
        let currentResidual = residualWithHardIron(current)
        let candidate = bestHardIron(ridgeToward: current, ridge: 1e-3 * weight)
        let norm = candidate.map { Self.fieldNorm(of: $0.x) } ?? fieldNorm
        let spread = directionSpread(norm: norm)
        turnedAxes = spread.smallest > s.magnetometerCalibrationSpread ? 3 : (spread.middle > s.magnetometerCalibrationSpread ? 2 : 0)
        let limit = s.magnetometerCalibrationMinimumResidual
        if turnedAxes >= 2 && currentResidual <= limit { isVerified = true }
        failingTime = (turnedAxes >= 2 && currentResidual > limit) ? failingTime + elapsed : 0

        var changed = false
        // A confirmed offset used before (say, before a magnet was attached) that explains the
        // field again is taken back at once.
        if let previous = previousHardIron, turnedAxes >= 2, currentResidual > limit {
            let previousResidual = residualWithHardIron(previous)
            if previousResidual < limit && previousResidual < s.magnetometerCalibrationImprovement * currentResidual {
                previousHardIron = current
                calibration.hardIron = previous
                revision += 1
                failingTime = 0
                updateAccuracy(residual: previousResidual)
                return true
            }
        }
        if let (x, candidateResidual) = candidate, turnedAxes >= 2,
           candidateResidual < s.magnetometerCalibrationImprovement * currentResidual,
           candidateResidual < limit,
           currentResidual > limit,
           !isVerified || failingTime >= s.magnetometerRecalibrationTime {
            let h = Vector3(x[0], x[1], x[2])
            let f = Self.fieldNorm(of: x)
            let dip = f > 0 ? asin(max(-1, min(1, x[4] / f))) : 0
            let matchesEarth = reference.map {
                abs(f - $0.norm) < s.magneticNormThreshold * $0.norm && abs(dip - $0.dip) < s.magneticDipThreshold
            } ?? true
            if matchesEarth || !isVerified {
                previousHardIron = current
                calibration.hardIron = h
                isEstimated = true
                fieldNorm = f
                revision += 1
                isVerified = true
                failingTime = 0
                changed = true
            }
        }
        // Refinement: a confirmed offset that leaves a residual above the limit is moved a step
        // toward a clearly better nearby solution (no jump: a large change needs the rules above).
        // An offset this filter estimated itself keeps being refined even below the limit (its first
        // estimate comes from little rotation); one that came with the data only when above it.
        if !changed, isVerified, let (x, candidateResidual) = candidate, turnedAxes >= 2,
           currentResidual > limit || isEstimated,
           candidateResidual < s.magnetometerCalibrationRefinement * currentResidual {
            let h = Vector3(x[0], x[1], x[2])
            if (h - current).norm < 0.2 * max(fieldNorm, 1) {
                calibration.hardIron = current + (h - current) * s.magnetometerCalibrationRefinementStep
                changed = true
                refinements += 1
                updateAccuracy(residual: residualWithHardIron(calibration.hardIron))
                return true
            }
        }
        updateAccuracy(residual: changed ? (candidate?.1 ?? currentResidual) : currentResidual)
        return changed
    }

    /// The field norm F (µT) of a solution x = (h, c, V): F² = c + |h|².
    static func fieldNorm(of x: SIMD8<Double>) -> Double {
        (max(0, x[3] + x[0] * x[0] + x[1] * x[1] + x[2] * x[2])).squareRoot()
    }

    private mutating func updateAccuracy(residual: Double) {
        relativeResidual = fieldNorm > 0 ? residual / fieldNorm : 1
        let current = calibration.accuracy
        let accuracy: MagnetometerCalibrationAccuracy
        if !isVerified {
            accuracy = .uncalibrated
        } else if relativeResidual > 0.06 {
            accuracy = .low
        } else if turnedAxes == 3 && relativeResidual < 0.03 {
            accuracy = .high
        } else if turnedAxes >= 2 {
            accuracy = relativeResidual < 0.03 ? max(current, .medium) : .medium
        } else {
            // No new evidence: keep what is known.
            accuracy = max(current, .low)
        }
        calibration.accuracy = accuracy
    }

    /// Root-mean-square residual (µT) of the window's equations for offset `h`, with c and V at their best.
    func residualWithHardIron(_ h: Vector3) -> Double {
        // With h fixed, solve the 2×2 system for (c, V).
        let i03 = Self.index(0, 3), i13 = Self.index(1, 3), i23 = Self.index(2, 3)
        let i04 = Self.index(0, 4), i14 = Self.index(1, 4), i24 = Self.index(2, 4)
        let rhsC = b[3] - a[i03] * h.x - a[i13] * h.y - a[i23] * h.z
        let rhsV = b[4] - a[i04] * h.x - a[i14] * h.y - a[i24] * h.z
        let a33 = a[Self.index(3, 3)], a44 = a[Self.index(4, 4)], a34 = a[Self.index(3, 4)]
        let det = a33 * a44 - a34 * a34
        guard det > 0 else { return .infinity }
        let c = (rhsC * a44 - rhsV * a34) / det
        let v = (rhsV * a33 - rhsC * a34) / det
        return rms(SIMD8<Double>(h.x, h.y, h.z, c, v, 0, 0, 0))
    }

    /// The offset that minimises the residual, with a small ridge toward `prior`; and its residual.
    func bestHardIron(ridgeToward prior: Vector3, ridge: Double) -> (x: SIMD8<Double>, residual: Double)? {
        var rhs = b
        rhs[0] += ridge * prior.x
        rhs[1] += ridge * prior.y
        rhs[2] += ridge * prior.z
        let packed = a
        let x: SIMD8<Double>? = withUnsafeTemporaryAllocation(of: Double.self, capacity: 25) { m in
            for i in 0..<5 {
                for j in i..<5 {
                    let v = packed[Self.index(i, j)] + (i == j && i < 3 ? ridge : 0)
                    m[5 * i + j] = v
                    m[5 * j + i] = v
                }
            }
            return Self.solve5(m, rhs)
        }
        guard let x else { return nil }
        return (x, rms(x))
    }

    /// RMS residual (µT) of the accumulated equations at `x`: √((Σy² − 2xᵀb + xᵀAx) / Σw / 2).
    private func rms(_ x: SIMD8<Double>) -> Double {
        var quad = 0.0
        for i in 0..<5 {
            for j in 0..<5 {
                quad += x[i] * a[Self.index(min(i, j), max(i, j))] * x[j]
            }
        }
        let lin = (x * b).sum()
        let rss = max(0, rhsSquares - 2 * lin + quad)
        return (rss / max(2 * weight, 1e-9)).squareRoot()
    }

    /// Middle and smallest eigenvalues of the covariance of the field divided by the field's squared
    /// norm `norm²` (0 … 1/3 each for directions spread over the whole sphere).
    func directionSpread(norm: Double) -> (middle: Double, smallest: Double) {
        guard directionWeight > 0, norm > 0 else { return (0, 0) }
        let w = directionWeight
        let mean = directionSum / w
        let s = directionScatter
        let c11 = s[0] / w - mean.x * mean.x, c12 = s[1] / w - mean.x * mean.y, c13 = s[2] / w - mean.x * mean.z
        let c22 = s[3] / w - mean.y * mean.y, c23 = s[4] / w - mean.y * mean.z, c33 = s[5] / w - mean.z * mean.z
        let e = symmetricEigenvalues(c11, c12, c13, c22, c23, c33)
        let f2 = norm * norm
        return (e.1 / f2, e.0 / f2)
    }

    /// Solves the 5×5 system `m x = rhs` (row-major `m`, overwritten) by Gaussian elimination with
    /// partial pivoting.
    static func solve5(_ m: UnsafeMutableBufferPointer<Double>, _ rhs: SIMD8<Double>) -> SIMD8<Double>? {
        var x = rhs
        let n = 5
        for col in 0..<n {
            var pivot = col
            for r in col + 1..<n where abs(m[5 * r + col]) > abs(m[5 * pivot + col]) { pivot = r }
            guard abs(m[5 * pivot + col]) > 1e-12 else { return nil }
            if pivot != col {
                for c in 0..<n { m.swapAt(5 * pivot + c, 5 * col + c) }
                let t = x[pivot]; x[pivot] = x[col]; x[col] = t
            }
            for r in col + 1..<n {
                let f = m[5 * r + col] / m[5 * col + col]
                if f == 0 { continue }
                for c in col..<n { m[5 * r + c] -= f * m[5 * col + c] }
                x[r] -= f * x[col]
            }
        }
        for col in stride(from: n - 1, through: 0, by: -1) {
            var v = x[col]
            for c in col + 1..<n { v -= m[5 * col + c] * x[c] }
            x[col] = v / m[5 * col + col]
        }
        for i in 0..<n where !x[i].isFinite { return nil }
        return x
    }
}

/// Eigenvalues of a symmetric 3×3 matrix, ascending (closed form).
func symmetricEigenvalues(
    _ a11: Double, _ a12: Double, _ a13: Double, _ a22: Double, _ a23: Double, _ a33: Double
) -> (Double, Double, Double) {
    let p1 = a12 * a12 + a13 * a13 + a23 * a23
    if p1 < 1e-30 {
        let d = [a11, a22, a33].sorted()
        return (d[0], d[1], d[2])
    }
    let q = (a11 + a22 + a33) / 3
    let p2 = (a11 - q) * (a11 - q) + (a22 - q) * (a22 - q) + (a33 - q) * (a33 - q) + 2 * p1
    let p = (p2 / 6).squareRoot()
    let b11 = (a11 - q) / p, b22 = (a22 - q) / p, b33 = (a33 - q) / p
    let b12 = a12 / p, b13 = a13 / p, b23 = a23 / p
    let detB = b11 * (b22 * b33 - b23 * b23) - b12 * (b12 * b33 - b23 * b13) + b13 * (b12 * b23 - b22 * b13)
    let r = max(-1, min(1, detB / 2))
    let phi = acos(r) / 3
    let e1 = q + 2 * p * cos(phi)
    let e3 = q + 2 * p * cos(phi + 2 * Double.pi / 3)
    let e2 = 3 * q - e1 - e3
    return (e3, e2, e1)
}
