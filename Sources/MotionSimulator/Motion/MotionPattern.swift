import MotionSamples

/// What an oscillation moves: a translation along, or a rotation about, a carrier axis.
enum OscillationChannel: Int, Sendable, Hashable, Comparable, CaseIterable {
    /// Translation along the carrier's forward (x), left (y) and up (z) axes, metres.
    case forward, left, up
    /// Rotation about the carrier's forward (x), left (y) and up (z) axes, radians.
    case rollForward, pitchLeft, yawUp

    /// Whether the channel is a rotation (radians) rather than a translation (metres).
    var isRotation: Bool { self >= .rollForward }

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// What an oscillation is timed by.
enum OscillationClock: Sendable, Hashable, Comparable {
    /// A multiple of the gait phase: 1 = once per step, 0.5 = once per stride (two steps),
    /// 2 = twice per step. For cycling the phase counts pedal revolutions, for shaking shakes.
    case gait(harmonic: Double)
    /// A fixed frequency, Hz (vibration, sway, tremor); its phase is drawn from the seed.
    case fixed(frequency: Double)

    static func < (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.gait(let x), .gait(let y)): x < y
        case (.fixed(let x), .fixed(let y)): x < y
        case (.gait, .fixed): true
        case (.fixed, .gait): false
        }
    }
}

/// One oscillation term's identity: its channel and clock.
struct OscillationKey: Sendable, Hashable, Comparable {
    var channel: OscillationChannel
    var clock: OscillationClock

    static func < (a: Self, b: Self) -> Bool {
        a.channel != b.channel ? a.channel < b.channel : a.clock < b.clock
    }
}

/// A periodic motion imprinted on the device relative to its carrier: a sum of terms
/// `a·cos θ + b·sin θ`, θ the term's clock angle. Patterns blend linearly (coefficient by
/// coefficient) between segments, which keeps every derivative continuous.
struct MotionPattern: Sendable {
    /// (cosine, sine) coefficients per term, metres or radians.
    var terms: [OscillationKey: (cos: Double, sin: Double)] = [:]
    /// Relative cadence fluctuation (standard deviation of the instantaneous step rate / mean).
    var cadenceJitter: Double = 0

    static let none = MotionPattern()

    /// Adds `amplitude · cos(h·2π·phase − phaseRadians)` on `channel`.
    mutating func gait(_ channel: OscillationChannel, harmonic: Double, amplitude: Double, lag: Double = 0) {
        add(OscillationKey(channel: channel, clock: .gait(harmonic: harmonic)), amplitude, lag)
    }

    /// Adds `amplitude · cos(2π·f·t − φ₀)`, φ₀ from the seed.
    mutating func fixed(_ channel: OscillationChannel, frequency: Double, amplitude: Double) {
        add(OscillationKey(channel: channel, clock: .fixed(frequency: frequency)), amplitude, 0)
    }

    /// Adds a vertical bounce whose acceleration is `B·(¾ cos φ + ½ cos 2φ + ¼ cos 3φ)` with
    /// `B = peakG·g/1.5`: a Fejér-kernel shape, peaking at `peakG` g at heel strike (φ = 0) and never
    /// below `−peakG/3` g, like the impact-then-glide pattern of a step. The displacement of
    /// harmonic k is `−B·wₖ / (2π·k·cadence)²`.
    mutating func heelStrikeBounce(peakG: Double, cadence: Double) {
        let b = peakG * standardGravity / 1.5
        for (k, weight) in [(1.0, 0.75), (2.0, 0.5), (3.0, 0.25)] {
            let omega = PortableMath.twoPi * k * cadence
            gait(.up, harmonic: k, amplitude: -b * weight / (omega * omega))
        }
    }

    /// Adds a vibration whose acceleration amplitude is `accelerationG` g at `frequency` Hz
    /// (displacement amplitude a/ω²).
    mutating func vibration(_ channel: OscillationChannel, frequency: Double, accelerationG: Double) {
        let omega = PortableMath.twoPi * frequency
        fixed(channel, frequency: frequency, amplitude: accelerationG * standardGravity / (omega * omega))
    }

