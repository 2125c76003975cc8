import MotionSamples

/// Turns a scene's segments into ``CompiledSegment``s: the state each segment starts from, its
/// target levels and motion pattern, its moves, and the oscillation terms of the whole scene.
struct ScriptBuilder {
    let scene: Scene
    let seed: UInt64

    private(set) var segments: [CompiledSegment] = []
    private(set) var breakpoints: [Double] = []
    private(set) var terms: [OscillationKey] = []
    private(set) var jitter: [(frequency: Double, weight: Double, phase: Double)] = []
    private(set) var time = 0.0

    /// The stream of the seed used for motion (vibration phases, cadence fluctuation).
    static let motionStream: UInt64 = 0x4D4F_5449_4F4E  // "MOTION"

    init(scene: Scene, seed: UInt64) {
        self.scene = scene
        self.seed = seed
    }

    /// A segment before its levels are turned into coefficients.
    private struct Draft {
        var segment: CompiledSegment
        var targetPattern: MotionPattern
    }

    /// What a segment does to carry and pose: the carry after it and the pose it moves to (`nil`
    /// keeps the current pose).
    private func target(of segment: Segment, carry: Carry) -> (carry: Carry, pose: Pose?) {
        switch segment {
        case .hold(let s):
            let newCarry = s.carry ?? carry
            if let pose = s.pose { return (newCarry, pose) }
            return (newCarry, newCarry != carry ? newCarry.defaultPose : nil)
        case .walk(let g), .run(let g):
            return (g.carry, g.pose ?? g.carry.defaultPose)
        case .stairs(let s):
            return (s.carry, s.pose ?? s.carry.defaultPose)
        case .cycle(let c):
            return (c.carry, c.carry.defaultPose)
        case .drive(let d):
            return (d.carry, d.pose ?? d.carry.defaultPose)
        case .shake:
            return (.hand, carry == .hand ? nil : Carry.hand.defaultPose)
        case .rotate, .orient, .keyframes, .elevator:
            return (carry, nil)
        }
    }

    /// The levels (without coefficients) and pattern a segment moves to.
    private func levels(of segment: Segment, carry: Carry, previousSpeed: Double) -> (LevelSet, MotionPattern, transition: Double) {
        var l = LevelSet()
        l.offset = carry.offset
        var pattern = MotionPattern.none
        var transition = 1.0
        switch segment {
        case .hold(let s):
            pattern = MotionPatterns.hold(carry)
            transition = s.transitionSeconds ?? 1
        case .rotate, .orient, .keyframes:
            break
        case .walk(let g):
            l.speed = g.speed
            l.cadence = g.cadence
            l.stepping = 1
            pattern = MotionPatterns.walk(carry, cadence: g.cadence)
            transition = g.transitionSeconds ?? 1
        case .run(let g):
            l.speed = g.speed
            l.cadence = g.cadence
            l.stepping = 1
            pattern = MotionPatterns.run(carry, cadence: g.cadence)
            transition = g.transitionSeconds ?? 1
        case .stairs(let s):
            l.speed = s.treadMetres * s.cadence
            l.climb = s.heightChange / s.duration
            l.cadence = s.cadence
            l.stepping = 1
            pattern = MotionPatterns.stairs(s.direction, carry, cadence: s.cadence)
            transition = s.transitionSeconds ?? 1
        case .cycle(let c):
            l.speed = c.speed
            l.cadence = c.cadenceRPM / 60
            pattern = MotionPatterns.cycle(carry, roughness: c.roughness)
            transition = c.transitionSeconds ?? 2
        case .drive(let d):
            l.speed = d.speed
            pattern = MotionPatterns.car(roughness: d.roughness, moving: d.speed > 0)
            transition = max(abs(d.speed - previousSpeed) / d.acceleration, 1)
        case .shake(let s):
            l.cadence = s.frequency
            pattern = MotionPatterns.shake(amplitude: s.amplitudeMetres, rotation: PortableMath.radians(s.rotationDegrees))
            transition = s.transitionSeconds ?? 0.5
        case .elevator:
            pattern = MotionPatterns.hold(carry).adding(MotionPatterns.elevatorVibration)
        }
        l.jitter = pattern.cadenceJitter
        return (l, pattern, min(transition, segment.duration))
    }

