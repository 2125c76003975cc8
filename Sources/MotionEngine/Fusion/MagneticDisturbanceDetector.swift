import Foundation
import MotionSamples

/// Detects magnetic disturbances: the field's norm and dip (seen in the 6D earth frame) leave the
/// band around a slowly learned reference.
///
/// While disturbed, the heading keeps to the gyroscope; after a long disturbance the heading is
/// corrected again, slowed down; a new homogeneous field (consistent for long enough while the
/// device rotates, so that a hard-iron offset could not fake it) replaces the reference.
struct MagneticDisturbanceDetector: Sendable {
    /// Learned reference norm (µT) and the sine of the dip (positive when the field points down).
    var referenceNorm = 0.0
    var referenceDipSine = 0.0
    /// The reference dip, radians.
    var referenceDip: Double { asin(max(-1, min(1, referenceDipSine))) }
    var hasReference = false
    /// Short low-pass of the current norm and dip.
    var currentNorm = 0.0
    var currentDipSine = 0.0
    var hasCurrent = false
    /// Candidate for a new reference.
    var candidateNorm = 0.0
    var candidateDipSine = 0.0
    var candidateTime = 0.0
    var acceptedNewField = false
    /// Seconds the field has been consistent with the reference.
    var undisturbedTime = 0.0
    /// Seconds the heading correction has been suspended.
    var rejectionTime = 0.0
    var isDisturbed = false
    /// Mean of the field norm over the steadiness time and the variance of the norm about it (µT,
    /// µT²): how unsteady the field is (``FusionFilter/Settings/magneticUnsteadyThreshold``).
    var steadyNorm = 0.0
    var normVariance = 0.0
    /// Gains cached for the last interval.
    var gainInterval = 0.0
    var steadinessGain = 1.0
    var currentGain = 1.0
    var referenceGain = 1.0

    /// The settings the detector reads, copied out of ``FusionFilter/Settings`` once (passing the
    /// whole settings struct from a mutating method copies it on every call).
    struct Parameters: Sendable {
        var currentTimeConstant: Double
        var referenceTimeConstant: Double
        var normThreshold: Double
        var dipThreshold: Double
        var minimumUndisturbedTime: Double
        var rejectionFactor: Double
        var newFieldMinimumRotationRate: Double
        var newFieldTime: Double
        var firstNewFieldTime: Double
        var unsteadyThreshold: Double
        var steadinessTimeConstant: Double

        init(_ s: FusionFilter.Settings) {
            unsteadyThreshold = s.magneticUnsteadyThreshold
            steadinessTimeConstant = s.magneticSteadinessTimeConstant
            currentTimeConstant = s.magneticCurrentTimeConstant
            referenceTimeConstant = s.magneticReferenceTimeConstant
            normThreshold = s.magneticNormThreshold
            dipThreshold = s.magneticDipThreshold
            minimumUndisturbedTime = s.magneticMinimumUndisturbedTime
            rejectionFactor = s.magneticRejectionFactor
            newFieldMinimumRotationRate = s.magneticNewFieldMinimumRotationRate
            newFieldTime = s.magneticNewFieldTime
            firstNewFieldTime = s.magneticFirstNewFieldTime
        }
    }

    /// Whether two dips, given by their sines, differ by less than `threshold` radians (to first
    /// order: |Δ sin| < threshold · cos(dip)).
    @inline(__always)
    static func dipsAgree(_ a: Double, _ b: Double, threshold: Double) -> Bool {
        let d = a - b
        return d * d < threshold * threshold * max(1 - b * b, 1e-6)
    }

    /// How far the current field departs from the reference, in units of the given scales
    /// (relative norm, dip in radians): (Δnorm/normScale)² + (Δdip/dipScale)².
    @inline(__always)
    func departure(normScale: Double, dipScale: Double) -> Double {
        guard hasReference, referenceNorm > 0 else { return 0 }
        let dn = (currentNorm - referenceNorm) / (referenceNorm * normScale)
        let dd = (currentDipSine - referenceDipSine) / (dipScale * max(1 - referenceDipSine * referenceDipSine, 1e-6).squareRoot())
        return dn * dn + dd * dd
    }

