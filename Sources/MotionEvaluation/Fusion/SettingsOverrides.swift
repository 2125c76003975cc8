import Foundation
import MotionEngine
import MotionSimulator

/// `--set NAME=VALUE` overrides of ``FusionFilter/Settings`` for experiments.
public enum SettingsOverrides {
    /// The numeric settings by name.
    public static var keys: [String: WritableKeyPath<FusionFilter.Settings, Double>] { [
        "accelerometerTimeConstant": \.accelerometerTimeConstant,
        "correctionInterval": \.correctionInterval,
        "gaitTimeConstant": \.gaitTimeConstant,
        "gaitCorrelationTime": \.gaitCorrelationTime,
        "gaitPeriodicityThreshold": \.gaitPeriodicityThreshold,
        "gaitMinimumAmplitude": \.gaitMinimumAmplitude,
        "gaitRotationPeriodicityThreshold": \.gaitRotationPeriodicityThreshold,
        "gaitImpactThreshold": \.gaitImpactThreshold,
        "gaitOnsetTime": \.gaitOnsetTime,
        "gaitOffsetTime": \.gaitOffsetTime,
        "gaitRampTime": \.gaitRampTime,
        "magnetometerCorrectionInterval": \.magnetometerCorrectionInterval,
        "headingMeasurementNoise": \.headingMeasurementNoise,
        "headingOffsetNoise": \.headingOffsetNoise,
        "headingRotationNoise": \.headingRotationNoise,
        "headingRotationRateScale": \.headingRotationRateScale,
        "biasInitialSigma": \.biasInitialSigma,
        "magnetometerCalibrationWindow": \.magnetometerCalibrationWindow,
        "magnetometerCalibrationSpread": \.magnetometerCalibrationSpread,
        "magnetometerCalibrationImprovement": \.magnetometerCalibrationImprovement,
        "magnetometerCalibrationMinimumResidual": \.magnetometerCalibrationMinimumResidual,
        "headingRecalibrationSigma": \.headingRecalibrationSigma,
        "magnetometerRecalibrationTime": \.magnetometerRecalibrationTime,
        "biasDriftSigma": \.biasDriftSigma,
        "biasDriftInterval": \.biasDriftInterval,
        "biasRestSigma": \.biasRestSigma,
        "biasMotionSigma": \.biasMotionSigma,
        "biasLimit": \.biasLimit,
        "restTimeConstant": \.restTimeConstant,
        "restGyroThreshold": \.restGyroThreshold,
        "restAccelerometerThreshold": \.restAccelerometerThreshold,
        "restMinimumTime": \.restMinimumTime,
        "magneticNormThreshold": \.magneticNormThreshold,
        "magneticSoftNormScale": \.magneticSoftNormScale,
        "magneticSoftDipScale": \.magneticSoftDipScale,
        "magneticDipThreshold": \.magneticDipThreshold,
        "magneticReferenceTimeConstant": \.magneticReferenceTimeConstant,
        "magneticMaximumRejectionTime": \.magneticMaximumRejectionTime,
        "magneticMinimumUndisturbedTime": \.magneticMinimumUndisturbedTime,
        "magneticVibrationThreshold": \.magneticVibrationThreshold,
        "magnetometerCalibrationVibrationThreshold": \.magnetometerCalibrationVibrationThreshold,
        "magneticUnsteadyThreshold": \.magneticUnsteadyThreshold,
        "magneticSteadinessTimeConstant": \.magneticSteadinessTimeConstant,
        "magneticRejectionFactor": \.magneticRejectionFactor,
        "magneticNewFieldTime": \.magneticNewFieldTime,
        "magneticFirstNewFieldTime": \.magneticFirstNewFieldTime,
    ] }

    /// The on/off settings by name.
    public static var flags: [String: WritableKeyPath<FusionFilter.Settings, Bool>] { [
        "estimatesBiasAtRest": \.estimatesBiasAtRest,
        "gaitReopensBias": \.gaitReopensBias,
        "estimatesBiasInMotion": \.estimatesBiasInMotion,
        "estimatesMagnetometerCalibration": \.estimatesMagnetometerCalibration,
        "magnetometerCorrectsBias": \.magnetometerCorrectsBias,
    ] }

    /// Applies `NAME=VALUE` overrides in order: a number (ending in "deg" for degrees, converted to
    /// radians) for ``keys``, true or false for ``flags``.
    /// - Throws: ``EvaluationError`` naming the first override that is not one, with the closest names.
    public static func apply(_ overrides: [String], to settings: inout FusionFilter.Settings) throws {
        for o in overrides {
            let parts = o.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2, let flag = flags[parts[0]] {
                guard let value = Bool(parts[1]) else {
                    throw EvaluationError("bad --set '\(o)': \(parts[0]) takes true or false")
                }
                settings[keyPath: flag] = value
                continue
            }
            // A value may end in "deg" (degrees, converted to radians).
            let isDegrees = parts.count == 2 && parts[1].hasSuffix("deg")
            let number = isDegrees ? String(parts[1].dropLast(3)) : (parts.count == 2 ? parts[1] : "")
            if parts.count == 2, keys[parts[0]] == nil {
                let names = keys.keys.sorted() + flags.keys.sorted()
                throw EvaluationError("bad --set '\(o)': \(NameSuggestion.unknown("setting", parts[0], among: names))")
            }
            guard parts.count == 2, let key = keys[parts[0]], var value = Double(number), value.isFinite else {
                throw EvaluationError("bad --set '\(o)': expected NAME=NUMBER with NAME one of \((keys.keys.sorted() + flags.keys.sorted()).joined(separator: ", "))")
            }
            if isDegrees { value *= Double.pi / 180 }
            settings[keyPath: key] = value
        }
    }
}
