import ArgumentParser
import CoreMotion
import Foundation
import MotionDevices
import MotionRecordings
import MotionService

/// `coremotion demo`: plays a bundled recording through `CMMotionManager` — the same API an iOS app
/// uses — and shows the live values.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Play a bundled recording through CMMotionManager and show live sensor values.",
        discussion: """
            The bundled recording is 20 s of BROAD trial 06 (an IMU turned quickly by hand; CC BY 4.0, \
            Laidig et al. 2021). It plays in real time through the library's replay device, exactly as \
            COREMOTION_DEVICE=replay:FILE would; the values you see come from CMMotionManager handlers.
            """
    )

    @Option(help: "Playback speed factor (2 = twice as fast).")
    var speed: Double = 1

    @Option(help: "Play this recording instead of the bundled one (any supported format).")
    var recording: String?

    @Option(help: "Update interval of the handlers, seconds.")
    var interval: Double = 0.02

    @Option(help: "Show a live device instead of a recording, in any COREMOTION_DEVICE form (service, iio, sim:walking-in-hand, …).")
    var device: String?

    @Option(help: "How long to run, seconds (default: the recording's length; 10 s for a live device).")
    var duration: Double?

    @Flag(help: "Print a JSON summary instead of the live view.")
    var json = false

    func validate() throws {
        guard speed.isFinite, speed > 0 else { throw ValidationError("--speed must be a positive number") }
        guard interval.isFinite, interval > 0 else { throw ValidationError("--interval must be a positive number") }
        if let duration, !(duration.isFinite && duration > 0) { throw ValidationError("--duration must be a positive number") }
        if device != nil && recording != nil { throw ValidationError("--device and --recording exclude each other") }
        if let device {
            do { _ = try DeviceSpecification.parse(device) } catch { throw ValidationError("\(error)") }
        }
    }

    func run() throws {
        if let device {
            // A live device, chosen the way any app's is: by the environment, before the first Core Motion call.
            setenv(DeviceSpecification.environmentVariable, device, 1)
            try show(name: device, duration: duration ?? 10, note: "Showing \(device) through CMMotionManager; Ctrl-C stops.")
            return
        }
        let url: URL
        if let recording {
            url = URL(fileURLWithPath: recording)
        } else if let bundled = Bundle.module.url(
            forResource: "broad-06-fast-rotation-excerpt", withExtension: "csv", subdirectory: "demo"
        ) {
            url = bundled
        } else {
            throw ValidationError("the bundled demo recording is missing from the tool's resources")
        }
        let source = try RecordingReader.read(url)
        // The device is chosen the way any app's is: by the environment, before the first Core Motion call.
        setenv(DeviceSpecification.environmentVariable, DeviceSpecification.replay(path: url.path, speed: speed, loop: false).description, 1)
        setenv("COREMOTION_HISTORY", "memory", 1)
        let note = "Playing \(url.lastPathComponent) (\(source.metadata.format), \(Output.fixed(source.duration, 1)) s) through CMMotionManager at \(Output.fixed(speed, 1))×; Ctrl-C stops."
        try show(name: url.lastPathComponent, duration: duration ?? source.duration / speed, note: note)
    }

    private func show(name: String, duration: Double, note: String) throws {

        let tally = DemoTally()
        let motion = CMMotionManager()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        motion.accelerometerUpdateInterval = interval
        motion.gyroUpdateInterval = interval
        motion.magnetometerUpdateInterval = interval
        motion.deviceMotionUpdateInterval = interval
        motion.startAccelerometerUpdates(to: queue) { data, _ in if let data { tally.accelerometer(data) } }
        motion.startGyroUpdates(to: queue) { data, _ in if let data { tally.gyro(data) } }
        motion.startMagnetometerUpdates(to: queue) { data, _ in if let data { tally.magnetometer(data) } }
        if motion.isDeviceMotionAvailable {
            let frame: CMAttitudeReferenceFrame = CMMotionManager.availableAttitudeReferenceFrames().contains(.xMagneticNorthZVertical)
                ? .xMagneticNorthZVertical : .xArbitraryZVertical
            motion.startDeviceMotionUpdates(using: frame, to: queue) { data, _ in if let data { tally.deviceMotion(data) } }
        }

        let start = Date()
        let progress = ProgressLine("demo", total: duration, always: !json)
        if !json { Output.note(note) }
        while Date().timeIntervalSince(start) < duration + 0.2 {
            Thread.sleep(forTimeInterval: 0.1)
            if !json { progress.update(Date().timeIntervalSince(start), detail: tally.line()) }
        }
        motion.stopAccelerometerUpdates()
        motion.stopGyroUpdates()
        motion.stopMagnetometerUpdates()
        motion.stopDeviceMotionUpdates()
        queue.waitUntilAllOperationsAreFinished()
        let summary = tally.summary(seconds: Date().timeIntervalSince(start))
        if json {
            try Output.json(summary)
        } else {
            progress.finish(tally.line())
            print(summary.text)
        }
    }
}

