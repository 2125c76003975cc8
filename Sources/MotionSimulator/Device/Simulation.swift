import Foundation
import MotionSamples

/// What a perfect device and a perfect sensor-fusion would report at one instant: the ground
/// truth other layers (fusion, pedometer, altimeter) are tested against.
public struct GroundTruth: Sendable, Hashable {
    /// Scene time, seconds.
    public var time: Double
    /// Device → world (x magnetic north, y west, z up): Apple's attitude in
    /// `xMagneticNorthZVertical`.
    public var attitude: Quaternion
    /// Device → world with x pointing to true north (`xTrueNorthZVertical`).
    public var trueNorthAttitude: Quaternion
    /// Angular velocity of the device relative to the ground, device axes, rad/s (Apple's
    /// bias-free `rotationRate`; without Earth's rotation).
    public var rotationRate: Vector3
    /// The direction and size of gravity in device axes, g (Apple's `CMDeviceMotion.gravity`;
    /// (0, 0, −1) face-up).
    public var gravity: Vector3
    /// Apple's `userAcceleration`: the raw accelerometer minus `gravity`, g. Note the sign: it is
    /// minus the device's kinematic acceleration (see ``linearAcceleration``) divided by 9.80665.
    public var userAcceleration: Vector3
    /// The device's kinematic acceleration (second derivative of its position) in device axes, m/s².
    public var linearAcceleration: Vector3
    /// Earth's magnetic field in device axes, µT (no hard or soft iron).
    public var magneticField: Vector3
    /// Position, metres (x north, y west, z altitude above sea level).
    public var position: Vector3
    /// Velocity, m/s, world frame.
    public var velocity: Vector3
    /// Altitude above sea level, metres.
    public var altitude: Double
    /// Altitude relative to the device's altitude at time 0, metres (Apple's `relativeAltitude`).
    public var relativeAltitude: Double
    /// Altitude of the floor under the carrier, metres above sea level (without the device's
    /// height on the carrier and its bounce): what a floor-counting altimeter should recover.
    public var floorAltitude: Double
    /// Static pressure at the device, kPa.
    public var pressure: Double
    /// Heel strikes since the start.
    public var stepCount: Int
    /// Whether the carrier is stepping now.
    public var isStepping: Bool
}

/// A scene set in motion with a seed: its ground truth at any time and its sensor samples.
///
/// Everything is a pure function of the scene and the seed: two simulations of the same scene and
/// seed produce bit-identical samples on every machine (the simulator uses its own elementary
/// functions, ``PortableMath``, and its own generators, ``Xoshiro256StarStar``).
public struct Simulation: Sendable {
    /// The scene simulated.
    public let scene: Scene
    /// The seed of the noise and of the scene's random phases.
    public let seed: UInt64
    /// The compiled motion.
    public let script: MotionScript
    private let startAltitude: Double

    /// Validates and compiles `scene`; throws ``SceneError`` naming the bad field.
    public init(scene: Scene, seed: UInt64 = 0) throws {
        self.scene = scene
        self.seed = seed
        script = try MotionScript(scene: scene, seed: seed)
        startAltitude = script.state(at: 0).position.z
    }

    /// Seconds the scene's samples last: the script's duration for `stop`, `nil` (endless) for
    /// `hold` and `loop`.
    public var sampleDuration: Double? { scene.ending == .stop ? script.duration : nil }

    /// The true kinematic state at scene time `t`.
    public func state(at t: Double) -> KinematicState { script.state(at: t) }

    /// The ideal (error-free) reading of `sensor` for `state`: acceleration in g, rotation rate in
    /// rad/s, field in µT, or (pressure kPa, temperature °C, 0) for the barometer.
    public func idealReading(_ sensor: SensorKind, _ state: KinematicState) -> Vector3 {
        let env = scene.environment
        switch sensor {
        case .accelerometer:
            // Apple's sign: (g_world − a_world) in device axes, in units of standard gravity.
            let specific = Vector3(0, 0, -env.gravity) - state.acceleration
            return state.attitude.inverseRotate(specific) / standardGravity
        case .gyroscope:
            return state.angularVelocity + state.attitude.inverseRotate(env.earthRotation)
        case .magnetometer:
            return state.attitude.inverseRotate(env.magneticField.worldVector)
        case .barometer:
            return Vector3(env.atmosphere.pressure(altitude: state.position.z), env.atmosphere.sensorTemperatureCelsius, 0)
        }
    }

    /// The ideal reading of `sensor` at scene time `t`.
    public func idealReading(_ sensor: SensorKind, at t: Double) -> Vector3 { idealReading(sensor, state(at: t)) }

