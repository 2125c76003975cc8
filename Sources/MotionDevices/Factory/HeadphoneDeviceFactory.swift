import Foundation
import MotionIIO
import MotionNetwork
import MotionRecordings
import MotionSimulator

/// Opens the headphones a ``HeadphoneDeviceSpecification`` names.
///
/// `sensorlogger:HOST:PORT` takes the `headphone` readings of the Sensor Logger receiver on that address, the
/// same HTTP server as `COREMOTION_DEVICE=sensorlogger:HOST:PORT` in this process
/// (`MotionNetwork.SensorLoggerReceivers`), connected while the readings flow (`MotionNetwork.SensorLoggerHeadphones`).
///
/// **Adding a live source** (a Bluetooth head tracker): make a
/// ``MotionSamples/LiveHeadphoneDevice`` on the clock, push each sample into it with
/// ``MotionSamples/LiveHeadphoneDevice/receive(_:)`` (time-ordered, stamped on the clock, Core Motion's units:
/// ``MotionRecordings/SensorLoggerHeadphone/sample(time:value:location:)`` converts Sensor Logger's fields),
/// or hand it an `AsyncSequence` with ``MotionSamples/LiveHeadphoneDevice/feed(from:)``, and return it here.
/// Connection, the start anchor, activity, the daemon and the API then work unchanged.
public enum HeadphoneDeviceFactory {
    /// Makes the headphones for `specification` on `clock`; `nil` for ``HeadphoneDeviceSpecification/none``.
    ///
    /// - Throws: ``DeviceSpecificationError`` naming `COREMOTION_HEADPHONE_DEVICE` and the reason (a missing
    ///   or unreadable recording, an unknown scene, no IMU, a receiver that cannot listen).
    public static func makeDevice(_ specification: HeadphoneDeviceSpecification, clock: any MotionClock) throws -> (any HeadphoneDevice)? {
        func fail(_ reason: String) -> DeviceSpecificationError {
            HeadphoneDeviceSpecification.grammar.error(specification.description, reason)
        }
        switch specification {
        case .none:
            return nil
        case .replay(let path, let speed, let loop):
            let recording: HeadphoneRecording
            do {
                recording = try HeadphoneRecordingReader.read(path)
            } catch {
                throw fail("cannot read the headphone recording: \(error)")
            }
            guard !recording.samples.isEmpty else { throw fail("the recording has no headphone samples") }
            let name = "replay:\(path) (\(recording.metadata.format), \(Int(recording.rate.rounded())) Hz)"
            return ScheduledHeadphoneDevice(name: name, timeline: recording.timeline(loop: loop), clock: clock, speed: speed)
        case .simulator(let sceneName, let seed, let speed):
            do {
                let scene = try HeadphoneSceneCatalog.resolve(sceneName)
                let timeline = try HeadphoneSimulation(scene: scene, seed: seed).timeline()
                return ScheduledHeadphoneDevice(
                    name: "sim:\(scene.name) (seed \(seed), \(Int(scene.rate)) Hz)", timeline: timeline, clock: clock, speed: speed)
            } catch {
                throw fail("\(error)")
            }
        case .iio(let root):
            let imu: IIODevice?
            do {
                imu = try IIODevice.discover(root: root.map { URL(fileURLWithPath: $0) })
            } catch {
                throw fail("\(error)")
            }
            guard let imu else { throw fail("no IIO motion sensors under \(root ?? "/sys/bus/iio/devices")") }
            return try FusedHeadphoneDevice(imu: imu, name: "iio\(root.map { ":" + $0 } ?? "") \(imu.name) (head IMU, fused here, 6D)")
        case .sensorLogger(let host, let port):
            // The process's receiver on that address (the phone's, when COREMOTION_DEVICE names the same one).
            do {
                // A receiver the phone already started (with its token, if any) is shared as it is.
                let server: SensorLoggerServer
                if let running = SensorLoggerReceivers.shared.existing(host: host, port: port) {
                    server = running
                } else {
                    server = try SensorLoggerReceivers.shared.receiver(
                        for: SensorLoggerConfiguration(
                            host: host, port: port, token: SensorLoggerConfiguration.environmentToken(), wait: 0),
                        clock: clock)
                }
                return SensorLoggerHeadphones.device(server: server)
            } catch {
                throw fail(
                    "\(error.reason) (a token for an address beyond loopback is given on the phone's receiver: "
                        + "COREMOTION_DEVICE=sensorlogger:\(host):\(port)?token=…, which the headphones then share)")
            }
        }
    }
}
