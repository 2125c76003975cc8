import MotionSamples

/// The blended quantities of a segment ("levels"): they change from the previous segment's values
/// to this segment's over the transition.
struct LevelSet: Sendable {
    /// Carrier speed along its heading, m/s.
    var speed = 0.0
    /// Carrier climb rate, m/s.
    var climb = 0.0
    /// Gait cycles (steps, pedal revolutions, shakes) per second.
    var cadence = 0.0
    /// 1 while taking steps, 0 otherwise.
    var stepping = 0.0
    /// Relative cadence fluctuation.
    var jitter = 0.0
    /// Device position in the carrier frame, m.
    var offset = Vector3.zero
    /// (cos, sin) coefficient pairs of the scene's oscillation terms.
    var coefficients: [Double] = []
}

/// Levels evaluated at one time, as jets.
struct Levels {
    var stepping: Jet
    var offset: JetVector
}

/// How a quantity moves from 0 to 1 inside a segment.
enum MoveProfile: Sendable {
    /// A quintic smoothstep over `length` seconds.
    case smooth(length: Double)
    /// Rate rising smoothly over `ramp`, constant, then falling over `ramp`; `length ≥ 2·ramp`.
    case trapezoid(length: Double, ramp: Double)

    /// The fraction done at `tau` seconds into the segment, as a jet.
    func fraction(_ tau: Double) -> Jet {
        switch self {
        case .smooth(let length):
            return Smoothstep.jet(tau, length: length)
        case .trapezoid(let length, let ramp):
            if tau <= 0 { return .zero }
            if tau >= length { return .one }
            let rate = 1 / (length - ramp)          // peak rate, fraction per second
            if tau < ramp {
                let u = tau / ramp
                return Jet(rate * ramp * Smoothstep.integral(u), rate * Smoothstep.value(u), rate * Smoothstep.slope(u) / ramp)
            }
            if tau > length - ramp {
                let v = (length - tau) / ramp
                return Jet(1 - rate * ramp * Smoothstep.integral(v), rate * Smoothstep.value(v), -rate * Smoothstep.slope(v) / ramp)
            }
            return Jet(rate * (ramp / 2 + tau - ramp), rate, 0)
        }
    }
}

/// A cubic Hermite path through keyframes: rotations in the exponential coordinates of each
/// interval, positions in the carrier frame. Angular velocity and velocity are continuous at the
/// keys (zero at the first and last).
struct KeyframeSpline: Sendable {
    var times: [Double]            // t₀ = 0 … tₙ
    var postures: [Quaternion]     // P₀ … Pₙ
    var deltas: [Vector3]          // Δₖ = log(Pₖ* ⊗ Pₖ₊₁)
    var startRates: [Vector3]      // ρ̇ at the start of interval k (= ωₖ)
    var endRates: [Vector3]        // ρ̇ at the end of interval k (= J_r(Δₖ)⁻¹ ωₖ₊₁)
    var displacements: [Vector3]   // D₀ = 0 … Dₙ
    var velocities: [Vector3]

    init(start: Quaternion, keys: [Keyframe]) {
        let times = [0] + keys.map(\.timeSeconds)
        let postures = [start] + keys.map(\.pose.quaternion)
        let displacements = [.zero] + keys.map(\.displacement)
        let n = times.count - 1
        let deltas = (0..<n).map { PortableRotation.log(postures[$0].conjugate * postures[$0 + 1]) }
        var omega = [Vector3](repeating: .zero, count: n + 1)
        var velocities = [Vector3](repeating: .zero, count: n + 1)
        if n >= 2 {
            for k in 1..<n {
                let span = times[k + 1] - times[k - 1]
                omega[k] = (deltas[k - 1] + deltas[k]) / span
                velocities[k] = (displacements[k + 1] - displacements[k - 1]) / span
            }
        }
        self.times = times
        self.postures = postures
        self.displacements = displacements
        self.deltas = deltas
        self.velocities = velocities
        startRates = (0..<n).map { omega[$0] }
        endRates = (0..<n).map { k in
            guard let inverse = PortableRotation.rightJacobian(deltas[k]).inverse else { return omega[k + 1] }
            return inverse * omega[k + 1]
        }
    }

    var end: (posture: Quaternion, displacement: Vector3) { (postures.last!, displacements.last!) }

    /// Posture and displacement (from the segment's start) at `tau`.
    func evaluate(_ tau: Double) -> (JetQuaternion, JetVector) {
        let n = times.count - 1
        if tau <= 0 { return (JetQuaternion(constant: postures[0]), .zero) }
        if tau >= times[n] { return (JetQuaternion(constant: postures[n]), JetVector(constant: displacements[n])) }
        var k = 0
        while k < n - 1 && times[k + 1] <= tau { k += 1 }
        let h = times[k + 1] - times[k]
        let u = Jet((tau - times[k]) / h, 1 / h, 0)
        let u2 = u * u, u3 = u2 * u
        let h00 = 2.0 * u3 - 3.0 * u2 + 1.0
        let h10 = u3 - 2.0 * u2 + u
        let h01 = -2.0 * u3 + 3.0 * u2
        let h11 = u3 - u2
        func combine(_ c10: Vector3, _ c01: Vector3, _ c11: Vector3, _ c00: Vector3) -> JetVector {
            JetVector(
                h00 * c00.x + h10 * c10.x + h01 * c01.x + h11 * c11.x,
                h00 * c00.y + h10 * c10.y + h01 * c01.y + h11 * c11.y,
                h00 * c00.z + h10 * c10.z + h01 * c01.z + h11 * c11.z
            )
        }
        let rho = combine(startRates[k] * h, deltas[k], endRates[k] * h, .zero)
        let posture = JetQuaternion(constant: postures[k]) * JetQuaternion(rotationVector: rho)
        let displacement = combine(velocities[k] * h, displacements[k + 1], velocities[k + 1] * h, displacements[k])
        return (posture, displacement)
    }
}

