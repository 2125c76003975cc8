import Foundation
import MotionIIO
import MotionNetwork
import MotionRecordings
import MotionSimulator

/// Opens the device a ``DeviceSpecification`` names.
public enum DeviceFactory {
    /// Makes the device for `specification` on `clock`.
    ///
    /// - Throws: ``DeviceSpecificationError`` naming the value and the reason (missing recording,
    ///   unknown scene, unreadable sysfs root…).
    public static func makeDevice(_ specification: DeviceSpecification, clock: any MotionClock) throws -> any MotionDevice {
        switch specification {
        case .none:
            return NoDevice(clock: clock)
        case .auto:
            // This machine's IIO motion sensors if there are any; otherwise no device. A broken IIO
            // tree is reported, not silently replaced.
            do {
                if let device = try IIODevice.discover(root: nil) { return device }
            } catch {
                throw DeviceSpecificationError(value: "auto", reason: "Linux IIO sensors were found but cannot be used: \(error)")
            }
            return NoDevice(clock: clock)
        case .replay(let path, let speed, let loop):
            let recording: Recording
            do {
                recording = try RecordingReader.read(path)
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: "cannot read the recording: \(error)")
            }
            guard !recording.sensors.isEmpty else {
                throw DeviceSpecificationError(value: specification.description, reason: "the recording has no raw sensor data")
            }
            let name = "replay:\(path) (\(recording.metadata.format)\(recording.metadata.deviceName.map { ", \($0)" } ?? ""))"
            return ScheduledDevice(name: name, source: RecordingSource(recording), clock: clock, speed: speed, loop: loop)
        case .iio(let root):
            // IIO asked for explicitly: a root without motion sensors yet gives a device with no sensors
            // that picks them up when their devices appear (a driver loaded after the daemon started).
            // `auto` above keeps "no sensors, no device".
            do {
                return try IIODevice.watching(root: root.map { URL(fileURLWithPath: $0) })
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: "\(error)")
            }
        case .service:
            throw DeviceSpecificationError(
                value: specification.description,
                reason: "the system service is not a device of this process: the API connects to coremotiond, which owns the device")
        case .sensorLogger(let configuration):
            do {
                return try SensorLoggerDevice.open(configuration, clock: clock)
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: error.reason)
            }
        case .phyphox(let settings):
            // Waits for the phone's first data (settings.stream.wait, 5 s by default).
            do {
                return try PhyphoxDevice.connect(settings, clock: clock)
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: error.description)
            }
        case .sensorServer(let settings):
            do {
                return try SensorServerDevice.connect(settings, clock: clock)
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: error.description)
            }
        case .simulator(let sceneName, let seed, let speed):
            do {
                let scene = try SceneCatalog.resolve(sceneName)
                let simulation = try Simulation(scene: scene, seed: seed)
                return ScheduledDevice(
                    name: "sim:\(scene.name) (seed \(seed))", source: simulation.makeSource(), clock: clock, speed: speed
                )
            } catch {
                throw DeviceSpecificationError(value: specification.description, reason: "\(error)")
            }
        }
    }
}
