import Foundation

/// Step length from cadence and body height, by dynamic similarity of legged locomotion.
///
/// Alexander (R. McN. Alexander, "Estimates of speeds of dinosaurs", Nature 261:129–130, 1976, and
/// "Walking and running", American Scientist 72:348–354, 1984) found that animals of all sizes,
/// humans included, walking and running, keep relative stride length λ/h a single function of the
/// Froude number v²/(g·h), h being hip height: **λ/h = 2.3 · (v²/(g·h))^0.3**. With v = s·f (step
/// length s, cadence f in steps/s) and λ = 2s this solves to
///
///     s = 2.3^2.5 / 2^2.5 · f^1.5 · h^1.75 · g^−0.75  ≈ 1.418 · f^1.5 · h^1.75 · g^−0.75
///
/// Hip height is 0.530 × body height (D. A. Winter, *Biomechanics and Motor Control of Human
/// Movement*, segment-length table). Without a configured height the model uses 1.70 m. At 1.9
/// steps/s a 1.70 m person gets 0.56 m per step (1.06 m/s); at 2.8 steps/s (running) 1.0 m.
/// `scale` multiplies the result (a per-user calibration, e.g. from a measured walk).
public struct StrideModel: Sendable, Hashable, Codable {
    /// Body height, m.
    public var height: Double
    /// Multiplier on the modelled length (1 = the published relation).
    public var scale: Double

    /// Height used when the user's is not known, m.
    public static let defaultHeight = 1.70

    /// A model for a body height (metres; 1.70 m when `nil` or outside 0.5–2.8 m) and a scale
    /// (1 when not a positive number).
    public init(height: Double? = nil, scale: Double = 1) {
        self.height = (height.map { $0.isFinite && $0 > 0.5 && $0 < 2.8 ? $0 : Self.defaultHeight }) ?? Self.defaultHeight
        self.scale = scale.isFinite && scale > 0 ? scale : 1
    }

    /// Step length in metres at `cadence` steps/s (cadence clamped to 0.5–4 steps/s).
    public func stepLength(cadence: Double) -> Double {
        let f = min(max(cadence.isFinite ? cadence : 1.8, 0.5), 4)
        let hip = 0.530 * height
        return scale * 1.418 * pow(f, 1.5) * pow(hip, 1.75) * pow(9.80665, -0.75)
    }
}
