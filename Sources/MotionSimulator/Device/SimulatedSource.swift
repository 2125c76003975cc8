import MotionSamples

/// A sample with what went into it.
public struct SimulatedSample: Sendable, Hashable {
    /// The sample as a device delivers it (scene time, seconds).
    public var sample: SensorSample
    /// The exact physical value before any sensor error (for the barometer: kPa, °C, 0).
    public var ideal: Vector3
    /// The sensor's bias at this sample: constant bias plus the random walk (barometer: x).
    public var bias: Vector3
}

/// The simulator as a ``SampleSource``: every enabled sensor sampled at its own rate, merged in
/// time order (ties in the order accelerometer, gyroscope, magnetometer, barometer).
///
/// Sample `i` of a sensor is taken at `startOffset + i / rate` seconds of scene time (computed
/// from `i`, not accumulated, so times never drift). A `stop` scene ends after its script; `hold`
/// and `loop` scenes never end. Each sensor draws its white noise and its bias random walk from
/// its own streams of the seed, so changing one sensor's settings never changes another's noise.
public struct SimulatedSource: SampleSource {
    /// The scene's sensors, each at its configured rate.
    public let sensors: [SensorKind: SensorDescription]
    /// The simulation sampled.
    public let simulation: Simulation
    private var channels: [Channel]
    private var cachedTime = Double.nan
    private var cachedState: KinematicState?

    /// The noise streams of a sensor are `base + 2·index` (white noise) and `+ 1` (random walk).
    static let noiseStreamBase: UInt64 = 0x5345_4E53_4F52  // "SENSOR"

    private struct Channel: Sendable {
        let kind: SensorKind
        let rate: Double
        let startOffset: Double
        let errors: SensorErrorModel
        let sigma: Double
        let walkStep: Double
        let seed: UInt64
        let stream: UInt64
        var index = 0
        var noise: GaussianGenerator
        var walkNoise: GaussianGenerator
        var walk = Vector3.zero

        init(kind: SensorKind, sensor: SimulatedSensor, seed: UInt64, stream: UInt64) {
            self.kind = kind
            rate = sensor.rate
            startOffset = sensor.startOffset
            errors = sensor.errors
            sigma = sensor.errors.noiseStandardDeviation(rate: sensor.rate)
            walkStep = sensor.errors.biasRandomWalk * (1 / sensor.rate).squareRoot()
            self.seed = seed
            self.stream = stream
            noise = GaussianGenerator(seed: seed, stream: stream)
            walkNoise = GaussianGenerator(seed: seed, stream: stream + 1)
        }

        var nextTime: Double { startOffset + Double(index) / rate }

        mutating func reset() {
            index = 0
            walk = .zero
            noise = GaussianGenerator(seed: seed, stream: stream)
            walkNoise = GaussianGenerator(seed: seed, stream: stream + 1)
        }

        /// Applies the error model to `ideal` and advances the noise state.
        mutating func measure(_ ideal: Vector3) -> (value: Vector3, bias: Vector3) {
            if index > 0 && walkStep > 0 {
                let n = kind == .barometer
                    ? Vector3(walkNoise.next(), 0, 0)
                    : Vector3(walkNoise.next(), walkNoise.next(), walkNoise.next())
                walk += n * walkStep
            }
            let bias = errors.bias + walk
            var v: Vector3
            if kind == .barometer {
                v = Vector3(errors.transform.m11 * ideal.x + bias.x, ideal.y, 0)
                if sigma > 0 { v.x += sigma * noise.next() }
            } else {
                v = errors.transform * ideal + bias
                if sigma > 0 { v += Vector3(noise.next(), noise.next(), noise.next()) * sigma }
            }
            let components = kind == .barometer ? 1 : 3
            for c in 0..<components {
                if let range = errors.range { v[c] = min(max(v[c], -range), range) }
                if let step = errors.resolution { v[c] = (v[c] / step).rounded(.toNearestOrEven) * step }
            }
            return (v, bias)
        }
    }

    /// A source at the start of `simulation`.
    public init(simulation: Simulation) {
        self.simulation = simulation
        sensors = simulation.sensorDescriptions
        var channels: [Channel] = []
        for (i, kind) in SensorKind.allCases.enumerated() {
            guard let sensor = simulation.scene.sensors[kind] else { continue }
            let stream = SimulatedSource.noiseStreamBase + 2 * UInt64(i)
            channels.append(Channel(kind: kind, sensor: sensor, seed: simulation.seed, stream: stream))
        }
        self.channels = channels
    }

    /// The scene time after which there are no more samples, or `nil` for an endless source.
    public var endTime: Double? { simulation.sampleDuration }

    /// The next sample in time order; `nil` after the end of a `stop` scene.
    public mutating func next() -> SensorSample? { nextDetailed()?.sample }

    /// The next sample with its ideal value and bias.
    public mutating func nextDetailed() -> SimulatedSample? {
        var best = -1
        var bestTime = Double.infinity
        for i in channels.indices {
            let t = channels[i].nextTime
            if t < bestTime {
                bestTime = t
                best = i
            }
        }
        guard best >= 0 else { return nil }
        if let end = endTime, bestTime > end + 1e-9 { return nil }
        let state: KinematicState
        if bestTime == cachedTime, let cached = cachedState {
            state = cached
        } else {
            state = simulation.state(at: bestTime)
            cachedTime = bestTime
            cachedState = state
        }
        let kind = channels[best].kind
        let ideal = simulation.idealReading(kind, state)
        let (value, bias) = channels[best].measure(ideal)
        channels[best].index += 1
        let sample: SensorSample
        switch kind {
        case .accelerometer: sample = .accelerometer(TimedVector(time: bestTime, value: value))
        case .gyroscope: sample = .gyroscope(TimedVector(time: bestTime, value: value))
        case .magnetometer: sample = .magnetometer(TimedVector(time: bestTime, value: value))
        case .barometer: sample = .barometer(PressureReading(time: bestTime, kilopascals: value.x, celsius: value.y))
        }
        return SimulatedSample(sample: sample, ideal: ideal, bias: bias)
    }

    /// Starts over from time 0 with the same noise.
    public mutating func rewind() {
        for i in channels.indices { channels[i].reset() }
        cachedTime = .nan
        cachedState = nil
    }
}
