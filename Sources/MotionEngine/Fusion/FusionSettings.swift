import Foundation
import MotionSamples

extension FusionFilter {
    /// Everything that tunes the filter; angles in radians, rates in rad/s, times in seconds,
    /// accelerations in g, fields in µT. The constants in the published grid of `coremotion evaluate
    /// --cross-validate` (heading, magnetic disturbance and calibration, rest detection, the rest's
    /// bias weight: `tools/accuracy/fusion-cv-settings.txt`) hold the values its coordinate descent
    /// keeps on all BROAD trials with the objective against VQF and the two-standard-error margin;
    /// the other gyro-bias uncertainties and ``restMinimumTime`` keep values the Apple-parity
    /// recordings preferred. The figure to expect on unseen trials is the cross-validated one
    /// (`docs/fusion.md`, "Tuning").
    public struct Settings: Sendable, Equatable {
        // MARK: Inclination (accelerometer)

        /// Time constant of the accelerometer low-pass in the strapdown frame, seconds.
        public var accelerometerTimeConstant = 2.5
        /// Accelerometer time constant while walking or running (``FusionFilter/isWalking``), seconds;
        /// 0 turns the gait-aware correction off. Periodic user acceleration averages out over a
        /// stride, so the gyroscope is trusted longer than during arbitrary motion
        /// (`docs/notes/fusion.md#gait-aware-correction`).
        public var gaitTimeConstant = 10.0
        /// With ``gaitTimeConstant``: whether, when walking begins, the gyro bias falls back to the
        /// last one from rest (or restored from an earlier session) with its initial uncertainty (the
        /// bias learned in motion until then came through the short low-pass, which walking passes).
        public var gaitReopensBias = true
        /// Memory of the gait detector's autocorrelation, seconds.
        public var gaitCorrelationTime = 3.0
        /// Smallest autocorrelation peak (normalised, 0 … 1) at a step or stride lag that counts as periodic.
        public var gaitPeriodicityThreshold = 0.5
        /// Smallest autocorrelation (normalised) of the rotation rate at the acceleration's period that
        /// counts as gait: the body turns the device the same way every stride.
        public var gaitRotationPeriodicityThreshold = 0.9
        /// Alternatively to the rotation: smallest ratio of the impact power of the (25 Hz) specific
        /// force — the mean square of its second difference — to its variance that counts as gait: feet
        /// strike the ground once a step, a hand moving the device back and forth does not (pocket
        /// walks 1.1–4.9, BROAD's hand-held movements 0.1–1.2;
        /// `docs/notes/fusion.md#gait-aware-correction`). 0 turns this alternative off.
        public var gaitImpactThreshold = 2.0
        /// Smallest standard deviation of the specific force's norm that counts as locomotion, g.
        public var gaitMinimumAmplitude = 0.3
        /// Time the periodicity must hold before walking is declared, seconds.
        public var gaitOnsetTime = 5.0
        /// Time the periodicity must fail before walking ends, seconds.
        public var gaitOffsetTime = 1.0
        /// Time over which the gait time constant is blended in or out, seconds.
        public var gaitRampTime = 2.0
        /// Shortest interval between corrections, seconds: faster accelerometer and magnetometer
        /// samples are averaged over it first (the gyroscope is integrated at its own rate).
        public var correctionInterval = 0.0099
        /// Shortest interval between heading corrections, seconds (magnetometer samples are averaged over it).
        public var magnetometerCorrectionInterval = 0.0099

        // MARK: Heading (magnetometer)

        /// Growth of the gyro-only heading's uncertainty with rotation (scale-factor and alignment
        /// errors of the gyroscope), radians per √radian turned: the heading variance grows by its
        /// square for every radian the device turns, so the magnetometer is followed more closely
        /// during fast rotation.
        public var headingRotationNoise = 0.005
        /// Rotation rate at which the heading measurement's variance doubles, rad/s (0: off).
        public var headingRotationRateScale = 6.0
        /// Noise density of the magnetometer's heading measurement, rad·√s (a sample of interval Δt
        /// has variance noise²/Δt). With ``headingOffsetNoise`` it sets how long the magnetometer is
        /// averaged: about noise / offsetNoise seconds.
        public var headingMeasurementNoise = 6 * degree
        /// Random-walk density of the heading offset, rad/√s.
        public var headingOffsetNoise = 0.3 * degree

