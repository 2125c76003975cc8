import MotionSamples

/// A scene's motion compiled for evaluation at any time: orientation, angular velocity, position,
/// velocity and acceleration of the device, all exact derivatives of one scripted trajectory.
///
/// ## Model
/// The device is carried by a *carrier* (a person, a car, a bicycle) that moves over the ground
/// with a speed along its heading, a climb rate and a heading; the device sits on the carrier at an
/// offset and in a pose, and a motion pattern (gait, vibration, tremor) moves it around that.
/// With `Rz(ψ)` the carrier's heading, `Osc` the pattern's small rotations about the carrier axes
/// and `P` the pose, the attitude is `q = Rz(ψ) ⊗ Osc ⊗ P`; with `c` the carrier's position, `d`
/// the offset plus pattern translation plus keyframe displacement, the position is
/// `p = c + Rz(ψ)·d`.
///
/// Every quantity is a function of time written with ``Jet`` arithmetic, so velocity and
/// acceleration (and the angular velocity `2·vec(q* ⊗ q̇)`) are exact. The only integrals without
/// a closed form — the horizontal path `∫ v·(cos ψ, sin ψ) dt`, the altitude gained by climbing
/// and the gait phase `∫ f·(1 + ε) dt` — are integrated by 8-point Gauss–Legendre quadrature
/// between knots at most 0.5 s apart (placed at every breakpoint of the script), accurate to about
/// 10⁻¹³ of the value; their derivatives (velocity, acceleration, cadence) are exact.
public struct MotionScript: Sendable {
    /// Seconds of scripted motion.
    public let duration: Double
    /// What happens after the script.
    public let ending: SceneEnding
    /// Altitude of the carrier's floor at the start, metres above sea level.
    public let startAltitude: Double

    let segments: [CompiledSegment]
    let segmentStarts: [Double]
    let terms: [OscillationKey]
    /// Cadence-jitter components: frequency (Hz), weight, phase (cycles).
    let jitter: [(frequency: Double, weight: Double, phase: Double)]
    private(set) var knotTimes: [Double]
    private(set) var knotValues: [Integrated]
    /// Ground-truth heel strikes within the script, script seconds.
    public private(set) var scriptStepTimes: [Double]

    /// Values of the integrated quantities.
    struct Integrated: Sendable {
        var x = 0.0, y = 0.0, z = 0.0, phase = 0.0

        static func + (a: Integrated, b: Integrated) -> Integrated {
            Integrated(x: a.x + b.x, y: a.y + b.y, z: a.z + b.z, phase: a.phase + b.phase)
        }
    }

    /// Compiles `scene`'s segments; `seed` draws the phases of vibrations, sway and cadence
    /// fluctuations. Throws ``SceneError`` for a scene that ``Scene/validate()`` rejects or a
    /// looping scene that does not end as it starts.
    public init(scene: Scene, seed: UInt64) throws {
        try scene.validate()
        var builder = ScriptBuilder(scene: scene, seed: seed)
        builder.compile()
        duration = builder.time
        ending = scene.ending
        startAltitude = scene.start.altitudeMetres
        segments = builder.segments
        segmentStarts = builder.segments.map(\.start)
        terms = builder.terms
        jitter = builder.jitter
        knotTimes = []
        knotValues = []
        scriptStepTimes = []
        // Integrate the knots now that the script can be evaluated.
        (knotTimes, knotValues) = integrateKnots(breakpoints: builder.breakpoints)
        scriptStepTimes = findScriptSteps()
        if ending == .loop { try checkLoop() }
    }

    // MARK: Time mapping

    /// The script time of scene time `t`: `t` itself, except for looping scenes.
    @inlinable
    public func scriptTime(_ t: Double) -> Double {
        guard t > 0 else { return 0 }
        if ending == .loop && t >= duration {
            let r = t - (t / duration).rounded(.down) * duration
            return r
        }
        return t
    }

