import Foundation
import MotionSamples

extension FusionFilter {
    /// Everything that tunes the filter. The defaults are the values measured best on BROAD and the
    /// iPhone recordings (see `docs/fusion.md`); angles in radians, rates in rad/s, times in seconds,
    /// accelerations in g, fields in µT.
    public struct Settings: Sendable, Equatable {
        // MARK: Inclination (accelerometer)

        /// Time constant of the accelerometer low-pass in the strapdown frame, seconds.
        public var accelerometerTimeConstant = 2.5

        // MARK: Heading (magnetometer)

        /// Noise density of the magnetometer's heading measurement, rad·√s (a sample of interval Δt
        /// has variance noise²/Δt). With ``headingOffsetNoise`` it sets how long the magnetometer is
        /// averaged: about noise / offsetNoise seconds.
        public var headingMeasurementNoise = 6 * degree
        /// Random-walk density of the heading offset, rad/√s.
        public var headingOffsetNoise = 0.3 * degree

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
        /// Uncertainty the bias settles to while at rest, rad/s.
        public var biasRestSigma = 0.03 * degree
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
        public var magneticReferenceTimeConstant = 20.0
        /// Largest relative deviation of the field norm from the reference (0.1 = 10 %).
        public var magneticNormThreshold = 0.1
        /// Largest deviation of the dip angle from the reference, radians.
        public var magneticDipThreshold = 10 * degree
        /// Time the field must be consistent before the heading trusts it again, seconds.
        public var magneticMinimumUndisturbedTime = 0.5
        /// Longest time the heading ignores a disturbed field, seconds; afterwards it is corrected
        /// again with ``magneticRejectionFactor`` times the time constant.
        public var magneticMaximumRejectionTime = 60.0
        /// Slow-down of the heading correction after a long disturbance.
        public var magneticRejectionFactor = 2.0
        /// Time a new homogeneous field must be seen, while rotating, before it replaces the reference, seconds.
        public var magneticNewFieldTime = 20.0
        /// The same for the first new field after start, seconds.
        public var magneticFirstNewFieldTime = 5.0
        /// Smallest rotation rate that counts towards accepting a new field, rad/s.
        public var magneticNewFieldMinimumRotationRate = 20 * degree

        // MARK: Robustness

        /// Full-scale range of the gyroscope, rad/s: a reading at 99.5 % of it on any axis counts as saturated.
        public var gyroscopeRange = 2000 * degree
        /// Longest interval between samples of one sensor that is integrated, seconds; a longer gap
        /// restarts the filters' short-term state (attitude and bias are kept).
        public var maximumSampleInterval = 0.25

        public init() {}
    }
}

/// One degree in radians.
private let degree = Double.pi / 180