    /// The ground truth at scene time `t`.
    public func truth(at t: Double) -> GroundTruth {
        let s = state(at: t)
        let env = scene.environment
        let gravity = s.attitude.inverseRotate(Vector3(0, 0, -env.gravity / standardGravity))
        let linear = s.attitude.inverseRotate(s.acceleration)
        return GroundTruth(
            time: s.time,
            attitude: s.attitude,
            trueNorthAttitude: env.magneticField.magneticToTrueNorth * s.attitude,
            rotationRate: s.angularVelocity,
            gravity: gravity,
            userAcceleration: linear * (-1 / standardGravity),
            linearAcceleration: linear,
            magneticField: s.attitude.inverseRotate(env.magneticField.worldVector),
            position: s.position,
            velocity: s.velocity,
            altitude: s.position.z,
            relativeAltitude: s.position.z - startAltitude,
            floorAltitude: s.floorAltitude,
            pressure: env.atmosphere.pressure(altitude: s.position.z),
            stepCount: script.stepCount(upTo: s.time),
            isStepping: s.isStepping
        )
    }

    /// Ground-truth heel strikes in a scene-time interval, seconds.
    public func stepTimes(in range: ClosedRange<Double>) -> [Double] { script.stepTimes(in: range) }

    /// The constant bias of `sensor` as configured (the random walk adds to it; its value at each
    /// sample is in ``SimulatedSample/bias``).
    public func constantBias(of sensor: SensorKind) -> Vector3? { scene.sensors[sensor]?.errors.bias }

    /// What the source offers for each sensor of the scene.
    public var sensorDescriptions: [SensorKind: SensorDescription] {
        var out: [SensorKind: SensorDescription] = [:]
        for kind in SensorKind.allCases {
            guard let sensor = scene.sensors[kind] else { continue }
            out[kind] = SensorDescription(
                kind: kind, name: "sim:\(scene.name)", minimumRate: sensor.rate, maximumRate: sensor.rate
            )
        }
        return out
    }

    /// A fresh source of the scene's samples, from time 0.
    public func makeSource() -> SimulatedSource { SimulatedSource(simulation: self) }

    /// The first `duration` seconds as a ``Recording``, with the ground-truth attitude and steps as
    /// reference data (see ``referenceData(duration:truthInterval:)``), so the simulator can feed
    /// the same evaluations as real recordings. `truthInterval` (seconds, default 0.01; values that
    /// are not positive and finite use the default) spaces the truth entries.
    public func recording(duration: Double, truthInterval: Double = 0.01) -> Recording {
        let duration = duration.isFinite ? max(duration, 0) : 0
        var source = makeSource()
        var acc: [TimedVector] = [], gyr: [TimedVector] = [], mag: [TimedVector] = [], bar: [PressureReading] = []
        while let sample = source.next() {
            if sample.time > duration { break }
            switch sample {
            case .accelerometer(let v): acc.append(v)
            case .gyroscope(let v): gyr.append(v)
            case .magnetometer(let v): mag.append(v)
            case .barometer(let p): bar.append(p)
            }
        }
        return Recording(
            metadata: recordingMetadata, accelerometer: acc, gyroscope: gyr, magnetometer: mag, barometer: bar,
            reference: referenceData(duration: duration, truthInterval: truthInterval)
        )
    }

    /// Metadata for a recording of this simulation: format `simulator`, source `sim:NAME`, the
    /// scene, seed and summary as properties.
    public var recordingMetadata: RecordingMetadata {
        RecordingMetadata(
            format: "simulator", source: "sim:\(scene.name)", deviceName: "simulated phone",
            licence: "generated", properties: ["scene": scene.name, "seed": String(seed), "summary": scene.summary]
        )
    }

    /// The ground truth of the first `duration` seconds as a recording's reference data, in the
    /// fields meant for ground truth: `truthAttitude` (device → ENU, magnetic north, as the type
    /// documents; every entry scored) every `truthInterval` seconds, `stepTimes` and `stepTotal`.
    /// Apple's fields (gravity, user acceleration, pedometer, altimeter…) stay empty: a simulated
    /// recording has no Apple outputs, and tools compare with them as such. The rest of the truth
    /// (gravity, user acceleration, altitude) is in ``truth(at:)``.
    public func referenceData(duration: Double, truthInterval: Double = 0.01) -> ReferenceData {
        let truthInterval = truthInterval > 0 && truthInterval.isFinite ? truthInterval : 0.01
        let duration = duration.isFinite ? max(duration, 0) : 0
        var reference = ReferenceData()
        // NWU → ENU: a quarter turn about up (north ↦ +y, west ↦ −x).
        let nwuToEnu = Quaternion(w: (0.5).squareRoot(), x: 0, y: 0, z: (0.5).squareRoot())
        let count = Int((duration / truthInterval).rounded(.down))
        for i in 0...count {
            let t = Double(i) * truthInterval
            reference.truthAttitude.append(TimedQuaternion(time: t, value: nwuToEnu * state(at: t).attitude))
            reference.truthScored.append(true)
        }
        let steps = stepTimes(in: 0...duration)
        reference.stepTimes = steps
        reference.stepTotal = steps.count
        return reference
    }
}
