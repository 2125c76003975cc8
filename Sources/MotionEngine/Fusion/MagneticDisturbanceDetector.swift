import Foundation
import MotionSamples

/// Detects magnetic disturbances: the field's norm and dip (seen in the 6D earth frame) leave the
/// band around a slowly learned reference.
///
/// While disturbed, the heading keeps to the gyroscope; after a long disturbance the heading is
/// corrected again, slowed down; a new homogeneous field (consistent for long enough while the
/// device rotates, so that a hard-iron offset could not fake it) replaces the reference.
struct MagneticDisturbanceDetector: Sendable {
    /// Learned reference norm (µT) and dip (rad, positive when the field points down).
    var referenceNorm = 0.0
    var referenceDip = 0.0
    var hasReference = false
    /// Short low-pass of the current norm and dip.
    var currentNorm = 0.0
    var currentDip = 0.0
    var hasCurrent = false
    /// Candidate for a new reference.
    var candidateNorm = 0.0
    var candidateDip = 0.0
    var candidateTime = 0.0
    var acceptedNewField = false
    /// Seconds the field has been consistent with the reference.
    var undisturbedTime = 0.0
    /// Seconds the heading correction has been suspended.
    var rejectionTime = 0.0
    var isDisturbed = false
    /// Gains cached for the last interval.
    var gainInterval = 0.0
    var currentGain = 1.0
    var referenceGain = 1.0

    /// Norm and dip of `fieldInEarth` (µT, 6D earth frame, z up).
    @inline(__always)
    static func normAndDip(_ m: Vector3) -> (norm: Double, dip: Double) {
        let n = m.norm
        guard n > 0 else { return (0, 0) }
        return (n, asin(max(-1, min(1, -m.z / n))))
    }

    /// Updates with one field sample. `rotationRate` is the norm of the bias-corrected gyro, rad/s.
    mutating func update(
        fieldInEarth m: Vector3, interval dt: Double, rotationRate: Double, settings s: FusionFilter.Settings
    ) {
        let (n, dip) = Self.normAndDip(m)
        guard n > 0 else { return }
        if dt != gainInterval {
            gainInterval = dt
            currentGain = firstOrderGain(timeConstant: s.magneticCurrentTimeConstant, samplePeriod: dt)
            referenceGain = firstOrderGain(timeConstant: s.magneticReferenceTimeConstant, samplePeriod: dt)
        }
        if !hasCurrent {
            currentNorm = n
            currentDip = dip
            hasCurrent = true
        } else {
            let k = currentGain
            currentNorm += k * (n - currentNorm)
            currentDip += k * (dip - currentDip)
        }
        if !hasReference {
            referenceNorm = currentNorm
            referenceDip = currentDip
            hasReference = true
            candidateNorm = currentNorm
            candidateDip = currentDip
        }
        let consistent = abs(currentNorm - referenceNorm) < s.magneticNormThreshold * referenceNorm
            && abs(currentDip - referenceDip) < s.magneticDipThreshold
        if consistent {
            undisturbedTime += dt
            if undisturbedTime >= s.magneticMinimumUndisturbedTime {
                isDisturbed = false
                rejectionTime = max(0, rejectionTime - s.magneticRejectionFactor * dt)
            }
            let k = referenceGain
            referenceNorm += k * (currentNorm - referenceNorm)
            referenceDip += k * (currentDip - referenceDip)
            candidateTime = 0
            candidateNorm = currentNorm
            candidateDip = currentDip
        } else {
            undisturbedTime = 0
            isDisturbed = true
            rejectionTime += dt
            // Track a candidate new field: it must stay consistent with itself while the device turns.
            let sameAsCandidate = abs(currentNorm - candidateNorm) < s.magneticNormThreshold * candidateNorm
                && abs(currentDip - candidateDip) < s.magneticDipThreshold
            if sameAsCandidate {
                if rotationRate >= s.magneticNewFieldMinimumRotationRate {
                    candidateTime += dt
                }
                let k = referenceGain
                candidateNorm += k * (currentNorm - candidateNorm)
                candidateDip += k * (currentDip - candidateDip)
            } else {
                candidateTime = 0
                candidateNorm = currentNorm
                candidateDip = currentDip
            }
            let needed = acceptedNewField ? s.magneticNewFieldTime : s.magneticFirstNewFieldTime
            if candidateTime >= needed {
                referenceNorm = candidateNorm
                referenceDip = candidateDip
                acceptedNewField = true
                isDisturbed = false
                rejectionTime = 0
                undisturbedTime = s.magneticMinimumUndisturbedTime
                candidateTime = 0
            }
        }
    }
}