/// How the pose changes inside a segment.
enum PostureMove: Sendable {
    case none
    /// `P₀ ⊗ R(axis, angle·f(τ))`: about a device axis.
    case body(axis: Vector3, angle: Double, profile: MoveProfile)
    /// `R(axis, angle·f(τ)) ⊗ P₀`: about a carrier axis.
    case carrier(axis: Vector3, angle: Double, profile: MoveProfile)
    case keyframes(KeyframeSpline)
}

/// A heading change inside a segment (radians, seconds from the segment's start).
struct CompiledTurn: Sendable {
    var at: Double
    var angle: Double
    var length: Double
}

/// One segment ready for evaluation.
struct CompiledSegment: Sendable {
    var start: Double
    var duration: Double
    var transition: Double
    var from: LevelSet
    var to: LevelSet
    var activeTerms: [Int] = []
    var headingStart: Double
    var turns: [CompiledTurn]
    var liftStart: Double
    var lift: Double
    var postureStart: Quaternion
    var postureMove: PostureMove
    var displacementStart: Vector3

    func levels(_ w: Jet) -> Levels {
        Levels(
            stepping: Jet(from.stepping) + (to.stepping - from.stepping) * w,
            offset: JetVector(
                Jet(from.offset.x) + (to.offset.x - from.offset.x) * w,
                Jet(from.offset.y) + (to.offset.y - from.offset.y) * w,
                Jet(from.offset.z) + (to.offset.z - from.offset.z) * w
            )
        )
    }

    /// Carrier heading, radians.
    func heading(_ tau: Double) -> Jet {
        var h = Jet(headingStart)
        for turn in turns { h += Smoothstep.jet(tau, start: turn.at, length: turn.length) * turn.angle }
        return h
    }

    /// Height of the floor raised by a lift, metres (relative to the scene's start).
    func lift(_ tau: Double) -> Jet {
        Jet(liftStart) + Smoothstep.jet(tau, length: duration) * lift
    }

    func posture(_ tau: Double) -> JetQuaternion {
        switch postureMove {
        case .none:
            return JetQuaternion(constant: postureStart)
        case .body(let axis, let angle, let profile):
            return JetQuaternion(constant: postureStart) * JetQuaternion(unitAxis: axis, angle: profile.fraction(tau) * angle)
        case .carrier(let axis, let angle, let profile):
            return JetQuaternion(unitAxis: axis, angle: profile.fraction(tau) * angle) * JetQuaternion(constant: postureStart)
        case .keyframes(let spline):
            return spline.evaluate(tau).0
        }
    }

    func displacement(_ tau: Double) -> JetVector {
        var d = JetVector(constant: displacementStart)
        if case .keyframes(let spline) = postureMove { d += spline.evaluate(tau).1 }
        return d
    }

    /// State carried into the next segment.
    var endPosture: Quaternion {
        switch postureMove {
        case .none: postureStart
        case .body(let axis, let angle, _): postureStart * PortableRotation.quaternion(axis: axis, angle: angle)
        case .carrier(let axis, let angle, _): PortableRotation.quaternion(axis: axis, angle: angle) * postureStart
        case .keyframes(let spline): spline.end.posture
        }
    }

    var endDisplacement: Vector3 {
        if case .keyframes(let spline) = postureMove { return displacementStart + spline.end.displacement }
        return displacementStart
    }

    var endHeading: Double { headingStart + turns.reduce(0) { $0 + $1.angle } }
    var endLift: Double { liftStart + lift }
}

/// Rotation helpers computed with ``PortableMath`` (bit-identical everywhere).
enum PortableRotation {
    /// Rotation by `angle` radians about the unit `axis`.
    static func quaternion(axis: Vector3, angle: Double) -> Quaternion {
        let (s, c) = PortableMath.sinCos(angle / 2)
        return Quaternion(w: c, x: axis.x * s, y: axis.y * s, z: axis.z * s)
    }

    /// The rotation vector (axis × angle, angle in [0, π]) of a unit quaternion.
    static func log(_ q: Quaternion) -> Vector3 {
        let c = q.canonical
        let v = Vector3(c.x, c.y, c.z)
        let s = v.norm
        if s < 1e-300 { return .zero }
        let angle = 2 * PortableMath.atan2(s, c.w)
        return v * (angle / s)
    }

    /// Axis and angle (radians, in [0, π]) of a unit quaternion; the x axis for the identity.
    static func axisAngle(_ q: Quaternion) -> (axis: Vector3, angle: Double) {
        let r = log(q)
        let angle = r.norm
        return angle > 0 ? (r / angle, angle) : (.unitX, 0)
    }

    /// The right Jacobian of SO(3)'s exponential map: `ω_body = J_r(ρ)·ρ̇` for `R = Exp(ρ)`;
    /// `J_r = I − (1 − cos θ)/θ²·[ρ]× + (θ − sin θ)/θ³·[ρ]×²`.
    static func rightJacobian(_ rho: Vector3) -> Matrix3 {
        let theta = rho.norm
        let k = Matrix3(0, -rho.z, rho.y, rho.z, 0, -rho.x, -rho.y, rho.x, 0)
        let a: Double, b: Double
        if theta < 1e-4 {
            a = 0.5 - theta * theta / 24
            b = 1.0 / 6 - theta * theta / 120
        } else {
            let (s, c) = PortableMath.sinCos(theta)
            a = (1 - c) / (theta * theta)
            b = (theta - s) / (theta * theta * theta)
        }
        return Matrix3.identity - k * a + (k * k) * b
    }
}
