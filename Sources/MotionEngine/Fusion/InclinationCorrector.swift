import Foundation
import MotionSamples

/// Keeps the vertical true: a tilt-only rotation from the strapdown frame to the 6D earth frame.
///
/// The measured specific force (the "up" vector plus motion accelerations) is rotated into the
/// strapdown frame, where the device's own rotations are removed, and low-pass filtered there.
/// Motion accelerations are derivatives of a bounded velocity and average out; gravity does not.
/// Every sample, the correction turns by the smallest rotation (about a horizontal axis) that makes
/// the filtered vector vertical, so the low-pass filter is the gain and heading is never touched.
/// This is the scheme of VQF (Laidig & Seel, Information Fusion 91:187–204, 2023), written anew;
/// the time constant here adapts to motion (see ``FusionFilter/Settings``).
struct InclinationCorrector: Sendable {
    /// Strapdown frame → 6D earth frame (z up), tilt corrections only.
    var correction = Quaternion.identity
    /// Low-pass filtered specific force in the strapdown frame, g.
    var filtered = LowPassVector3()
    /// The same with the longer gait time constant (blended in while walking).
    var filteredGait = LowPassVector3()
    /// Rotation vector (rad, 6D earth frame, horizontal) of the last correction step.
    var lastStep = Vector3.zero

    /// Filters the specific force `upInStrapdown` (g, strapdown frame) and turns the correction so that
    /// the filtered vector points up.
    @inline(__always)
    mutating func update(upInStrapdown f: Vector3, coefficients c: ButterworthCoefficients) {
        update(upInStrapdown: f, coefficients: c, gaitCoefficients: nil, gaitWeight: 0)
    }

    /// As above, with a second low-pass (`gaitCoefficients`) run alongside and blended in with
    /// `gaitWeight` (0 … 1): the vector made vertical is `(1 − w)·lp + w·lpGait`.
    @inline(__always)
    mutating func update(
        upInStrapdown f: Vector3, coefficients c: ButterworthCoefficients,
        gaitCoefficients: ButterworthCoefficients?, gaitWeight w: Double
    ) {
        var lp = filtered.filter(f, c)
        if let gaitCoefficients {
            let lpGait = filteredGait.filter(f, gaitCoefficients)
            if w > 0 { lp = lp + (lpGait - lp) * w }
        }
        let u = rotated(lp, by: correction)
        let n = u.norm
        guard n > 1e-9, n.isFinite else {
            lastStep = .zero
            return
        }
        let inverse = 1 / n
        let ux = u.x * inverse, uy = u.y * inverse, uz = u.z * inverse
        // Smallest rotation taking u to +z: axis u × z = (uy, −ux, 0), q = normalise(1 + uz, uy, −ux, 0).
        // The step is not normalised on its own: its length (√(2(1 + uz)) ≥ 0.014) scales the product,
        // and the product is normalised anyway (one square root per correction instead of two).
        let step: Quaternion
        if uz > -0.9999 {
            step = Quaternion(w: 1 + uz, x: uy, y: -ux, z: 0)
        } else {
            // Upside down: any horizontal axis works; take x.
            step = Quaternion(w: 0, x: 1, y: 0, z: 0)
        }
        correction = product(step, correction).normalizedFast
        // Rotation vector of the step: axis (uy, −ux)/s, angle atan2(s, uz), s = sin(angle).
        let s = (ux * ux + uy * uy).squareRoot()
        if s < 1e-12 {
            lastStep = .zero
        } else {
            // angle/s: asin series for the usual tiny steps, atan2 otherwise.
            let ratio = (uz > 0 && s < 0.01) ? 1 + s * s / 6 + 3 * s * s * s * s / 40 : atan2(s, uz) / s
            lastStep = Vector3(uy * ratio, -ux * ratio, 0)
        }
    }

    /// Restarts the low-pass filter (after a gap or gyro saturation): the next samples re-average.
    mutating func restartFilter() {
        filtered.reset()
        filteredGait.reset()
    }
}