    /// Whether the field's norm varies more than `threshold` µT (standard deviation) about its recent mean.
    @inline(__always)
    func isUnsteady(threshold: Double) -> Bool {
        threshold > 0 && normVariance > threshold * threshold
    }

    /// Updates with one field sample. `rotationRateSquared` is the squared norm of the
    /// bias-corrected gyro, (rad/s)².
    mutating func update(
        fieldInEarth m: Vector3, interval dt: Double, rotationRateSquared: Double, parameters s: Parameters
    ) {
        let n = m.norm
        guard n > 0 else { return }
        let dip = -m.z / n
        // Intervals that differ only by timestamp rounding (< 1 ppm) keep the gains (two exp()).
        if abs(dt - gainInterval) > 1e-6 * gainInterval {
            gainInterval = dt
            currentGain = firstOrderGain(timeConstant: s.currentTimeConstant, samplePeriod: dt)
            referenceGain = firstOrderGain(timeConstant: s.referenceTimeConstant, samplePeriod: dt)
            steadinessGain = firstOrderGain(timeConstant: s.steadinessTimeConstant, samplePeriod: dt)
        }
        if s.unsteadyThreshold > 0 {
            if steadyNorm == 0 { steadyNorm = n }
            let d = n - steadyNorm
            steadyNorm += steadinessGain * d
            normVariance += steadinessGain * (d * d - normVariance)
        }
        if !hasCurrent {
            currentNorm = n
            currentDipSine = dip
            hasCurrent = true
        } else {
            let k = currentGain
            currentNorm += k * (n - currentNorm)
            currentDipSine += k * (dip - currentDipSine)
        }
        if !hasReference {
            referenceNorm = currentNorm
            referenceDipSine = currentDipSine
            hasReference = true
            candidateNorm = currentNorm
            candidateDipSine = currentDipSine
        }
        let consistent = abs(currentNorm - referenceNorm) < s.normThreshold * referenceNorm
            && Self.dipsAgree(currentDipSine, referenceDipSine, threshold: s.dipThreshold)
        if consistent {
            undisturbedTime += dt
            if undisturbedTime >= s.minimumUndisturbedTime {
                isDisturbed = false
                rejectionTime = max(0, rejectionTime - s.rejectionFactor * dt)
            }
            let k = referenceGain
            referenceNorm += k * (currentNorm - referenceNorm)
            referenceDipSine += k * (currentDipSine - referenceDipSine)
            candidateTime = 0
            candidateNorm = currentNorm
            candidateDipSine = currentDipSine
        } else {
            undisturbedTime = 0
            isDisturbed = true
            rejectionTime += dt
            // Track a candidate new field: it must stay consistent with itself while the device turns.
            let sameAsCandidate = abs(currentNorm - candidateNorm) < s.normThreshold * candidateNorm
                && Self.dipsAgree(currentDipSine, candidateDipSine, threshold: s.dipThreshold)
            if sameAsCandidate {
                if rotationRateSquared >= s.newFieldMinimumRotationRate * s.newFieldMinimumRotationRate {
                    candidateTime += dt
                }
                let k = referenceGain
                candidateNorm += k * (currentNorm - candidateNorm)
                candidateDipSine += k * (currentDipSine - candidateDipSine)
            } else {
                candidateTime = 0
                candidateNorm = currentNorm
                candidateDipSine = currentDipSine
            }
            let needed = acceptedNewField ? s.newFieldTime : s.firstNewFieldTime
            if candidateTime >= needed {
                referenceNorm = candidateNorm
                referenceDipSine = candidateDipSine
                acceptedNewField = true
                isDisturbed = false
                rejectionTime = 0
                undisturbedTime = s.minimumUndisturbedTime
                candidateTime = 0
            }
        }
    }
}