/// What the demo's handlers saw.
final class DemoTally: @unchecked Sendable {  // @unchecked: every var is read and written only under `lock`
    private let lock = NSLock()
    private var counts = [0, 0, 0, 0]
    private var acceleration = CMAcceleration()
    private var rotation = CMRotationRate()
    private var field = CMMagneticField()
    private var attitude: (roll: Double, pitch: Double, yaw: Double)?
    private var heading: Double = -1
    private var gravityNormSum = 0.0

    func accelerometer(_ d: CMAccelerometerData) {
        lock.lock(); counts[0] += 1; acceleration = d.acceleration; lock.unlock()
    }

    func gyro(_ d: CMGyroData) {
        lock.lock(); counts[1] += 1; rotation = d.rotationRate; lock.unlock()
    }

    func magnetometer(_ d: CMMagnetometerData) {
        lock.lock(); counts[2] += 1; field = d.magneticField; lock.unlock()
    }

    func deviceMotion(_ d: CMDeviceMotion) {
        let a = d.attitude
        let g = d.gravity
        lock.lock()
        counts[3] += 1
        attitude = (a.roll, a.pitch, a.yaw)
        heading = d.heading
        gravityNormSum += (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()
        lock.unlock()
    }

    func line() -> String {
        lock.lock()
        defer { lock.unlock() }
        func v(_ x: Double, _ y: Double, _ z: Double) -> String {
            String(format: "%+6.2f %+6.2f %+6.2f", x, y, z)
        }
        var s = "acc[g] \(v(acceleration.x, acceleration.y, acceleration.z))  gyro[rad/s] \(v(rotation.x, rotation.y, rotation.z))"
        s += String(format: "  |B| %5.1f µT", (field.x * field.x + field.y * field.y + field.z * field.z).squareRoot())
        if let attitude {
            let d = 180 / Double.pi
            s += String(format: "  roll %+6.1f° pitch %+6.1f° yaw %+6.1f°", attitude.roll * d, attitude.pitch * d, attitude.yaw * d)
        }
        return s
    }

    struct Summary: Encodable {
        var seconds: Double
        var accelerometerSamples: Int
        var gyroSamples: Int
        var magnetometerSamples: Int
        var deviceMotionSamples: Int
        var lastHeadingDegrees: Double?
        var text: String {
            """
            \(accelerometerSamples) accelerometer, \(gyroSamples) gyroscope, \(magnetometerSamples) magnetometer \
            and \(deviceMotionSamples) device-motion samples delivered to handlers in \(String(format: "%.1f", seconds)) s.
            """
        }
    }

    func summary(seconds: Double) -> Summary {
        lock.lock()
        defer { lock.unlock() }
        return Summary(
            seconds: seconds, accelerometerSamples: counts[0], gyroSamples: counts[1], magnetometerSamples: counts[2],
            deviceMotionSamples: counts[3], lastHeadingDegrees: heading >= 0 ? heading : nil
        )
    }
}
