import Foundation
import MotionSamples

/// Attitude from gyroscope, accelerometer and magnetometer: the sensor-fusion core behind device motion.
///
/// A pure value type: no threads, no I/O, no allocation per sample. Feed each sensor's samples as
/// they come, with the interval since that sensor's previous sample; the three streams need not be
/// synchronous nor share a rate. Inputs are in Apple's device axes and units: acceleration in g
/// with Apple's sign (face-up at rest reads (0, 0, −1)), raw rotation rate in rad/s, raw field in µT.
///
/// The attitude is kept as three factors (the structure of VQF, Laidig & Seel 2023):
/// `q9D = Rz(headingOffset) ⊗ inclinationCorrection ⊗ strapdown`, so the 6D attitude (no
/// magnetometer) and the 9D attitude (magnetic north) come out of one run, and a bad magnetometer
/// can never tilt the vertical.
public struct FusionFilter: Sendable {
    /// The settings in effect.
    public private(set) var settings: Settings

    var strapdown = GyroStrapdown()
    var inclination = InclinationCorrector()
    var biasEstimator: GyroBiasEstimator
    var rest = RestDetector()
    var disturbance = MagneticDisturbanceDetector()
    var calibrator = MagnetometerCalibrator()

    // Accelerometer-side filters shared by the inclination and the in-motion bias estimate.
    var accelerometerCoefficients: ButterworthCoefficients?
    var gaitCoefficients: ButterworthCoefficients?
    var gait = GaitDetector()
    /// The gait time constant's counterparts of the row and bias filters.
    var gaitRowFilter1 = LowPassVector3()
    /// The bias last set from rest or restored from an earlier session (rad/s): the one the gait
    /// onset falls back to.
    var trustedBias = Vector3.zero
    /// The variance of ``trustedBias`` when it was set, (rad/s)² per axis (`nil` until one is set:
    /// then the initial uncertainty applies), and the time since, seconds (the bias drifts).
    var trustedBiasVariance: Double?
    var trustedBiasAge = 0.0
    /// Weight of the gait low-pass in the blend, 0 … 1.
    var gaitBlend = 0.0
    var gaitRowFilter2 = LowPassVector3()
    var gaitBiasInEarthFilter = LowPassVector3()
    var attitudeRowFilter1 = LowPassVector3()
    var attitudeRowFilter2 = LowPassVector3()
    var biasInEarthFilter = LowPassVector3()
    /// Accelerometer samples (strapdown frame) and magnetometer samples averaged since the last correction.
    var accelerometerSum = Vector3.zero
    var accelerometerCount = 0
    var accelerometerElapsed = 0.0
    var magnetometerSum = Vector3.zero
    var magnetometerCount = 0
    var magnetometerElapsed = 0.0
    /// Seconds since the last in-motion bias update.
    var motionUpdateElapsed = 0.0
    /// Gyro time (s) and rotation (rad) not yet applied to the covariance.
    var pendingPrediction = 0.0
    var pendingRotation = 0.0
    /// Seconds since the last calibration sample and rest bias update.
    var calibrationElapsed = 0.0
    var restUpdateElapsed = 0.0
    /// The previous accelerometer sample (g) and the mean square of the difference between successive
    /// samples, g² (``Settings/magneticVibrationThreshold``).
    var previousAcceleration = Vector3.zero
    var hasPreviousAcceleration = false
    var vibrationEnergy = 0.0
    /// Seconds the magnetometer must still be consistent before the heading trusts it again after
    /// vibration or an unsteady field.
    var magnetometerDistrustHold = 0.0

    /// The 6D attitude (`inclination ⊗ strapdown`), refreshed after every change of either.
    public private(set) var attitude6D = Quaternion.identity
    /// `Rz(headingOffset)` and the offset it was made for. (Visible to the inlinable outputs: a
    /// getter that is not inlined into the caller makes it copy the whole filter first.)
    @usableFromInline var headingQuaternion = Quaternion.identity
    private var headingQuaternionOffset = 0.0
    /// Constants derived from the settings.
    private let derived: Derived