    private mutating func add(_ key: OscillationKey, _ amplitude: Double, _ lag: Double) {
        // A cos(θ − lag) = A cos(lag) cos θ + A sin(lag) sin θ.
        let (s, c) = PortableMath.sinCos(lag)
        let old = terms[key] ?? (0, 0)
        terms[key] = (old.cos + amplitude * c, old.sin + amplitude * s)
    }

    /// The pattern scaled by `factor` (jitter unchanged).
    func scaled(_ factor: Double) -> MotionPattern {
        var out = self
        for (k, v) in terms { out.terms[k] = (v.cos * factor, v.sin * factor) }
        return out
    }

    /// The sum of two patterns (larger jitter kept).
    func adding(_ other: MotionPattern) -> MotionPattern {
        var out = self
        for (k, v) in other.terms {
            let old = out.terms[k] ?? (0, 0)
            out.terms[k] = (old.cos + v.cos, old.sin + v.sin)
        }
        out.cadenceJitter = max(cadenceJitter, other.cadenceJitter)
        return out
    }
}

/// The motion patterns of each activity and carry.
///
/// The gait patterns follow the well-known shape of trunk and thigh motion in walking and running:
/// the body's centre of mass rises and falls once per step by about 4–5 cm peak to peak in
/// walking (more in running), with a sharp upward acceleration peak at heel strike (a second
/// harmonic in phase with the first sharpens it); it sways sideways once per stride; a phone in a
/// front pocket pitches with the thigh, about ±20° walking and ±35° running, once per stride.
/// The gait phase is 0 at each heel strike, where the vertical acceleration peaks: that is the
/// ground-truth step time. Amplitudes were set so that the simulated signals fall inside the
/// ranges measured on real phones (Oxford Step Counter "InHand" and "FrontPocket" trials,
/// MotionSense walking and jogging); the tests check this against the data.
enum MotionPatterns {
    private static func deg(_ d: Double) -> Double { PortableMath.radians(d) }

    /// Postural sway and physiological tremor of a hand holding a phone still.
    static var handTremor: MotionPattern {
        var p = MotionPattern()
        p.fixed(.rollForward, frequency: 0.23, amplitude: deg(0.15))
        p.fixed(.pitchLeft, frequency: 0.17, amplitude: deg(0.20))
        p.fixed(.yawUp, frequency: 0.31, amplitude: deg(0.10))
        p.fixed(.up, frequency: 0.21, amplitude: 0.001)
        p.fixed(.rollForward, frequency: 8.7, amplitude: deg(0.03))
        p.fixed(.pitchLeft, frequency: 9.6, amplitude: deg(0.03))
        return p
    }

    /// Body sway of a person standing with the phone in a pocket.
    static var standingSway: MotionPattern {
        var p = MotionPattern()
        p.fixed(.pitchLeft, frequency: 0.19, amplitude: deg(0.3))
        p.fixed(.rollForward, frequency: 0.27, amplitude: deg(0.2))
        p.fixed(.up, frequency: 0.24, amplitude: 0.002)
        return p
    }

    /// Still, by carry.
    static func hold(_ carry: Carry) -> MotionPattern {
        switch carry {
        case .hand: handTremor
        case .pocket: standingSway
        case .table, .mount, .handlebar: .none
        }
    }

