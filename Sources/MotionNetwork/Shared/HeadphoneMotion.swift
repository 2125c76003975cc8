import Foundation
import MotionSamples

/// What a device's headphone stream reports (``LiveDevice/subscribeHeadphone(_:)``).
///
/// Samples are ``MotionSamples/HeadphoneMotionSample``, the one headphone sample type of the project (the
/// replayed, simulated and fused headphones use it too): Core Motion's units and signs, stamped on the device's
/// clock. For what a phone may leave out of a reading, see `SensorLoggerPhone`'s table.
public enum HeadphoneMotionEvent: Sendable, Hashable {
    /// The first sample is about to come (the phone started sending headphone readings), or they came back
    /// after a silence: `CMHeadphoneMotionManagerDelegate.headphoneMotionManagerDidConnect`.
    case connected
    /// One sample, in time order, paced like the phone's samples.
    case sample(HeadphoneMotionSample)
    /// No headphone reading for ``LiveDevice/Configuration/headphoneSilence`` seconds (buds out, audio
    /// routed elsewhere, the phone stopped): `…DidDisconnect`.
    case disconnected
}