    /// Latest bias-corrected rotation rate, rad/s, device axes.
    public private(set) var rotationRate = Vector3.zero
    /// Latest raw magnetometer sample, µT.
    private var lastMagnetometerField = Vector3.zero
    /// Latest calibrated magnetic field, µT, device axes.
    @inline(__always) public var calibratedMagneticField: Vector3 {
        hasMagnetometer ? calibrator.calibration.apply(lastMagnetometerField) : .zero
    }
    /// Whether any magnetometer sample has been used.
    public private(set) var hasMagnetometer = false
    /// Whether the last gyro sample was saturated.
    public private(set) var isGyroscopeSaturated = false

    /// A filter at the identity attitude with zero bias, before the first sample.
    public init(settings: Settings = Settings()) {
        self.settings = settings
        biasEstimator = GyroBiasEstimator(initialSigma: settings.biasInitialSigma)
        derived = Derived(settings)
    }

    /// Settings-derived constants, computed once.
    private struct Derived: Sendable {
        /// Random-walk density of the bias, (rad/s)²/s.
        var biasDrift: Double
        var biasMaxVariance: Double
        var headingNoise: Double
        /// Heading variance added per radian turned, rad²/rad.
        var headingRotationNoise2: Double
        var headingMeasurementNoise2: Double
        /// σ⁴/q for the rest and motion bias measurements (divide by the interval for the variance).
        var restMeasurement: Double
        var motionMeasurement: Double
        var saturation: Double
        var rejectionFactor2: Double
        var recalibrationVariance: Double
        /// The gait and magnetic-disturbance detectors' settings.
        var gait: GaitDetector.Parameters
        var magnetic: MagneticDisturbanceDetector.Parameters

        init(_ s: Settings) {
            gait = GaitDetector.Parameters(s)
            magnetic = MagneticDisturbanceDetector.Parameters(s)
            biasDrift = s.biasDriftSigma * s.biasDriftSigma / s.biasDriftInterval
            biasMaxVariance = s.biasInitialSigma * s.biasInitialSigma
            headingNoise = s.headingOffsetNoise * s.headingOffsetNoise
            headingRotationNoise2 = s.headingRotationNoise * s.headingRotationNoise
            headingMeasurementNoise2 = s.headingMeasurementNoise * s.headingMeasurementNoise
            let q = max(biasDrift, 1e-30)
            restMeasurement = pow(s.biasRestSigma, 4) / q
            motionMeasurement = pow(s.biasMotionSigma, 4) / q
            saturation = 0.995 * s.gyroscopeRange
            rejectionFactor2 = s.magneticRejectionFactor * s.magneticRejectionFactor
            recalibrationVariance = s.headingRecalibrationSigma * s.headingRecalibrationSigma
        }
    }

    // MARK: Outputs

    /// Attitude with magnetometer (device → magnetic north frame: x north, y west, z up). Equal to
    /// ``attitude6D`` until the first magnetometer sample.
    @inlinable public var attitude9D: Quaternion { headingProduct(headingQuaternion, attitude6D) }

    /// Rotation about the vertical from the 6D earth frame to magnetic north, radians.
    public var headingOffset: Double { biasEstimator.headingOffset }

    /// `Rz(headingOffset)`: takes the 6D earth frame to the magnetic north frame.
    @inlinable public var headingRotation: Quaternion { headingQuaternion }

    /// Applies the covariance prediction accumulated over the gyro samples since the last one (run
    /// at the correction rate and before every measurement: the covariance changes slowly).
    @inline(__always)
    private mutating func propagate() {
        guard pendingPrediction > 0 else { return }
        biasEstimator.predict(
            variancePerSecond: derived.biasDrift,
            headingVariance: derived.headingNoise * pendingPrediction + derived.headingRotationNoise2 * pendingRotation,
            up: upInDevice, interval: pendingPrediction, maxVariance: derived.biasMaxVariance
        )
        pendingPrediction = 0
        pendingRotation = 0
    }

    /// Refreshes the cached 6D attitude.
    @inline(__always)
    private mutating func refreshAttitude() {
        attitude6D = product(inclination.correction, strapdown.orientation)
    }

