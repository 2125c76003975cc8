import MotionSamples

extension Scene {
    /// The longest script a scene may have, seconds (a day); `hold` and `loop` run for ever.
    public static let maximumScriptDuration = 86_400.0

    /// Checks every field against its physical range; throws ``SceneError/invalid(path:line:column:field:message:)``
    /// naming the first bad field (`segments[2].duration`).
    public func validate() throws {
        var v = Validator()
        v.check(!segments.isEmpty, "segments", "a scene needs at least one segment")
        v.finite(start.headingDegrees, "start.heading")
        v.within(start.altitudeMetres, -500...11_000, "start.altitude", "metres above sea level")
        if let pose = start.pose { v.pose(pose, "start.pose") }
        var total = 0.0
        for (i, segment) in segments.enumerated() {
            v.segment(segment, "segments[\(i)]")
            if segment.duration.isFinite { total += segment.duration }
        }
        v.check(total <= Scene.maximumScriptDuration, "segments",
                "the script lasts \(total) s; at most \(Scene.maximumScriptDuration) s (use ending \"hold\" or \"loop\" to run longer)")
        v.environment(environment, "environment")
        for kind in SensorKind.allCases {
            if let sensor = sensors[kind] { v.sensor(sensor, kind, "sensors.\(kind.rawValue)") }
        }
        if let error = v.firstError { throw error }
    }
}

/// Collects the first invalid field.
struct Validator {
    var firstError: SceneError?

    mutating func fail(_ field: String, _ message: String) {
        if firstError == nil { firstError = .invalid(path: nil, line: nil, column: nil, field: field, message: message) }
    }

    mutating func check(_ condition: Bool, _ field: String, _ message: String) {
        if !condition { fail(field, message) }
    }

    private static func show(_ x: Double) -> String { x.isNaN ? "NaN" : "\(x)" }

    mutating func finite(_ x: Double, _ field: String) {
        check(x.isFinite, field, "must be a finite number, found \(Validator.show(x))")
    }

    mutating func positive(_ x: Double, _ field: String, _ unit: String = "") {
        finite(x, field)
        if x.isFinite { check(x > 0, field, "must be positive\(unit.isEmpty ? "" : " (\(unit))"), found \(Validator.show(x))") }
    }

    mutating func nonNegative(_ x: Double, _ field: String) {
        finite(x, field)
        if x.isFinite { check(x >= 0, field, "must not be negative, found \(Validator.show(x))") }
    }

    mutating func within(_ x: Double, _ range: ClosedRange<Double>, _ field: String, _ unit: String = "") {
        finite(x, field)
        if x.isFinite {
            check(range.contains(x), field,
                  "must be within \(range.lowerBound)…\(range.upperBound)\(unit.isEmpty ? "" : " \(unit)"), found \(x)")
        }
    }

    mutating func vector(_ v: Vector3, _ field: String) {
        finite(v.x, field + "[0]")
        finite(v.y, field + "[1]")
        finite(v.z, field + "[2]")
    }

    mutating func pose(_ p: Pose, _ field: String) {
        finite(p.rollDegrees, field + ".roll")
        finite(p.pitchDegrees, field + ".pitch")
        finite(p.yawDegrees, field + ".yaw")
    }

    mutating func duration(_ d: Double, _ field: String) {
        positive(d, field, "seconds")
    }

    mutating func transition(_ t: Double?, _ field: String) {
        if let t { positive(t, field, "seconds") }
    }

    mutating func turns(_ turns: [Turn], segmentDuration: Double, _ field: String) {
        for (j, turn) in turns.enumerated() {
            let f = "\(field)[\(j)]"
            nonNegative(turn.atSeconds, f + ".at")
            finite(turn.angleDegrees, f + ".angle")
            positive(turn.durationSeconds, f + ".duration", "seconds")
            if turn.atSeconds.isFinite, turn.durationSeconds.isFinite, segmentDuration.isFinite {
                check(turn.atSeconds + turn.durationSeconds <= segmentDuration * (1 + 1e-12), f,
                      "the turn ends at \(turn.atSeconds + turn.durationSeconds) s, after its segment (\(segmentDuration) s)")
            }
        }
    }