        /// Whether the magnetometer also corrects the gyro bias (through the heading drift it causes).
        public var magnetometerCorrectsBias = true
        /// Uncertainty given to the heading when the magnetometer calibration changes, radians.
        public var headingRecalibrationSigma = 20 * degree

        // MARK: Magnetometer calibration

        /// Whether the hard-iron offset is estimated online.
        public var estimatesMagnetometerCalibration = true
        /// Time constant of the calibration's memory, seconds.
        public var magnetometerCalibrationWindow = 5.0
        /// How often the calibration is solved, seconds.
        public var magnetometerCalibrationInterval = 0.5
        /// Smallest eigenvalue of the covariance of field directions that counts as having turned
        /// about an axis (0 … 1/3).
        public var magnetometerCalibrationSpread = 0.01
        /// A new offset is adopted when its residual is below this fraction of the current one.
        public var magnetometerCalibrationImprovement = 0.25
        /// An offset whose residual stays below this explains the field, µT; a new one is adopted
        /// only when the current one's residual is above it and the new one's below.
        public var magnetometerCalibrationMinimumResidual = 2.0
        /// Vibration above which magnetometer samples do not enter the calibration: the measure of
        /// ``magneticVibrationThreshold``, g (0: off). A vibration motor moves its own magnet beside the
        /// magnetometer, so the field it reads then is not the Earth's plus a fixed offset. 0.3 g sits
        /// above every hand-held movement of BROAD (below 0.25 g); between 0.1 and 0.6 g no trial but
        /// the vibration trial changes (`docs/fusion.md`, "Magnetometer trust").
        public var magnetometerCalibrationVibrationThreshold = 0.3
        /// A confirmed offset whose residual is above the limit is refined toward a nearby solution
        /// whose residual is below this fraction of its own...
        public var magnetometerCalibrationRefinement = 0.8
        /// ... by this fraction of the difference per solve.
        public var magnetometerCalibrationRefinementStep = 0.2
        /// Once an offset has been confirmed, it must fail for this long (while the device turns)
        /// before another replaces it, seconds; until then the field is treated as disturbed.
        public var magnetometerRecalibrationTime = 120.0

        // MARK: Gyroscope bias

        /// Whether the bias is estimated at rest.
        public var estimatesBiasAtRest = true
        /// Whether the bias is estimated in motion (from the inclination correction).
        public var estimatesBiasInMotion = true
        /// Uncertainty of the bias at start, rad/s (one sigma).
        public var biasInitialSigma = 0.5 * degree
        /// How fast the true bias may wander: its one-sigma change over ``biasDriftInterval``, rad/s.
        public var biasDriftSigma = 0.1 * degree
        /// The interval over which ``biasDriftSigma`` accumulates, seconds.
        public var biasDriftInterval = 100.0
        /// Uncertainty the bias settles to while at rest, rad/s. With the drift it sets how much one
        /// second at rest is worth (variance σ⁴/q per second): a larger value trusts a short rest
        /// less and leaves the bias more open to the in-motion and magnetometer corrections after it.
        /// 0.09 °/s is the leave-one-trial-out pick on BROAD (13 of 16 folds, 0.075 °/s in 3; 0.03 °/s
        /// before). It trades the translation trials (6D worse) for the magnet and rotation trials; the
        /// iPhone walk has no rest and does not change; mPower's gravity against Apple improves
        /// (`docs/fusion.md`, "Cross-validation").
        public var biasRestSigma = 0.09 * degree
        /// Uncertainty the bias settles to in motion (horizontal axes), rad/s.
        public var biasMotionSigma = 0.1 * degree
        /// Largest bias accepted on each axis, rad/s.
        public var biasLimit = 2.0 * degree