    /// Refreshes the cached `Rz(headingOffset)` (a small change is applied incrementally, without
    /// trigonometry).
    @inline(__always)
    private mutating func refreshHeadingRotation() {
        let offset = biasEstimator.headingOffset
        let delta = wrapAngle(offset - headingQuaternionOffset)
        if delta == 0 { return }
        if abs(delta) < 0.05 {
            // product(h, increment((0, 0, delta))).normalizedFast, both rotations about z (x = y = 0):
            // the same arithmetic without the zero terms.
            let a2 = delta * delta
            let c = GyroStrapdown.halfAngleCosine(a2), s = delta * GyroStrapdown.halfAngleSineOverAngle(a2)
            let h = headingQuaternion
            let w = h.w * c - h.z * s, z = h.w * s + h.z * c
            let n2 = w * w + z * z
            if n2 > 0, n2.isFinite {
                let inv = 1 / n2.squareRoot()
                headingQuaternion = Quaternion(w: w * inv, x: 0, y: 0, z: z * inv)
            } else {
                headingQuaternion = Quaternion(w: 1, x: 0, y: 0, z: 0)
            }
        } else {
            headingQuaternion = Quaternion.aboutZ(offset)
        }
        headingQuaternionOffset = offset
    }

    /// The up vector (reference z) in device axes for the 6D attitude: the third row of its matrix.
    @inlinable @inline(__always)
    var upInDevice: Vector3 {
        let q = attitude6D
        return Vector3(2 * (q.x * q.z - q.w * q.y), 2 * (q.y * q.z + q.w * q.x), 1 - 2 * (q.x * q.x + q.y * q.y))
    }

    /// Records the first gyroscope sample of a stream (nothing to integrate yet): sets the rotation
    /// rate output.
    public mutating func noteGyroscope(_ rate: Vector3) {
        guard rate.isFinite else { return }
        rotationRate = rate - biasEstimator.bias
    }

    /// Estimated gyroscope bias, rad/s, device axes.
    @inline(__always) public var gyroBias: Vector3 { biasEstimator.bias }

    /// One-sigma uncertainty of the gyroscope bias, rad/s.
    public var gyroBiasSigma: Double { biasEstimator.sigma }

    /// Whether the device is at rest.
    @inline(__always) public var isAtRest: Bool { rest.isAtRest }

    /// Whether sustained periodic locomotion (walking, running, stairs) is under way: the
    /// accelerometer's norm repeats with a step or stride period (see the gait detector in `docs/fusion.md`, "Gait-aware correction").
    public var isWalking: Bool { gait.isWalking }

    /// Weight (0 … 1) of the gait time constant in the inclination correction.
    public var gaitWeight: Double { gaitBlend }

    /// The gait detector's latest analysis: the step or stride `period` (s, 0 without a periodic
    /// peak), the normalised autocorrelation of the vertical specific force at it (`periodicity`,
    /// −1 … 1), the standard deviation of that force (`amplitude`, g), the RMS of the rotation rate
    /// (`rotationRMS`, rad/s) and the rotation rate's normalised autocorrelation at the period
    /// (`rotationAtPeriod`) and at half of it (`rotationAtHalfPeriod`), and the impact power over the
    /// variance of the force (`impactRatio`: the strikes of the feet).
    public var gaitAnalysis: (period: Double, periodicity: Double, amplitude: Double,
                              rotationRMS: Double, rotationAtPeriod: Double, rotationAtHalfPeriod: Double, impactRatio: Double) {
        (gait.period, gait.periodicity, gait.amplitude, gait.rotationRMS, gait.rotationAtPeriod, gait.rotationAtHalfPeriod, gait.impactRatio)
    }

    /// Whether the magnetic field is currently considered disturbed (heading follows the gyroscope).
    @inline(__always) public var isMagneticallyDisturbed: Bool { disturbance.isDisturbed || magnetometerDistrustHold > 0 }

    /// Gravity in device axes, g (Apple's `CMDeviceMotion.gravity`): the reference frame's down
    /// vector, `−(third row of R)`.
    @inlinable public var gravity: Vector3 { -upInDevice }

    // MARK: Updates