    /// Level walking at `cadence` steps/s (`vertical` scales the bounce, `swing` the thigh swing, for stairs).
    static func walk(_ carry: Carry, cadence: Double, vertical: Double = 1, swing: Double = 1) -> MotionPattern {
        var p = MotionPattern()
        p.cadenceJitter = 0.03
        switch carry {
        case .pocket:
            let theta = deg(22 * swing)
            p.gait(.pitchLeft, harmonic: 0.5, amplitude: theta, lag: PortableMath.pi / 2)
            // The pocket sits 0.3 m below the hip: it moves back as the thigh pitches forward-down.
            p.gait(.forward, harmonic: 0.5, amplitude: -0.30 * theta, lag: PortableMath.pi / 2)
            p.heelStrikeBounce(peakG: 1.3 * vertical, cadence: cadence)
            p.gait(.left, harmonic: 0.5, amplitude: 0.02, lag: PortableMath.pi / 2)
            p.gait(.rollForward, harmonic: 0.5, amplitude: deg(5), lag: PortableMath.pi / 2)
            p.gait(.yawUp, harmonic: 0.5, amplitude: deg(7), lag: 2.0)
        default:
            p.gait(.up, harmonic: 1, amplitude: -0.018 * vertical)
            p.gait(.up, harmonic: 2, amplitude: -0.003 * vertical)
            p.gait(.forward, harmonic: 1, amplitude: 0.010, lag: PortableMath.pi / 2)
            p.gait(.left, harmonic: 0.5, amplitude: 0.015, lag: PortableMath.pi / 2)
            p.gait(.rollForward, harmonic: 0.5, amplitude: deg(1.5), lag: PortableMath.pi / 2)
            p.gait(.pitchLeft, harmonic: 1, amplitude: deg(1.2))
            p.gait(.yawUp, harmonic: 0.5, amplitude: deg(2), lag: 1.27)
            p = p.adding(handTremor)
        }
        return p
    }

    /// Running: a larger bounce whose trough approaches free fall (flight phase).
    static func run(_ carry: Carry, cadence: Double) -> MotionPattern {
        var p = MotionPattern()
        p.cadenceJitter = 0.02
        switch carry {
        case .pocket:
            let theta = deg(35)
            p.gait(.pitchLeft, harmonic: 0.5, amplitude: theta, lag: PortableMath.pi / 2)
            p.gait(.forward, harmonic: 0.5, amplitude: -0.30 * theta, lag: PortableMath.pi / 2)
            p.heelStrikeBounce(peakG: 3.0, cadence: cadence)
            p.gait(.left, harmonic: 0.5, amplitude: 0.03, lag: PortableMath.pi / 2)
            p.gait(.rollForward, harmonic: 0.5, amplitude: deg(7), lag: PortableMath.pi / 2)
            p.gait(.yawUp, harmonic: 0.5, amplitude: deg(9), lag: 2.0)
        default:
            p.gait(.up, harmonic: 1, amplitude: -0.028)
            p.gait(.up, harmonic: 2, amplitude: -0.0042)
            p.gait(.forward, harmonic: 1, amplitude: 0.02, lag: PortableMath.pi / 2)
            p.gait(.left, harmonic: 0.5, amplitude: 0.03, lag: PortableMath.pi / 2)
            p.gait(.rollForward, harmonic: 0.5, amplitude: deg(3), lag: PortableMath.pi / 2)
            p.gait(.pitchLeft, harmonic: 1, amplitude: deg(3))
            p.gait(.yawUp, harmonic: 0.5, amplitude: deg(4), lag: 1.27)
        }
        return p
    }

    /// Climbing or descending stairs: slower steps, a smaller bounce going up, harder landings going down.
    static func stairs(_ direction: Stairs.Direction, _ carry: Carry, cadence: Double) -> MotionPattern {
        var p = walk(carry, cadence: cadence, vertical: direction == .up ? 0.7 : 0.9, swing: direction == .up ? 1.3 : 1.0)
        if direction == .down {
            p.gait(.up, harmonic: 2, amplitude: -0.002)
        }
        p.cadenceJitter = 0.04
        return p
    }

