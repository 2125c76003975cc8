import Foundation
import MotionSamples

/// The gyroscope bias (rad/s, device axes) and the heading offset (rad): one Kalman filter on four
/// states, `[offset, bias]`.
///
/// Measurements:
/// - **at rest** the low-passed gyro reading is the bias (all three axes);
/// - **in motion** the inclination correction reveals the bias error that tilts the strapdown
///   frame: the correction rate about the two horizontal earth axes equals minus the bias error
///   seen through the attitude (both sides passed through the accelerometer's low-pass filter so
///   that the delay of the correction is matched);
/// - **the magnetometer** measures the heading offset from the 6D earth frame to magnetic north.
///
/// A bias error `e` turns the 6D frame about the vertical at `u·e` rad/s (`u` the up vector in
/// device axes), which the heading offset has to follow. Keeping the offset and the bias in one
/// filter makes that link explicit: the magnetometer then also estimates the bias about the vertical,
/// the one axis the accelerometer cannot see, so the gyro-only heading drifts less between
/// magnetometer corrections and through magnetic disturbances.
struct GyroBiasEstimator: Sendable {
    /// Current bias estimate, rad/s, device axes.
    var bias = Vector3.zero
    /// Heading offset from the 6D earth frame to magnetic north, radians in (−π, π].
    var headingOffset = 0.0
    /// Whether the heading offset has been started from a first magnetometer measurement.
    var hasHeading = false
    /// Covariance of the bias, (rad/s)².
    var covariance: Matrix3
    /// Covariance between heading offset and bias, rad²/s.
    var cross = Vector3.zero
    /// Variance of the heading offset, rad².
    var headingVariance = 0.0

    init(initialSigma: Double) {
        covariance = Matrix3.diagonal(Vector3(1, 1, 1) * (initialSigma * initialSigma))
    }

    /// Adds process noise over `dt` seconds: the bias may wander by `variancePerSecond`
    /// (rad/s)²/s, the offset's variance grows by `headingVariance` rad²; with a heading, propagates
    /// the link between the offset and the bias error (`up` is the up vector in device axes).
    @inline(__always)
    mutating func predict(variancePerSecond q: Double, headingVariance: Double, up u: Vector3, interval dt: Double, maxVariance: Double) {
        let add = q * dt
        if hasHeading {
            // Offset error follows −u·(bias error): F = [[1, −dt uᵀ], [0, I]].
            let pu = covariance * u
            self.headingVariance += -2 * dt * u.dot(cross) + dt * dt * u.dot(pu) + headingVariance
            cross -= pu * dt
        }
        covariance.m11 = min(covariance.m11 + add, maxVariance)
        covariance.m22 = min(covariance.m22 + add, maxVariance)
        covariance.m33 = min(covariance.m33 + add, maxVariance)
    }

    /// One scalar measurement of the bias, `z = h·bias + noise(variance r)`.
    @inline(__always)
    mutating func update(h: Vector3, z: Double, variance r: Double) {
        let ph = covariance * h  // P_bb h
        update(ph: ph, hph: h.dot(ph), hb: h.dot(bias), pdh: cross.dot(h), z: z, variance: r)
    }

    /// ``update(h:z:variance:)`` for `h` the unit vector of device axis `axis` (0, 1, 2: x, y, z):
    /// the same arithmetic without the products with zeros (the results are identical).
    @inline(__always)
    mutating func update(axis: Int, z: Double, variance r: Double) {
        let c = covariance
        let ph: Vector3
        let hph: Double, hb: Double, pdh: Double
        switch axis {
        case 0: ph = Vector3(c.m11, c.m21, c.m31); hph = ph.x; hb = bias.x; pdh = cross.x
        case 1: ph = Vector3(c.m12, c.m22, c.m32); hph = ph.y; hb = bias.y; pdh = cross.y
        default: ph = Vector3(c.m13, c.m23, c.m33); hph = ph.z; hb = bias.z; pdh = cross.z
        }
        update(ph: ph, hph: hph, hb: hb, pdh: pdh, z: z, variance: r)
    }