    /// Integrates one gyroscope sample: `rate` raw rotation rate (rad/s), held for `interval` seconds
    /// since the previous gyroscope sample. Non-finite samples and non-positive intervals are ignored;
    /// an interval longer than ``Settings/maximumSampleInterval`` is a gap (see ``restartAfterGap()``).
    public mutating func updateGyroscope(_ rate: Vector3, interval: Double) {
        guard rate.isFinite, interval > 0, interval.isFinite else { return }
        if interval > settings.maximumSampleInterval {
            restartAfterGap()
            return
        }
        let limit = derived.saturation
        isGyroscopeSaturated = max(abs(rate.x), abs(rate.y), abs(rate.z)) >= limit
        if isGyroscopeSaturated {
            // The true rate is unknown: integrate what we have, then let the accelerometer and the
            // magnetometer pull the attitude back quickly.
            inclination.restartFilter()
            biasEstimator.loosenHeading(variance: 0.1)
        }
        let corrected = rate - biasEstimator.bias
        rotationRate = corrected
        strapdown.integrate(corrected, interval: interval)
        refreshAttitude()

        rest.updateGyroscope(
            rate, interval: interval, timeConstant: settings.restTimeConstant,
            threshold: settings.restGyroThreshold, minimumTime: settings.restMinimumTime
        )
        pendingPrediction += interval
        pendingRotation += corrected.norm * interval
        if pendingPrediction >= settings.correctionInterval { propagate() }
        restUpdateElapsed = rest.isAtRest ? restUpdateElapsed + interval : 0
        if settings.estimatesBiasAtRest && rest.isAtRest && !isGyroscopeSaturated && restUpdateElapsed >= 0.0099 {
            propagate()
            let r = derived.restMeasurement / restUpdateElapsed
            restUpdateElapsed = 0
            let z = rest.filteredGyro
            biasEstimator.update(axis: 0, z: z.x, variance: r)
            biasEstimator.update(axis: 1, z: z.y, variance: r)
            biasEstimator.update(axis: 2, z: z.z, variance: r)
            biasEstimator.clip(settings.biasLimit)
            trustedBias = biasEstimator.bias
            trustedBiasVariance = biasEstimator.sigma * biasEstimator.sigma
            trustedBiasAge = 0
            refreshHeadingRotation()
        }
    }

