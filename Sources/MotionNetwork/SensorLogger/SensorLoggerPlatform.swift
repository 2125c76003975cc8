import Foundation
import MotionRecordings
import MotionSamples

/// What a receiver is told about a phone's convention (`&platform=` of `sensorlogger:`), or what it
/// found out (``SensorLoggerConventionDetector``).
public enum SensorLoggerPlatform: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// iOS with "Standardise Units & Frames" off (the app's default): Apple's units and signs.
    case ios
    /// Android: Android's units and signs, the orientation a rotation vector to east-north-up.
    case android
    /// iOS with "Standardise Units & Frames" on: Android's units and signs, iOS's orientation.
    case iosStandardised = "ios-standardised"

    public var description: String { rawValue }

    /// The units-and-signs convention.
    public var convention: SensorLoggerConvention { self == .ios ? .apple : .android }
}

/// A decision on a phone's convention and why it was taken.
public struct SensorLoggerConventionDecision: Sendable, Hashable, CustomStringConvertible {
    /// Units and signs of the accelerations.
    public var convention: SensorLoggerConvention
    /// The platform, when the evidence says (rules 1 and 3), else `nil` (then an Android convention is
    /// taken as Android for the orientation frame).
    public var platform: SensorLoggerPlatform?
    /// Which rule decided, in words (for `coremotion devices --network` and the logs).
    public var reason: String

    public init(convention: SensorLoggerConvention, platform: SensorLoggerPlatform?, reason: String) {
        self.convention = convention
        self.platform = platform
        self.reason = reason
    }

    /// Whether the orientation is an Android rotation vector (device → east-north-up).
    public var orientationIsAndroid: Bool {
        convention == .android && platform != .iosStandardised
    }

    public var description: String { "\(convention) convention\(platform.map { " (\($0))" } ?? ""): \(reason)" }
}

/// Decides from the data whether a phone pushes in Apple's or Android's convention, since the stream has
/// no platform flag (NETWORK.md §1 "Which convention?"), by these rules in this order:
///
/// 1. Android-only evidence ⇒ Android: any `accuracy`; `totalacceleration`, `light`, `wifi`,
///    `batterytemp`; battery `voltage` or `health`; the activity `tilting`.
/// 2. `accelerometeruncalibrated`: the median |a| of its first readings (at least 5) is about 1 ⇒ Apple
///    (g, 0.3–3); about 9.8 ⇒ Android (m/s², 4–30).
/// 3. `headphone` or `wrist motion` ⇒ iOS, with or without standardisation: rule 4 says which.
/// 4. `orientation` and `gravity` at the same time: Apple's gravity is −9.80665·R(q)ᵀẑ, Android's
///    +9.80665·R(q)ᵀẑ; the mean residual over at least 5 pairs that is below 2 m/s² and under a third
///    of the other decides.
/// 5. Otherwise undecidable (only accelerometer, gravity, gyroscope: face down in one convention is face up
///    in the other): the receiver needs `&platform=`, and the phone is asked (HTTP 499) for the
///    uncalibrated accelerometer or the orientation.
///
/// Evidence accumulates over messages until a rule decides; a new `sessionId` starts over.
public struct SensorLoggerConventionDetector: Sendable {
    public private(set) var decision: SensorLoggerConventionDecision?
    /// iOS-only readings were seen (rule 3).
    public private(set) var sawIOSOnly = false
    private var norms: [Double] = []
    private var appleResidual = 0.0
    private var androidResidual = 0.0
    private var pairs = 0

    public init() {}

    /// Looks at one message; returns the decision once there is one.
    @discardableResult
    public mutating func observe(_ message: SensorLoggerMessage) -> SensorLoggerConventionDecision? {
        if let decision { return decision }
        var gravityByTime: [Int64: Vector3] = [:]
        var orientations: [(Int64, Quaternion)] = []
        for (index, r) in message.readings.enumerated() {
            if r.accuracy != nil {
                return decide(.android, .android, "rule 1: readings carry Android's 'accuracy'")
            }
            if r.sensor.isAndroidOnly {
                return decide(.android, .android, "rule 1: Android-only reading '\(r.sensor.name)'")
            }
            switch r.sensor {
            case .battery:
                if message.number(.voltage, in: r) != nil || message.number(.health, in: r) != nil {
                    return decide(.android, .android, "rule 1: battery 'voltage'/'health' (Android only)")
                }
            case .activity:
                if message.string(.activity, inReadingAt: index)?.lowercased() == "tilting" {
                    return decide(.android, .android, "rule 1: activity 'tilting' (Android only)")
                }
            case .accelerometerUncalibrated:
                if norms.count < 50, let v = message.vector(in: r) { norms.append(v.norm) }
            case .headphone, .wristMotion:
                sawIOSOnly = true
            case .gravity:
                if let v = message.vector(in: r) { gravityByTime[r.time] = v }
            case .orientation:
                if let w = message.number(.qw, in: r), let v = message.vector(.qx, .qy, .qz, in: r), w.isFinite {
                    let q = Quaternion(w: w, x: v.x, y: v.y, z: v.z)
                    if q.norm > 0.5 { orientations.append((r.time, q)) }
                }
            default: break
            }
        }
        // Rule 2.
        if norms.count >= 5 {
            let median = norms.sorted()[norms.count / 2]
            if median >= 0.3 && median <= 3 {
                return decide(.apple, sawIOSOnly ? .ios : nil, "rule 2: uncalibrated accelerometer in g (median |a| \(Self.format(median)))")
            }
            if median >= 4 && median <= 30 {
                return decide(.android, sawIOSOnly ? .iosStandardised : nil, "rule 2: uncalibrated accelerometer in m/s² (median |a| \(Self.format(median)))")
            }
        }
        // Rule 4.
        for (time, q) in orientations {
            guard let g = gravityByTime[time], g.norm > 4 else { continue }
            let r = SensorLoggerConvention.gravityResiduals(orientation: q, gravity: g)
            appleResidual += r.apple
            androidResidual += r.android
            pairs += 1
        }
        if pairs >= 5 {
            let apple = appleResidual / Double(pairs)
            let android = androidResidual / Double(pairs)
            if apple < 2 && apple < android / 3 {
                return decide(.apple, sawIOSOnly ? .ios : nil, "rule 4: gravity = −g·R(q)ᵀẑ (residual \(Self.format(apple)) m/s², Android's \(Self.format(android)))")
            }
            if android < 2 && android < apple / 3 {
                return decide(.android, sawIOSOnly ? .iosStandardised : nil, "rule 4: gravity = +g·R(q)ᵀẑ (residual \(Self.format(android)) m/s², Apple's \(Self.format(apple)))")
            }
        }
        return nil
    }

    private mutating func decide(_ convention: SensorLoggerConvention, _ platform: SensorLoggerPlatform?, _ reason: String) -> SensorLoggerConventionDecision {
        let d = SensorLoggerConventionDecision(convention: convention, platform: platform, reason: reason)
        decision = d
        return d
    }

    private static func format(_ v: Double) -> String { String(format: "%.2f", v) }
}