    /// The measurement update given `P_bb h` (`ph`), `hᵀ P_bb h` (`hph`), `h·bias` (`hb`) and `P_δb h` (`pdh`).
    @inline(__always)
    private mutating func update(ph: Vector3, hph: Double, hb: Double, pdh: Double, z: Double, variance r: Double) {
        let s = hph + r
        guard s > 0, s.isFinite else { return }
        let innovation = z - hb
        guard innovation.isFinite else { return }
        let kb = ph / s
        bias += kb * innovation
        if hasHeading {
            let kd = pdh / s
            headingOffset = wrapAngle(headingOffset + kd * innovation)
            headingVariance = max(headingVariance - kd * pdh, 0)
            cross -= kb * pdh
        }
        // P_bb ← P_bb − k (P h)ᵀ, kept symmetric.
        covariance = covariance - Matrix3(
            kb.x * ph.x, kb.x * ph.y, kb.x * ph.z,
            kb.y * ph.x, kb.y * ph.y, kb.y * ph.z,
            kb.z * ph.x, kb.z * ph.y, kb.z * ph.z
        )
        symmetrize()
    }

    /// Starts the heading offset from a first magnetometer measurement of variance `r`.
    mutating func startHeading(measurement: Double, variance r: Double) {
        headingOffset = wrapAngle(measurement)
        headingVariance = r
        cross = .zero
        hasHeading = true
    }

    /// One heading-offset measurement given as its innovation (measurement − offset, rad) of
    /// variance `r`; with `correctsBias`, it also corrects the bias through their covariance.
    @inline(__always)
    mutating func updateHeading(innovation: Double, variance r: Double, correctsBias: Bool) {
        let s = headingVariance + r
        guard s > 0, s.isFinite, innovation.isFinite else { return }
        let kd = headingVariance / s
        headingOffset = wrapAngle(headingOffset + kd * innovation)
        if correctsBias {
            let kb = cross / s
            bias += kb * innovation
            covariance = covariance - Matrix3(
                kb.x * cross.x, kb.x * cross.y, kb.x * cross.z,
                kb.y * cross.x, kb.y * cross.y, kb.y * cross.z,
                kb.z * cross.x, kb.z * cross.y, kb.z * cross.z
            )
            symmetrize()
            cross -= cross * kd
        } else {
            // Keep the bias as is; the offset's link to it shrinks with the offset's variance.
            cross *= 1 - kd
        }
        headingVariance = max(headingVariance - kd * headingVariance, 0)
    }

    /// Forgets how well the heading is known (after a gap, saturation or recalibration).
    mutating func loosenHeading(variance v: Double) {
        if v > headingVariance {
            headingVariance = v
        }
    }

    private mutating func symmetrize() {
        covariance.m12 = (covariance.m12 + covariance.m21) / 2
        covariance.m21 = covariance.m12
        covariance.m13 = (covariance.m13 + covariance.m31) / 2
        covariance.m31 = covariance.m13
        covariance.m23 = (covariance.m23 + covariance.m32) / 2
        covariance.m32 = covariance.m23
    }

    /// Limits each component of the bias to ±`limit` rad/s.
    @inline(__always)
    mutating func clip(_ limit: Double) {
        bias = Vector3(
            min(max(bias.x, -limit), limit), min(max(bias.y, -limit), limit), min(max(bias.z, -limit), limit)
        )
    }

    /// One-sigma uncertainty of the bias (root of the mean diagonal variance), rad/s.
    var sigma: Double { ((covariance.m11 + covariance.m22 + covariance.m33) / 3).squareRoot() }
}

/// `angle` wrapped into (−π, π].
@inline(__always)
func wrapAngle(_ angle: Double) -> Double {
    var a = angle
    if a > Double.pi || a <= -Double.pi {
        a = a - 2 * Double.pi * (a / (2 * Double.pi)).rounded()
        if a <= -Double.pi { a += 2 * Double.pi }
    }
    return a
}
