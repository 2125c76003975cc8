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
    public let scene: Scene
    public let seed: UInt64
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

    /// The first `duration` seconds as a ``Recording``, with the ground truth filled in as
    /// reference data (`truthAttitude` in ENU as the type documents, gravity, user acceleration,
    /// bias-free rotation rate, step times and total, relative altitude), so the simulator can feed
    /// the same evaluations as real recordings.
    public func recording(duration: Double, truthInterval: Double = 0.01) -> Recording {
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
        var reference = ReferenceData()
        // NWU → ENU: a quarter turn about up (north ↦ +y, west ↦ −x).
        let nwuToEnu = Quaternion(w: (0.5).squareRoot(), x: 0, y: 0, z: (0.5).squareRoot())
        let count = Int((duration / truthInterval).rounded(.down))
        for i in 0...max(count, 0) {
            let t = Double(i) * truthInterval
            let truth = self.truth(at: t)
            reference.truthAttitude.append(TimedQuaternion(time: t, value: nwuToEnu * truth.attitude))
            reference.truthScored.append(true)
            reference.gravity.append(TimedVector(time: t, value: truth.gravity))
            reference.userAcceleration.append(TimedVector(time: t, value: truth.userAcceleration))
            reference.rotationRate.append(TimedVector(time: t, value: truth.rotationRate))
            reference.relativeAltitude.append(TimedScalar(time: t, value: truth.relativeAltitude))
        }
        let steps = stepTimes(in: 0...duration)
        reference.stepTimes = steps
        reference.stepTotal = steps.count
        reference.cumulativeSteps = steps.enumerated().map { TimedScalar(time: $0.element, value: Double($0.offset + 1)) }
        let metadata = RecordingMetadata(
            format: "simulator", source: "sim:\(scene.name)", deviceName: "simulated phone",
            licence: "generated", properties: ["scene": scene.name, "seed": String(seed), "summary": scene.summary]
        )
        return Recording(
            metadata: metadata, accelerometer: acc, gyroscope: gyr, magnetometer: mag, barometer: bar,
            reference: reference
        )
    }
}