    /// Corrects the inclination with one accelerometer sample: `acceleration` in g, Apple's sign,
    /// `interval` seconds since the previous accelerometer sample.
    public mutating func updateAccelerometer(_ acceleration: Vector3, interval: Double) {
        guard acceleration.isFinite, interval > 0, interval.isFinite else { return }
        if interval > settings.maximumSampleInterval {
            restartAfterGap()
            return
        }
        rest.updateAccelerometer(
            acceleration, interval: interval, timeConstant: settings.restTimeConstant,
            threshold: settings.restAccelerometerThreshold
        )
        if settings.magneticVibrationThreshold > 0 || settings.magnetometerCalibrationVibrationThreshold > 0 {
            if hasPreviousAcceleration {
                let d = acceleration - previousAcceleration
                vibrationEnergy += min(1, interval / settings.magneticSteadinessTimeConstant) * (d.normSquared - vibrationEnergy)
            }
            previousAcceleration = acceleration
            hasPreviousAcceleration = true
        }
        // Apple's acceleration is minus the specific force: −a points up at rest. Samples are
        // averaged in the strapdown frame over at least ``Settings/correctionInterval``; the
        // correction runs on the averages (the low-pass that follows has a time constant of seconds).
        accelerometerSum += rotated(-acceleration, by: strapdown.orientation)
        accelerometerCount += 1
        accelerometerElapsed += interval
        guard accelerometerElapsed >= settings.correctionInterval else { return }
        let period = accelerometerElapsed
        let up = accelerometerSum * (1 / Double(accelerometerCount))
        accelerometerSum = Vector3(0, 0, 0)
        accelerometerCount = 0
        accelerometerElapsed = 0

        let c: ButterworthCoefficients
        if let cached = accelerometerCoefficients, cached.matches(samplePeriod: period) {
            c = cached
        } else {
            c = ButterworthCoefficients(timeConstant: settings.accelerometerTimeConstant, samplePeriod: period)
            accelerometerCoefficients = c
        }
        // Gait: while walking, a second low-pass with the gait time constant is blended in (for the
        // inclination and, consistently, for the in-motion bias measurement). The detector always runs
        // (``isWalking``); the gait filters only when ``Settings/gaitTimeConstant`` is set.
        var gaitWeight = 0.0
        var g: ButterworthCoefficients?
        let wasWalking = gait.isWalking
        let vertical = inclination.filtered.value
        let vn = vertical.norm
        // The vertical specific force: the centre of mass bounces with every step.
        gait.add(norm: vn > 0.1 ? (up.x * vertical.x + up.y * vertical.y + up.z * vertical.z) / vn : up.norm,
                 rotationRate: rotationRate, interval: period, parameters: derived.gait)
        if settings.gaitTimeConstant > 0 {
            // The blend moves toward 1 while walking (once the gait filter is warm), toward 0 otherwise.
            let target = gait.isWalking && inclination.filteredGait.isWarm ? 1.0 : 0.0
            let step = settings.gaitRampTime > 0 ? period / settings.gaitRampTime : 1
            gaitBlend = target > gaitBlend ? min(target, gaitBlend + step) : max(target, gaitBlend - step)
            gaitWeight = gaitBlend
            trustedBiasAge += period
            if gait.isWalking && !wasWalking && settings.gaitReopensBias {
                // The bias learned so far in motion came through the short low-pass, which walking
                // accelerations pass: fall back to the last bias from rest (or from an earlier
                // session), as uncertain as it was then plus its drift since; at start, the initial one.
                let variance = trustedBiasVariance.map { min(derived.biasMaxVariance, $0 + derived.biasDrift * trustedBiasAge) }
                    ?? derived.biasMaxVariance
                biasEstimator.covariance = Matrix3.diagonal(Vector3(1, 1, 1) * variance)
                biasEstimator.cross = .zero
                biasEstimator.bias = trustedBias
            }
            if let cached = gaitCoefficients, cached.matches(samplePeriod: period) {
                g = cached
            } else {
                g = ButterworthCoefficients(timeConstant: settings.gaitTimeConstant, samplePeriod: period)
                gaitCoefficients = g
            }
        }
        inclination.update(upInStrapdown: up, coefficients: c, gaitCoefficients: g, gaitWeight: gaitWeight)
        refreshAttitude()

        guard settings.estimatesBiasInMotion else { return }
        let r6 = inlinedRotationMatrix(attitude6D)
        var row1 = attitudeRowFilter1.filter(r6.row1, c)
        var row2 = attitudeRowFilter2.filter(r6.row2, c)
        let biasNow = r6 * biasEstimator.bias
        var biasInEarth = biasInEarthFilter.filter(biasNow, c)
        if let g {
            let gaitRow1 = gaitRowFilter1.filter(r6.row1, g)
            let gaitRow2 = gaitRowFilter2.filter(r6.row2, g)
            let gaitBias = gaitBiasInEarthFilter.filter(biasNow, g)
            if gaitWeight > 0 {
                row1 = row1 + (gaitRow1 - row1) * gaitWeight
                row2 = row2 + (gaitRow2 - row2) * gaitWeight
                biasInEarth = biasInEarth + (gaitBias - biasInEarth) * gaitWeight
            }
        }
        // While walking, the short low-pass passes the walking accelerations: no bias update
        // until the gait filter is warm.
        // While the weight changes, the correction also turns by the change of the blend, which is
        // not a bias effect.
        let gaitNotReady = g != nil && ((gait.isWalking || gait.isPeriodic) && gaitWeight == 0 || gaitWeight > 0 && gaitWeight < 1)
        guard !rest.isAtRest, inclination.filtered.isWarm, !isGyroscopeSaturated, !gaitNotReady else {
            motionUpdateElapsed = 0
            return
        }
        // The bias measurement is smooth (it comes through the low-pass): 25 updates a second carry
        // its information; each weighs the time since the previous one.
        motionUpdateElapsed += period
        guard motionUpdateElapsed >= 0.0399 else { return }
        let elapsed = motionUpdateElapsed
        motionUpdateElapsed = 0
        propagate()
        // The correction turned the frame by lastStep; a bias error e tilts it by −R e per second.
        let correctionRate = inclination.lastStep / period
        let r = derived.motionMeasurement / elapsed
        biasEstimator.update(h: row1, z: biasInEarth.x - correctionRate.x, variance: r)
        biasEstimator.update(h: row2, z: biasInEarth.y - correctionRate.y, variance: r)
        biasEstimator.clip(settings.biasLimit)
        refreshHeadingRotation()
    }

