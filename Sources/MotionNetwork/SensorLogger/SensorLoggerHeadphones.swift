import Foundation
import MotionSamples

/// The headphones of `COREMOTION_HEADPHONE_DEVICE=sensorlogger:HOST:PORT`: the `headphone` readings of the phone
/// a Sensor Logger receiver follows, as a ``MotionSamples/LiveHeadphoneDevice``.
///
/// Connection: the receiver's paced headphone stream (``LiveDevice/subscribeHeadphone(_:)``) connects with its
/// first sample and disconnects when no headphone reading came for ``LiveDevice/Configuration/headphoneSilence``
/// (1 s of sample time, counted after the jitter buffer's delay, so a pause between two of Sensor Logger's
/// batches is no disconnection); the next reading connects again. The headphone device's own watchdog is a
/// backstop at ``gapThreshold`` (the phone's silence, 2 s by default, + 1 s): the receiver's stream stops
/// altogether only when its pacing thread stops.
public enum SensorLoggerHeadphones {
    /// The headphone device's backstop silence, seconds: longer than the receiver's own disconnection rule.
    public static func gapThreshold(for server: SensorLoggerServer) -> TimeInterval {
        max(server.device.configuration.headphoneSilence, server.configuration.silence) + 1
    }

    /// A headphone device fed by `server`'s followed phone, on the server's clock; it stays subscribed for the
    /// server's lifetime.
    ///
    /// - Parameter rate: the nominal rate to report before samples come, Hz (AirPods on iOS 26: 50).
    public static func device(server: SensorLoggerServer, rate: Double = 50) -> LiveHeadphoneDevice {
        let headphones = LiveHeadphoneDevice(
            name: "sensorlogger:\(server.configuration.host):\(server.port ?? server.configuration.port) (headphone readings)",
            clock: server.clock, rate: rate, gapThreshold: gapThreshold(for: server))
        _ = server.device.subscribeHeadphone { event in
            switch event {
            case .connected: break  // the first sample connects the headphone device
            case .sample(let sample): headphones.receive(sample)
            case .disconnected: headphones.disconnect(reason: "no headphone reading for more than \(server.device.configuration.headphoneSilence) s")
            }
        }
        return headphones
    }
}
