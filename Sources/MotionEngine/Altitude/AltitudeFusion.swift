import Foundation

/// Absolute altitude from the barometer and GNSS fixes: a two-state Kalman filter of the offset
/// between the altitude above mean sea level and the barometer's pressure altitude (ISA, standard
/// sea-level pressure), as `CMAbsoluteAltitudeData` is made on an iPhone 12 or later.
///
/// The barometer is smooth and relative (its offset is the day's weather, drifting slowly); a GNSS
/// altitude is absolute but noisy, and its error is strongly correlated in time (satellite geometry,
/// multipath), so fixes a few seconds apart do not average it away. The state is
///
/// - `b`, the offset (m): MSL altitude = pressure altitude + `b`; a random walk of
///   ``weatherDrift`` (m per √hour: a pressure drift of about 0.1 hPa per hour);
/// - `e`, the error of the GNSS altitude (m): first-order Gauss–Markov with correlation time
///   ``correlationTime`` and the fix's own variance (its `verticalAccuracy`² less the white part);
///
/// and each fix measures `z − h = b + e + v`, `v` white with σ ``whiteNoise``. The estimate is
/// `h + b̂`; its accuracy (1σ) is √(P_bb + (``scaleError`` · |h − h at the last fix|)²): the offset's
/// own uncertainty, and ISA's error on a height difference (the day's temperature) once the device
/// has moved far from where the fixes calibrated it. Pure value type, no allocation.
///
/// The constants were set from physics and published GNSS error behaviour, not tuned on a recording
/// (docs/altimeter.md says how; docs/notes/altimeter.md what other values would give).
public struct AltitudeFusion: Sendable, Hashable {
    /// Correlation time of the GNSS altitude error, s.
    public static let correlationTime = 300.0
    /// White (uncorrelated) part of a GNSS altitude's error, 1σ, m.
    public static let whiteNoise = 0.5
    /// Weather drift of the offset, m per √hour (random walk).
    public static let weatherDrift = 0.8
    /// Relative error of ISA height differences (temperature of the day), fraction.
    public static let scaleError = 0.03

    /// Whether a fix has been fused.
    public private(set) var isCalibrated = false
    /// Time of the state, s.
    private var time = 0.0
    private var b = 0.0
    private var e = 0.0
    private var pbb = 0.0
    private var pbe = 0.0
    private var pee = 0.0
    /// Pressure altitude at the last fix, m.
    private var calibrationAltitude = 0.0
    /// Fixes fused so far.
    public private(set) var fixCount = 0

    /// A fusion before the first fix (no absolute altitude yet).
    public init() {}

    /// Fuses a GNSS fix: `altitude` m above mean sea level with `accuracy` m (1σ) at `time` s, where
    /// the barometer's pressure altitude was `pressureAltitude` m. Ignores non-finite input, a
    /// non-positive accuracy, and a fix older than the last one.
    public mutating func add(time t: Double, altitude z: Double, accuracy: Double, pressureAltitude h: Double) {
        guard t.isFinite, z.isFinite, h.isFinite, accuracy.isFinite, accuracy > 0 else { return }
        let white = Self.whiteNoise * Self.whiteNoise
        let correlated = max(accuracy * accuracy - white, white)
        let y = z - h
        if !isCalibrated {
            // Diffuse prior on the offset, the stationary variance on the GNSS error: the first fix
            // is the offset, with the fix's own uncertainty.
            isCalibrated = true
            time = t
            b = y
            e = 0
            pbb = correlated + white
            pbe = -correlated
            pee = correlated
            // (That is the exact posterior of a diffuse prior: var(b) = σ_e² + σ_v², cov(b, e) = −σ_e².)
        } else {
            guard t >= time else { return }
            predict(to: t, correlated: correlated)
            let s = pbb + 2 * pbe + pee + white
            let kb = (pbb + pbe) / s
            let ke = (pbe + pee) / s
            let innovation = y - (b + e)
            b += kb * innovation
            e += ke * innovation
            let hb = pbb + pbe  // (P Hᵀ)_b
            let he = pbe + pee  // (P Hᵀ)_e
            pbb -= kb * hb
            pbe -= kb * he
            pee -= ke * he
        }
        calibrationAltitude = h
        fixCount += 1
    }

    /// The absolute altitude (m above mean sea level) and its accuracy (1σ, m) at `time` s where the
    /// pressure altitude is `pressureAltitude` m; `nil` before the first fix.
    public func estimate(at t: Double, pressureAltitude h: Double) -> (altitude: Double, accuracy: Double)? {
        guard isCalibrated else { return nil }
        let hours = max(0, t - time) / 3600
        let drift = Self.weatherDrift * Self.weatherDrift * hours
        let scale = Self.scaleError * (h - calibrationAltitude)
        return (h + b, (max(0, pbb) + drift + scale * scale).squareRoot())
    }

    /// Propagates the state to `t`; the GNSS error's stationary variance is `correlated` m².
    private mutating func predict(to t: Double, correlated: Double) {
        let dt = t - time
        guard dt > 0 else { return }
        let phi = exp(-dt / Self.correlationTime)
        e *= phi
        pbb += Self.weatherDrift * Self.weatherDrift * dt / 3600
        pbe *= phi
        pee = phi * phi * pee + correlated * (1 - phi * phi)
        time = t
    }
}