    /// Corrects the heading with one magnetometer sample: `field` raw, µT, device axes; `interval`
    /// seconds since the previous magnetometer sample.
    public mutating func updateMagnetometer(_ field: Vector3, interval: Double) {
        guard field.isFinite, interval > 0, interval.isFinite else { return }
        guard field.normSquared > 1e-6 else { return }
        lastMagnetometerField = field
        hasMagnetometer = true
        // Averaged over at least ``Settings/magnetometerCorrectionInterval`` (the heading follows the
        // magnetometer over tens of seconds).
        magnetometerSum += field
        magnetometerCount += 1
        magnetometerElapsed += min(interval, settings.maximumSampleInterval)
        guard magnetometerElapsed >= settings.magnetometerCorrectionInterval else { return }
        let dt = magnetometerElapsed
        let field = magnetometerSum / Double(magnetometerCount)
        magnetometerSum = Vector3(0, 0, 0)
        magnetometerCount = 0
        magnetometerElapsed = 0
        let q6 = attitude6D
        calibrationElapsed += dt
        let calibrationVibrating = settings.magnetometerCalibrationVibrationThreshold > 0
            && vibrationEnergy > settings.magnetometerCalibrationVibrationThreshold * settings.magnetometerCalibrationVibrationThreshold
        if settings.estimatesMagnetometerCalibration && calibrationElapsed >= 0.0199 && !calibrationVibrating {  // ≤ 50 Hz
            // Consecutive samples are nearly the same: 50 Hz is plenty for the calibration.
            calibrator.add(raw: field, up: upInDevice, interval: calibrationElapsed, window: settings.magnetometerCalibrationWindow)
            calibrationElapsed = 0
            // (Checked first: passing the settings to the mutating solve copies them.)
            if calibrator.isDue(settings: settings) {
                let reference = disturbance.hasReference && calibrator.isVerified
                    ? (norm: disturbance.referenceNorm, dip: disturbance.referenceDip) : nil
                let revision = calibrator.revision
                if calibrator.solveIfDue(reference: reference, settings: settings), calibrator.revision != revision {
                    // A new offset changes the field: unless it reproduced the known Earth field, learn
                    // its norm and dip again; re-converge the heading either way. (Small refinements
                    // need neither.)
                    if reference == nil { disturbance = MagneticDisturbanceDetector() }
                    biasEstimator.loosenHeading(variance: derived.recalibrationVariance)
                }
            }
        }
        let m = calibrator.calibration.apply(field)
        let inEarth = rotated(m, by: q6)
        disturbance.update(fieldInEarth: inEarth, interval: dt, rotationRateSquared: rotationRate.normSquared, parameters: derived.magnetic)
        propagate()
        var variance = derived.headingMeasurementNoise2 / dt
        if settings.headingRotationRateScale > 0 {
            // Fast turns magnify the magnetometer's timing and dynamic errors.
            variance *= 1 + rotationRate.normSquared / (settings.headingRotationRateScale * settings.headingRotationRateScale)
        }
        guard biasEstimator.hasHeading else {
            biasEstimator.startHeading(measurement: -atan2(inEarth.y, inEarth.x), variance: variance)
            refreshHeadingRotation()
            return
        }
        // Vibration or an unsteady field: the heading keeps to the gyroscope (6D) until the field has
        // been steady again for the undisturbed time.
        let vibrating = settings.magneticVibrationThreshold > 0
            && vibrationEnergy > settings.magneticVibrationThreshold * settings.magneticVibrationThreshold
        if vibrating || disturbance.isUnsteady(threshold: settings.magneticUnsteadyThreshold) {
            magnetometerDistrustHold = settings.magneticMinimumUndisturbedTime
            return
        }
        if magnetometerDistrustHold > 0 {
            magnetometerDistrustHold = max(0, magnetometerDistrustHold - dt)
            return
        }
        if disturbance.isDisturbed {
            guard disturbance.rejectionTime > settings.magneticMaximumRejectionTime else { return }
            variance *= derived.rejectionFactor2
        } else if settings.magneticSoftNormScale > 0 {
            // Within the band, a field that departs from the reference is trusted less.
            variance *= 1 + disturbance.departure(normScale: settings.magneticSoftNormScale, dipScale: settings.magneticSoftDipScale)
        }
        let correctsBias = settings.magnetometerCorrectsBias && !disturbance.isDisturbed && calibrator.isVerified
            && calibrator.calibration.accuracy >= .medium
        // Innovation: the angle that still separates the field, turned by the current offset, from north.
        let h = headingQuaternion
        let c = h.w * h.w - h.z * h.z, sn = 2 * h.w * h.z
        let north = c * inEarth.x - sn * inEarth.y, west = sn * inEarth.x + c * inEarth.y
        biasEstimator.updateHeading(innovation: -smallAngleAtan2(west, north), variance: variance, correctsBias: correctsBias)
        biasEstimator.clip(settings.biasLimit)
        refreshHeadingRotation()
    }