    /// A response to road roughness: `count` tones spread geometrically over `band` Hz whose amplitudes
    /// follow a base-excited oscillator (natural frequency `natural` Hz, damping ratio `damping`) driven
    /// by a road whose displacement spectrum falls as the square of the frequency (ISO 8608's road
    /// classes, waviness 2, crossed at constant speed: a flat input velocity spectrum). The output
    /// acceleration of a tone at f, in a band of width ∝ f, is then ∝ f^1.5 · |T(f)|, T the
    /// transmissibility √((1 + (2ζr)²) / ((1 − r²)² + (2ζr)²)), r = f / natural. Scaled so that the sum
    /// has `rms` r.m.s.: g for translations, radians for rotations (whose tones are angles, so their
    /// weights are the acceleration weights divided by (2πf)²). The phases come from the seed, so over
    /// a few seconds the sum looks like band-limited noise rather than one tone.
    static func roadResponse(
        _ channel: OscillationChannel, band: ClosedRange<Double>, count: Int,
        natural: Double, damping: Double, rms: Double
    ) -> MotionPattern {
        var p = MotionPattern()
        let ratio = count > 1 ? PortableMath.pow(band.upperBound / band.lowerBound, 1 / Double(count - 1)) : 1
        var tones: [(frequency: Double, weight: Double)] = []
        var f = band.lowerBound
        for _ in 0..<count {
            let r = f / natural
            let twoZetaR = 2 * damping * r
            let transmissibility = ((1 + twoZetaR * twoZetaR) / ((1 - r * r) * (1 - r * r) + twoZetaR * twoZetaR)).squareRoot()
            var weight = PortableMath.pow(f, 1.5) * transmissibility
            if channel.isRotation {
                let omega = PortableMath.twoPi * f
                weight /= omega * omega
            }
            tones.append((f, weight))
            f *= ratio
        }
        let norm = tones.reduce(0) { $0 + $1.weight * $1.weight }.squareRoot()
        guard norm > 0 else { return p }
        // A tone of amplitude A has r.m.s. A/√2, so Σ Aᵢ² = 2 rms².
        let scale = rms * 2.0.squareRoot() / norm
        for tone in tones {
            if channel.isRotation {
                p.fixed(channel, frequency: tone.frequency, amplitude: tone.weight * scale)
            } else {
                p.vibration(channel, frequency: tone.frequency, accelerationG: tone.weight * scale)
            }
        }
        return p
    }

    /// Road vibration of a bicycle (scaled by roughness): broadband-like sum of incommensurate tones.
    static func bicycleVibration(_ roughness: Double, strong: Bool) -> MotionPattern {
        var p = MotionPattern()
        let g = (strong ? 0.06 : 0.03) * roughness
        p.vibration(.up, frequency: 9.3, accelerationG: g)
        p.vibration(.up, frequency: 13.7, accelerationG: g * 0.8)
        p.vibration(.up, frequency: 18.1, accelerationG: g * 0.6)
        p.vibration(.forward, frequency: 11.9, accelerationG: g * 0.4)
        p.vibration(.left, frequency: 15.3, accelerationG: g * 0.3)
        return p
    }

    /// Pedalling (the gait phase counts pedal revolutions).
    static func cycle(_ carry: Carry, roughness: Double) -> MotionPattern {
        var p = MotionPattern()
        p.cadenceJitter = 0.06
        switch carry {
        case .pocket:
            // The thigh pitches about 14° once per revolution; the pocket circles with the knee.
            p.gait(.pitchLeft, harmonic: 1, amplitude: deg(14), lag: PortableMath.pi / 2)
            p.gait(.up, harmonic: 1, amplitude: 0.028)
            p.gait(.forward, harmonic: 1, amplitude: 0.02, lag: PortableMath.pi / 2)
            p.gait(.rollForward, harmonic: 1, amplitude: deg(3), lag: 1.0)
            // The knee's path is not a circle: a second harmonic per revolution.
            p.gait(.up, harmonic: 2, amplitude: 0.004, lag: 0.7)
            // Road unevenness reaches the hip through the tyres, frame and saddle.
            p = p.adding(roadResponse(.up, band: 1...8, count: 14, natural: 3.5, damping: 0.3, rms: 0.1 * roughness))
            p = p.adding(bicycleVibration(roughness, strong: false))
        default:
            p.fixed(.yawUp, frequency: 0.4, amplitude: deg(1.5))
            p.fixed(.rollForward, frequency: 0.3, amplitude: deg(1.0))
            // The rider's pedalling rocks the bike slightly once per revolution.
            p.gait(.rollForward, harmonic: 1, amplitude: deg(0.8))
            p = p.adding(bicycleVibration(roughness, strong: true))
        }
        return p
    }