    mutating func segment(_ segment: Segment, _ field: String) {
        switch segment {
        case .hold(let s):
            duration(s.duration, field + ".duration")
            if let p = s.pose { pose(p, field + ".pose") }
            transition(s.transitionSeconds, field + ".transition")
        case .rotate(let s):
            vector(s.axis, field + ".axis")
            check(s.axis.norm > 0, field + ".axis", "must not be the zero vector")
            finite(s.angleDegrees, field + ".angle")
            positive(s.peakRateDegreesPerSecond, field + ".rate", "degrees per second")
            positive(s.rampSeconds, field + ".ramp", "seconds; a rotation cannot start instantly")
        case .orient(let s):
            pose(s.pose, field + ".pose")
            duration(s.duration, field + ".duration")
        case .keyframes(let s):
            check(!s.keys.isEmpty, field + ".keys", "needs at least one key")
            var last = 0.0
            for (j, key) in s.keys.enumerated() {
                let f = "\(field).keys[\(j)]"
                positive(key.timeSeconds, f + ".time", "seconds from the segment's start")
                if key.timeSeconds.isFinite {
                    check(key.timeSeconds > last, f + ".time", "key times must increase (found \(key.timeSeconds) after \(last))")
                    last = key.timeSeconds
                }
                pose(key.pose, f + ".pose")
                vector(key.displacement, f + ".displacement")
            }
        case .walk(let g), .run(let g):
            duration(g.duration, field + ".duration")
            check(g.carry == .hand || g.carry == .pocket, field + ".carry",
                  "must be \"hand\" or \"pocket\" on foot, found \"\(g.carry.rawValue)\"")
            within(g.cadence, 0.2...5, field + ".cadence", "steps per second")
            within(g.speed, 0...12, field + ".speed", "m/s")
            if let p = g.pose { pose(p, field + ".pose") }
            turns(g.turns, segmentDuration: g.duration, field + ".turns")
            transition(g.transitionSeconds, field + ".transition")
        case .stairs(let s):
            check(s.steps >= 1, field + ".steps", "must be at least 1, found \(s.steps)")
            check(s.carry == .hand || s.carry == .pocket, field + ".carry",
                  "must be \"hand\" or \"pocket\" on foot, found \"\(s.carry.rawValue)\"")
            within(s.riserMetres, 0.05...0.3, field + ".riser", "m")
            within(s.treadMetres, 0...0.6, field + ".tread", "m")
            within(s.cadence, 0.2...4, field + ".cadence", "steps per second")
            if let p = s.pose { pose(p, field + ".pose") }
            transition(s.transitionSeconds, field + ".transition")
        case .cycle(let c):
            duration(c.duration, field + ".duration")
            within(c.cadenceRPM, 10...200, field + ".cadence", "revolutions per minute")
            within(c.speed, 0...25, field + ".speed", "m/s")
            check(c.carry == .pocket || c.carry == .handlebar, field + ".carry",
                  "must be \"pocket\" or \"handlebar\" for cycling, found \"\(c.carry.rawValue)\"")
            nonNegative(c.roughness, field + ".roughness")
            turns(c.turns, segmentDuration: c.duration, field + ".turns")
            transition(c.transitionSeconds, field + ".transition")
        case .drive(let d):
            duration(d.duration, field + ".duration")
            within(d.speed, 0...70, field + ".speed", "m/s")
            positive(d.acceleration, field + ".acceleration", "m/s²")
            check(d.carry != .handlebar, field + ".carry", "a car has no handlebar; use \"mount\", \"table\", \"hand\" or \"pocket\"")
            nonNegative(d.roughness, field + ".roughness")
            if let p = d.pose { pose(p, field + ".pose") }
            turns(d.turns, segmentDuration: d.duration, field + ".turns")
        case .shake(let s):
            duration(s.duration, field + ".duration")
            within(s.frequency, 0.2...20, field + ".frequency", "Hz")
            within(s.amplitudeMetres, 0...0.5, field + ".amplitude", "m")
            within(s.rotationDegrees, -90...90, field + ".rotation", "degrees")
            transition(s.transitionSeconds, field + ".transition")
        case .elevator(let e):
            within(e.heightMetres, -1000...1000, field + ".height", "m")
            duration(e.duration, field + ".duration")
        }
    }

    mutating func environment(_ e: Environment, _ field: String) {
        within(e.magneticField.intensityMicrotesla, 0.1...1000, field + ".magneticField.intensity", "µT")
        within(e.magneticField.inclinationDegrees, -90...90, field + ".magneticField.inclination", "degrees")
        within(e.magneticField.declinationDegrees, -180...180, field + ".magneticField.declination", "degrees")
        within(e.atmosphere.seaLevelPressureKilopascals, 50...120, field + ".seaLevelPressure", "kPa")
        within(e.atmosphere.sensorTemperatureCelsius, -60...100, field + ".temperature", "°C")
        within(e.gravity, 9.7...9.9, field + ".gravity", "m/s² (Earth)")
        if let lat = e.latitudeDegrees { within(lat, -90...90, field + ".latitude", "degrees") }
    }

    mutating func sensor(_ s: SimulatedSensor, _ kind: SensorKind, _ field: String) {
        within(s.rate, 0.01...2000, field + ".rate", "Hz")
        if s.rate.isFinite && s.rate > 0 {
            check(s.startOffset >= 0 && s.startOffset < 1 / s.rate, field + ".startOffset",
                  "must be in [0, 1/rate) = [0, \(1 / s.rate)) s, found \(s.startOffset)")
        }
        let e = s.errors
        nonNegative(e.noiseDensity, field + ".noiseDensity")
        vector(e.bias, field + ".bias")
        nonNegative(e.biasRandomWalk, field + ".biasRandomWalk")
        let t = e.transform
        check(t.isFinite, field + ".transform", "must contain finite numbers")
        if t.isFinite {
            check(t.determinant > 0, field + ".transform", "must be invertible and keep the axes' handedness (determinant \(t.determinant))")
        }
        if let r = e.resolution { positive(r, field + ".resolution", kind.unit) }
        if let r = e.range { positive(r, field + ".range", kind.unit) }
    }
}