    /// Convenience for synchronous sensors: one gyroscope, accelerometer and (optional) magnetometer
    /// sample taken together, `interval` seconds after the previous set.
    public mutating func update(gyroscope: Vector3, accelerometer: Vector3, magnetometer: Vector3?, interval: Double) {
        updateGyroscope(gyroscope, interval: interval)
        updateAccelerometer(accelerometer, interval: interval)
        if let magnetometer { updateMagnetometer(magnetometer, interval: interval) }
    }

    /// Recovers from a gap in the data: the attitude and bias are kept, the short-term filters start
    /// over so that the accelerometer and magnetometer re-converge as fast as at start.
    public mutating func restartAfterGap() {
        accelerometerSum = .zero
        accelerometerCount = 0
        accelerometerElapsed = 0
        magnetometerSum = .zero
        magnetometerCount = 0
        magnetometerElapsed = 0
        hasPreviousAcceleration = false
        vibrationEnergy = 0
        inclination.restartFilter()
        rest.reset()
        gait.reset()
        gaitBlend = 0
        attitudeRowFilter1.reset()
        attitudeRowFilter2.reset()
        biasInEarthFilter.reset()
        biasEstimator.loosenHeading(variance: 0.1)
    }
}

/// `q.rotationMatrix` (device → reference) with the same arithmetic, inlined into the hot path
/// (the `MotionSamples` property is a call that returns the matrix through memory).
@inline(__always)
func inlinedRotationMatrix(_ q: Quaternion) -> Matrix3 {
    let (ww, xx, yy, zz) = (q.w * q.w, q.x * q.x, q.y * q.y, q.z * q.z)
    let (xy, xz, yz, wx, wy, wz) = (q.x * q.y, q.x * q.z, q.y * q.z, q.w * q.x, q.w * q.y, q.w * q.z)
    return Matrix3(
        ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy),
        2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx),
        2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz
    )
}

/// `atan2(y, x)` with a series for the small angles of heading innovations (|y| < x/4: error
/// below 3·10⁻⁸ rad), `atan2` otherwise.
@inline(__always)
func smallAngleAtan2(_ y: Double, _ x: Double) -> Double {
    if x > 0 && abs(y) < 0.25 * x {
        let r = y / x, r2 = r * r
        return r * (1 - r2 * (1.0 / 3 - r2 * (1.0 / 5 - r2 * (1.0 / 7 - r2 / 9))))
    }
    return atan2(y, x)
}

extension FusionFilter {
    /// Calibration accuracy of ``calibratedMagneticField``; `.uncalibrated` without a magnetometer.
    @inline(__always) public var magnetometerCalibrationAccuracy: MagnetometerCalibrationAccuracy {
        hasMagnetometer ? calibrator.calibration.accuracy : .uncalibrated
    }

    /// Whether the magnetometer calibration needs the device to be turned about several axes
    /// (Apple reports `CMErrorDeviceRequiresMovement` once when this becomes true).
    @inline(__always) public var needsCalibrationMovement: Bool {
        hasMagnetometer && calibrator.calibration.accuracy <= .low
    }

    /// Starts from a gyroscope bias saved from an earlier session (rad/s), with one-sigma
    /// uncertainty `sigma` (rad/s; the bias drifts with temperature between sessions). iOS keeps its
    /// estimate running; a service should hand the last one to a new filter.
    public mutating func restoreGyroBias(_ bias: Vector3, sigma: Double = 0.05 * Double.pi / 180) {
        guard bias.isFinite, sigma.isFinite, sigma > 0 else { return }
        biasEstimator.bias = bias
        biasEstimator.clip(settings.biasLimit)
        trustedBias = biasEstimator.bias
        trustedBiasVariance = sigma * sigma
        trustedBiasAge = 0
        biasEstimator.covariance = Matrix3.diagonal(Vector3(1, 1, 1) * (sigma * sigma))
        biasEstimator.cross = .zero
    }

    /// The magnetometer calibration in use. Set it to restore a calibration saved from an earlier
    /// session (the filter keeps refining it).
    public var magnetometerCalibration: MagnetometerCalibration {
        get { calibrator.calibration }
        set {
            calibrator.calibration = newValue
            calibrator.isVerified = newValue.accuracy >= .medium
            calibrator.isEstimated = false
            disturbance = MagneticDisturbanceDetector()
        }
    }
}