    /// A car: the body on its suspension over an uneven road (bounce, pitch and roll, 0.6–5 Hz around
    /// natural frequencies of 1.1–1.6 Hz), the driver's wandering speed and steering, road and engine vibration;
    /// `moving` false leaves only the idling engine.
    static func car(roughness: Double, moving: Bool) -> MotionPattern {
        var p = MotionPattern()
        p.vibration(.up, frequency: 28.3, accelerationG: 0.008)     // idling engine
        guard moving else { return p }
        let r = roughness
        // Body bounce, roll and pitch on the suspension (natural frequencies 1.1–1.6 Hz, damping
        // ratio 0.3), excited by the road's unevenness across 0.6–5 Hz.
        p = p.adding(roadResponse(.up, band: 0.6...5, count: 14, natural: 1.3, damping: 0.3, rms: 0.0212 * r))
        p = p.adding(roadResponse(.rollForward, band: 0.6...4, count: 8, natural: 1.1, damping: 0.3, rms: deg(0.212 * r)))
        p = p.adding(roadResponse(.pitchLeft, band: 0.6...4, count: 8, natural: 1.6, damping: 0.3, rms: deg(0.177 * r)))
        // The driver: the speed surges a little (±0.15 m/s) and the steering corrects (sideways sways
        // of 0.01–0.02 g at 0.1–0.4 Hz), and the road's grade and camber change, so the acceleration's
        // direction wanders by a degree or two even at a steady speed.
        p.vibration(.forward, frequency: 0.19, accelerationG: 0.012)
        p.vibration(.forward, frequency: 0.31, accelerationG: 0.01)
        p.vibration(.left, frequency: 0.11, accelerationG: 0.02)
        p.vibration(.left, frequency: 0.23, accelerationG: 0.015)
        p.vibration(.left, frequency: 0.37, accelerationG: 0.01)
        p.fixed(.pitchLeft, frequency: 0.05, amplitude: deg(0.8))
        p.fixed(.rollForward, frequency: 0.08, amplitude: deg(0.6))
        p.vibration(.up, frequency: 11.5, accelerationG: 0.02 * r)
        p.vibration(.up, frequency: 16.3, accelerationG: 0.015 * r)
        p.vibration(.forward, frequency: 13.1, accelerationG: 0.01 * r)
        p.vibration(.left, frequency: 19.7, accelerationG: 0.01 * r)
        p.vibration(.up, frequency: 23.9, accelerationG: 0.015 * r)
        return p
    }

    /// Shaking in the hand: a back-and-forth (mostly up–down and forward) motion with a wrist twist.
    static func shake(amplitude: Double, rotation: Double) -> MotionPattern {
        var p = MotionPattern()
        p.cadenceJitter = 0.08
        p.gait(.up, harmonic: 1, amplitude: amplitude)
        p.gait(.forward, harmonic: 1, amplitude: 0.5 * amplitude, lag: 0.6)
        p.gait(.rollForward, harmonic: 1, amplitude: rotation, lag: 0.3)
        p.gait(.yawUp, harmonic: 1, amplitude: 0.5 * rotation, lag: 1.2)
        return p
    }

    /// The small vibration of a lift car.
    static var elevatorVibration: MotionPattern {
        var p = MotionPattern()
        p.vibration(.up, frequency: 4.1, accelerationG: 0.004)
        p.vibration(.left, frequency: 3.3, accelerationG: 0.002)
        return p
    }
}