        // MARK: Rest detection

        /// Low-pass time constant of the rest detector, seconds.
        public var restTimeConstant = 0.5
        /// Largest deviation of the gyro from its low-pass at rest, rad/s.
        public var restGyroThreshold = 2.0 * degree
        /// Largest deviation of the accelerometer from its low-pass at rest, g.
        public var restAccelerometerThreshold = 0.5 / standardGravity
        /// Time both must stay within their thresholds, seconds.
        public var restMinimumTime = 1.5

        // MARK: Magnetic disturbance

        /// Time constant of the current field norm and dip, seconds.
        public var magneticCurrentTimeConstant = 0.05
        /// Time constant with which the reference norm and dip adapt while undisturbed, seconds.
        public var magneticReferenceTimeConstant = 40.0
        /// Largest relative deviation of the field norm from the reference (0.2 = 20 %); the soft
        /// weighting below already distrusts smaller departures.
        public var magneticNormThreshold = 0.2
        /// Largest deviation of the dip angle from the reference, radians.
        public var magneticDipThreshold = 20 * degree
        /// Time the field must be consistent before the heading trusts it again, seconds.
        public var magneticMinimumUndisturbedTime = 0.5
        /// Longest time the heading ignores a disturbed field, seconds; afterwards it is corrected
        /// again with ``magneticRejectionFactor`` times the time constant.
        public var magneticMaximumRejectionTime = 60.0
        /// Slow-down of the heading correction after a long disturbance.
        public var magneticRejectionFactor = 2.0
        /// Soft weighting of the heading measurement inside the band: its variance is multiplied by
        /// 1 + (Δnorm/(scale·norm))² + (Δdip/dipScale)² (0: off).
        public var magneticSoftNormScale = 0.02
        /// Dip scale of the soft weighting, radians.
        public var magneticSoftDipScale = 3 * degree
        /// Time a new homogeneous field must be seen, while rotating, before it replaces the reference, seconds.
        public var magneticNewFieldTime = 20.0
        /// The same for the first new field after start, seconds.
        public var magneticFirstNewFieldTime = 5.0
        /// Smallest rotation rate that counts towards accepting a new field, rad/s.
        public var magneticNewFieldMinimumRotationRate = 20 * degree

        // MARK: Magnetometer trust

        /// Vibration above which the magnetometer is not trusted for the heading: the RMS of the
        /// difference between successive accelerometer samples, g, over ``magneticSteadinessTimeConstant``
        /// (0: off). A vibration motor beside the magnetometer shakes the device and moves its own
        /// magnet; BROAD's vibration trial reaches 0.48 g, its hand-held movements stay below 0.25 g
        /// (`docs/fusion.md`, "Magnetometer trust"). While it lasts, the heading keeps to the gyroscope
        /// as in 6D.
        public var magneticVibrationThreshold = 0.0
        /// Unsteadiness above which the magnetometer is not trusted for the heading: the standard
        /// deviation of the calibrated field's norm about its mean over ``magneticSteadinessTimeConstant``,
        /// µT (0: off). An undisturbed field varies by sensor noise alone (0.4–0.7 µT).
        public var magneticUnsteadyThreshold = 0.0
        /// Memory of the vibration and unsteadiness measures, seconds.
        public var magneticSteadinessTimeConstant = 0.5

        // MARK: Robustness

        /// Full-scale range of the gyroscope, rad/s: a reading at 99.5 % of it on any axis counts as saturated.
        public var gyroscopeRange = 2000 * degree
        /// Longest interval between samples of one sensor that is integrated, seconds; a longer gap
        /// restarts the filters' short-term state (attitude and bias are kept).
        public var maximumSampleInterval = 0.25

        /// The shipped settings (chosen on BROAD and the iPhone walk; `docs/fusion.md`).
        public init() {}
    }
}

/// One degree in radians.
private let degree = Double.pi / 180