    mutating func compile() {
        let list = scene.segments
        // Initial state: the start's carry and pose, else the first segment's.
        let firstTarget = target(of: list[0], carry: scene.start.carry ?? .table)
        var carry = scene.start.carry ?? firstTarget.carry
        var posture = (scene.start.pose ?? firstTarget.pose ?? carry.defaultPose).quaternion
        var heading = PortableMath.radians(scene.start.headingDegrees)
        var lift = 0.0
        var displacement = Vector3.zero
        var previous: (LevelSet, MotionPattern)?
        var drafts: [Draft] = []

        for segment in list {
            let start = time
            let (newCarry, pose) = target(of: segment, carry: carry)
            let (toLevels, pattern, transition) = levels(
                of: segment, carry: newCarry, previousSpeed: previous?.0.speed ?? 0
            )
            let fromLevels = previous?.0 ?? toLevels
            var move = PostureMove.none
            var turns: [CompiledTurn] = []
            var liftChange = 0.0

            switch segment {
            case .rotate(let r):
                let axis = r.axis.normalized
                let profile = MoveProfile.trapezoid(length: r.duration, ramp: r.rampSeconds)
                let angle = PortableMath.radians(r.angleDegrees)
                move = r.frame == .device
                    ? .body(axis: axis, angle: angle, profile: profile)
                    : .carrier(axis: axis, angle: angle, profile: profile)
            case .orient(let o):
                move = postureChange(from: posture, to: o.pose.quaternion, over: o.duration)
            case .keyframes(let k):
                move = .keyframes(KeyframeSpline(start: posture, keys: k.keys))
            case .elevator(let e):
                liftChange = e.heightMetres
            default:
                if let pose { move = postureChange(from: posture, to: pose.quaternion, over: transition) }
            }
            switch segment {
            case .walk(let g), .run(let g): turns = compile(g.turns)
            case .cycle(let c): turns = compile(c.turns)
            case .drive(let d): turns = compile(d.turns)
            default: break
            }

            let compiled = CompiledSegment(
                start: start, duration: segment.duration, transition: transition,
                from: fromLevels, to: toLevels,
                headingStart: heading, turns: turns,
                liftStart: lift, lift: liftChange,
                postureStart: posture, postureMove: move,
                displacementStart: displacement
            )
            drafts.append(Draft(segment: compiled, targetPattern: pattern))

            breakpoints.append(start)
            breakpoints.append(start + transition)
            for t in turns {
                breakpoints.append(start + t.at)
                breakpoints.append(start + t.at + t.length)
            }
            time = start + segment.duration
            carry = newCarry
            posture = compiled.endPosture
            heading = compiled.endHeading
            lift = compiled.endLift
            displacement = compiled.endDisplacement
            previous = (toLevels, pattern)
        }
        breakpoints.append(time)
        finish(drafts)
    }

    private func compile(_ turns: [Turn]) -> [CompiledTurn] {
        turns.map { CompiledTurn(at: $0.atSeconds, angle: PortableMath.radians($0.angleDegrees), length: $0.durationSeconds) }
    }

    private func postureChange(from: Quaternion, to: Quaternion, over length: Double) -> PostureMove {
        let (axis, angle) = PortableRotation.axisAngle(from.conjugate * to)
        guard angle > 1e-12 else { return .none }
        return .body(axis: axis, angle: angle, profile: .smooth(length: length))
    }

    /// Collects the oscillation terms, draws their phases and fills every segment's coefficients.
    private mutating func finish(_ drafts: [Draft]) {
        var keys = Set<OscillationKey>()
        for d in drafts { keys.formUnion(d.targetPattern.terms.keys) }
        terms = keys.sorted()
        var random = Xoshiro256StarStar(seed: seed, stream: ScriptBuilder.motionStream)
        // Cadence fluctuation: three slow incommensurate tones, r.m.s. 1 before scaling.
        let weight = (2.0 / 3).squareRoot()
        jitter = [0.11, 0.23, 0.37].map { (frequency: $0, weight: weight, phase: random.nextOpenUnit()) }
        // A phase per free-running term, in the sorted order of the terms.
        var phases: [OscillationKey: (sin: Double, cos: Double)] = [:]
        for key in terms {
            if case .fixed = key.clock { phases[key] = PortableMath.sinCos(turns: random.nextOpenUnit()) }
        }
        func coefficients(_ pattern: MotionPattern) -> [Double] {
            var out = [Double](repeating: 0, count: 2 * terms.count)
            for (k, key) in terms.enumerated() {
                guard let (a, b) = pattern.terms[key] else { continue }
                if let p = phases[key] {
                    out[2 * k] = a * p.cos + b * p.sin
                    out[2 * k + 1] = b * p.cos - a * p.sin
                } else {
                    out[2 * k] = a
                    out[2 * k + 1] = b
                }
            }
            return out
        }
        let targets = drafts.map { coefficients($0.targetPattern) }
        segments = drafts.enumerated().map { i, draft in
            var s = draft.segment
            s.to.coefficients = targets[i]
            s.from.coefficients = i > 0 ? targets[i - 1] : targets[i]
            s.activeTerms = (0..<terms.count).filter { k in
                s.to.coefficients[2 * k] != 0 || s.to.coefficients[2 * k + 1] != 0
                    || s.from.coefficients[2 * k] != 0 || s.from.coefficients[2 * k + 1] != 0
            }
            return s
        }
    }
}
