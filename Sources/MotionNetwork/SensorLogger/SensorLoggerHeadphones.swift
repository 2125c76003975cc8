import Foundation
import MotionSamples

/// The headphones of `COREMOTION_HEADPHONE_DEVICE=sensorlogger:HOST:PORT`: the `headphone` readings of the phone
/// a Sensor Logger receiver follows, as a ``MotionSamples/LiveHeadphoneDevice``.
///
/// Connection follows the receiver's paced headphone stream (``LiveDevice/subscribeHeadphone(_:)``) and nothing
/// else: it connects with the first sample and disconnects when no headphone reading came for
/// ``LiveDevice/Configuration/headphoneSilence`` (1 s of sample time, counted after the jitter buffer's delay,
/// so a pause between two of Sensor Logger's batches is no disconnection), or when the receiver's device
/// closes; the next reading connects again. The headphone device has no watchdog of its own (its
/// ``MotionSamples/LiveHeadphoneDevice/gapThreshold`` is `nil`): the phone's headphones have one scheduling and
/// one silence rule, the receiver's.
public enum SensorLoggerHeadphones {
    /// A headphone device fed by `server`'s followed phone, on the server's clock; it stays subscribed for the
    /// server's lifetime.
    ///
    /// - Parameter rate: the nominal rate to report before samples come, Hz (AirPods on iOS 26: 50).
    public static func device(server: SensorLoggerServer, rate: Double = 50) -> LiveHeadphoneDevice {
        let headphones = LiveHeadphoneDevice(
            name: "sensorlogger:\(server.configuration.host):\(server.port ?? server.configuration.port) (headphone readings)",
            clock: server.clock, rate: rate, gapThreshold: nil)
        let phone = server.device
        _ = phone.subscribeHeadphone { event in
            switch event {
            case .connected: break  // the first sample connects the headphone device
            case .sample(let sample): headphones.receive(sample)
            case .disconnected: headphones.disconnect(reason: "no headphone reading for more than \(phone.configuration.headphoneSilence) s")
            }
        }
        // A closed device delivers nothing more, not even the disconnection.
        phone.onClose { headphones.finish(reason: "the Sensor Logger receiver closed") }
        return headphones
    }
}