    func segmentIndex(_ s: Double) -> Int {
        var lo = 0, hi = segmentStarts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segmentStarts[mid] <= s { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    // MARK: State

    /// The true state at scene time `t` seconds (times before 0 give the initial state; after the
    /// script, the ending applies: `stop` and `hold` continue the last segment's motion, `loop`
    /// starts over).
    public func state(at t: Double) -> KinematicState {
        let time = max(t, 0)
        var state = evaluate(script: scriptTime(time), time: time)
        if ending == .loop && time >= duration {
            // Each loop starts where the previous one ended: the horizontal displacement of one
            // pass (the only thing a looping scene need not restore) accumulates.
            let loops = (time / duration).rounded(.down)
            let end = knotValues[knotValues.count - 1]
            state.position.x += loops * end.x
            state.position.y += loops * end.y
        }
        return state
    }

    /// The state at script time `s`, with free-running oscillations (vibration, sway, tremor)
    /// taken at scene time `time` so that they run on across loops.
    func evaluate(script s: Double, time: Double) -> KinematicState {
        let i = segmentIndex(s)
        let seg = segments[i]
        let tau = s - seg.start
        let w = Smoothstep.jet(tau, length: seg.transition)
        let levels = seg.levels(w)

        // Carrier.
        let heading = seg.heading(tau)
        let integrated = integrated(at: s)
        let rates = self.rates(script: s)
        let lift = seg.lift(tau)
        let carrier = JetVector(
            Jet(integrated.x, rates.x.value, rates.x.d1),
            Jet(integrated.y, rates.y.value, rates.y.d1),
            Jet(integrated.z, rates.z.value, rates.z.d1) + lift + startAltitude
        )
        let phase = Jet(integrated.phase, rates.phase.value, rates.phase.d1)

        // Pattern: translations and rotations about the carrier axes.
        var channels = Channels()
        for k in seg.activeTerms {
            let a = Jet(seg.from.coefficients[2 * k]) + (seg.to.coefficients[2 * k] - seg.from.coefficients[2 * k]) * w
            let b = Jet(seg.from.coefficients[2 * k + 1])
                + (seg.to.coefficients[2 * k + 1] - seg.from.coefficients[2 * k + 1]) * w
            let angle: Jet
            switch terms[k].clock {
            case .gait(let h): angle = phase * h
            case .fixed(let f): angle = Jet(time * f, f, 0)
            }
            let (sn, cs) = angle.sinCosTurns
            channels.add(a * cs + b * sn, to: terms[k].channel)
        }

        let offset = levels.offset + seg.displacement(tau) + JetVector(channels.forward, channels.left, channels.up)
        let headingRotation = JetQuaternion(unitAxis: .unitZ, angle: heading)
        let position = carrier + headingRotation.rotate(offset)

        let oscillation = JetQuaternion(unitAxis: .unitZ, angle: channels.yawUp)
            * JetQuaternion(unitAxis: .unitY, angle: channels.pitchLeft)
            * JetQuaternion(unitAxis: .unitX, angle: channels.rollForward)
        let attitude = headingRotation * oscillation * seg.posture(tau)

        return KinematicState(
            time: time,
            attitude: attitude.value,
            angularVelocity: attitude.bodyAngularVelocity,
            angularAcceleration: attitude.bodyAngularAcceleration,
            position: position.value,
            velocity: position.d1,
            acceleration: position.d2,
            floorAltitude: carrier.z.value,
            carrierHeading: heading.value,
            gaitPhase: integrated.phase,
            isStepping: levels.stepping.value >= 0.5
        )
    }

    /// The summed oscillations of the six channels (no heap allocation per evaluation).
    private struct Channels {
        var forward = Jet.zero, left = Jet.zero, up = Jet.zero
        var rollForward = Jet.zero, pitchLeft = Jet.zero, yawUp = Jet.zero

        mutating func add(_ value: Jet, to channel: OscillationChannel) {
            switch channel {
            case .forward: forward += value
            case .left: left += value
            case .up: up += value
            case .rollForward: rollForward += value
            case .pitchLeft: pitchLeft += value
            case .yawUp: yawUp += value
            }
        }
    }

    // MARK: Integrated quantities

    /// Rates of the integrated quantities at script time `s`, as jets (value = the rate).
    func rates(script s: Double) -> (x: Jet, y: Jet, z: Jet, phase: Jet) {
        let seg = segments[segmentIndex(s)]
        let tau = s - seg.start
        let w = Smoothstep.jet(tau, length: seg.transition)
        let speed = Jet(seg.from.speed) + (seg.to.speed - seg.from.speed) * w
        let climb = Jet(seg.from.climb) + (seg.to.climb - seg.from.climb) * w
        let cadence = Jet(seg.from.cadence) + (seg.to.cadence - seg.from.cadence) * w
        let jitterLevel = Jet(seg.from.jitter) + (seg.to.jitter - seg.from.jitter) * w
        let (sinH, cosH) = seg.heading(tau).sinCos
        var fluctuation = Jet.zero
        for j in jitter {
            let (sn, _) = Jet(j.frequency * s + j.phase, j.frequency, 0).sinCosTurns
            fluctuation += sn * j.weight
        }
        let phaseRate = cadence * (1.0 + jitterLevel * fluctuation)
        return (speed * cosH, speed * sinH, climb, phaseRate)
    }

    private static let gaussNodes: [Double] = [
        -0.9602898564975363, -0.7966664774136267, -0.5255324099163290, -0.1834346424956498,
        0.1834346424956498, 0.5255324099163290, 0.7966664774136267, 0.9602898564975363,
    ]
    private static let gaussWeights: [Double] = [
        0.1012285362903763, 0.2223810344533745, 0.3137066458778873, 0.3626837833783620,
        0.3626837833783620, 0.3137066458778873, 0.2223810344533745, 0.1012285362903763,
    ]

    /// ∫ₐᵇ of the rates by 8-point Gauss–Legendre.
    private func quadrature(_ a: Double, _ b: Double) -> Integrated {
        guard b > a else { return Integrated() }
        let mid = 0.5 * (a + b), half = 0.5 * (b - a)
        var out = Integrated()
        for i in 0..<8 {
            let r = rates(script: mid + half * MotionScript.gaussNodes[i])
            let wt = MotionScript.gaussWeights[i] * half
            out.x += wt * r.x.value
            out.y += wt * r.y.value
            out.z += wt * r.z.value
            out.phase += wt * r.phase.value
        }
        return out
    }

    private func integrateKnots(breakpoints: [Double]) -> ([Double], [Integrated]) {
        var points = breakpoints.filter { $0 >= 0 && $0 <= duration }
        points.append(0)
        points.append(duration)
        points.sort()
        var times: [Double] = [0]
        for p in points where p > times.last! + 1e-9 {
            let a = times.last!
            let pieces = max(1, Int(((p - a) / 0.5).rounded(.up)))
            for j in 1...pieces { times.append(j == pieces ? p : a + (p - a) * Double(j) / Double(pieces)) }
        }
        var values: [Integrated] = [Integrated()]
        values.reserveCapacity(times.count)
        for k in 1..<max(times.count, 1) {
            values.append(values[k - 1] + quadrature(times[k - 1], times[k]))
        }
        return (times, values)
    }

    /// The integrated quantities at script time `s` (beyond the script: continued in closed form).
    func integrated(at s: Double) -> Integrated {
        guard !knotTimes.isEmpty else { return Integrated() }
        if s >= duration { return beyondEnd(s) }
        var lo = 0, hi = knotTimes.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if knotTimes[mid] <= s { lo = mid } else { hi = mid - 1 }
        }
        return knotValues[lo] + quadrature(knotTimes[lo], s)
    }

    /// After the script every level is constant: the path is straight, the climb linear and the
    /// phase the closed-form integral of `f·(1 + J·Σ wᵢ sin 2π(νᵢ t + θᵢ))`.
    private func beyondEnd(_ s: Double) -> Integrated {
        let end = knotValues[knotValues.count - 1]
        let last = segments[segments.count - 1]
        let dt = s - duration
        let heading = last.heading(duration - last.start).value
        let (sinH, cosH) = PortableMath.sinCos(heading)
        let f = last.to.cadence
        var wobble = 0.0
        for j in jitter {
            let c0 = PortableMath.sinCos(turns: j.frequency * duration + j.phase).cos
            let c1 = PortableMath.sinCos(turns: j.frequency * s + j.phase).cos
            wobble += j.weight * (c0 - c1) / (PortableMath.twoPi * j.frequency)
        }
        return Integrated(
            x: end.x + last.to.speed * cosH * dt,
            y: end.y + last.to.speed * sinH * dt,
            z: end.z + last.to.climb * dt,
            phase: end.phase + f * dt + f * last.to.jitter * wobble
        )
    }

    // MARK: Steps

    /// The gait phase (cycles) at script time `s`.
    func phase(script s: Double) -> Double { integrated(at: s).phase }

    /// Whether the carrier is stepping at script time `s`.
    func isStepping(script s: Double) -> Bool {
        let seg = segments[segmentIndex(s)]
        let w = Smoothstep.jet(s - seg.start, length: seg.transition)
        return seg.from.stepping + (seg.to.stepping - seg.from.stepping) * w.value >= 0.5
    }

    /// The time in [a, b] where the (non-decreasing) phase reaches `target`.
    private func solvePhase(_ target: Double, _ a: Double, _ b: Double, phase: (Double) -> Double) -> Double {
        var lo = a, hi = b
        for _ in 0..<80 {
            let mid = 0.5 * (lo + hi)
            if phase(mid) < target { lo = mid } else { hi = mid }
            if hi - lo < 1e-10 { break }
        }
        return 0.5 * (lo + hi)
    }

    private func findScriptSteps() -> [Double] {
        var steps: [Double] = []
        for k in 1..<knotTimes.count {
            let pa = knotValues[k - 1].phase, pb = knotValues[k].phase
            guard pb > pa else { continue }
            var n = pa.rounded(.down) + 1
            while n <= pb {
                let t = solvePhase(n, knotTimes[k - 1], knotTimes[k]) { self.phase(script: $0) }
                if isStepping(script: t) { steps.append(t) }
                n += 1
            }
        }
        return steps
    }

    /// Ground-truth heel strikes in the scene-time interval `range`, seconds.
    public func stepTimes(in range: ClosedRange<Double>) -> [Double] {
        let lo = max(range.lowerBound, 0), hi = range.upperBound
        guard hi >= lo else { return [] }
        var out: [Double] = []
        if ending == .loop {
            var base = (lo / duration).rounded(.down) * duration
            while base <= hi {
                for t in scriptStepTimes where base + t >= lo && base + t <= hi { out.append(base + t) }
                base += duration
            }
            return out
        }
        out = scriptStepTimes.filter { $0 >= lo && $0 <= hi }
        // Beyond the script (hold or stop): the last segment goes on.
        if hi > duration, isStepping(script: duration), segments[segments.count - 1].to.cadence > 0 {
            let from = max(lo, duration)
            var n = phase(script: from).rounded(.up)
            if n == phase(script: from) && from == duration { n += 1 }
            let f = segments[segments.count - 1].to.cadence
            let slack = 2.0 / f
            while true {
                // The phase advances at f·(1 ± jitter); bracket the crossing generously.
                let guess = duration + (n - phase(script: duration)) / f
                let a = max(from, guess - slack), b = guess + slack
                guard a <= hi else { break }
                let t = solvePhase(n, a, b) { self.phase(script: $0) }
                if t > hi { break }
                if t >= from { out.append(t) }
                n += 1
            }
        }
        return out
    }

    /// Number of heel strikes from the start up to scene time `t` (O(log n)).
    public func stepCount(upTo t: Double) -> Int {
        guard t > 0 else { return 0 }
        func countUpTo(_ s: Double) -> Int {
            var lo = 0, hi = scriptStepTimes.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if scriptStepTimes[mid] <= s { lo = mid + 1 } else { hi = mid }
            }
            return lo
        }
        if ending == .loop && t >= duration {
            let loops = (t / duration).rounded(.down)
            return Int(loops) * scriptStepTimes.count + countUpTo(t - loops * duration)
        }
        if t <= duration { return countUpTo(t) }
        var count = scriptStepTimes.count
        if isStepping(script: duration), segments[segments.count - 1].to.cadence > 0 {
            count += Int(phase(script: t).rounded(.down)) - Int(phase(script: duration).rounded(.down))
        }
        return count
    }

    // MARK: Loop check

    private func checkLoop() throws {
        // The state just before the end and at the start, evaluated at the same scene time so that
        // free-running vibrations cancel out.
        let first = evaluate(script: 0, time: duration)
        let last = evaluate(script: duration, time: duration)
        let attitudeError = first.attitude.angle(to: last.attitude)
        let problems: [(String, Double)] = [
            ("attitude (rad)", attitudeError),
            ("angular velocity (rad/s)", (first.angularVelocity - last.angularVelocity).norm),
            ("altitude (m)", abs(first.position.z - last.position.z)),
            ("velocity (m/s)", (first.velocity - last.velocity).norm),
            ("acceleration (m/s²)", (first.acceleration - last.acceleration).norm),
        ]
        for (what, error) in problems where error > 1e-6 || error.isNaN {
            throw SceneError.invalid(
                path: nil, line: nil, column: nil, field: "ending",
                message: "a looping scene must end as it starts, but its \(what) differs by \(error) "
                    + "between the end and the start; end the script at rest in the starting pose and altitude, "
                    + "or use \"hold\" or \"stop\""
            )
        }
    }
}
