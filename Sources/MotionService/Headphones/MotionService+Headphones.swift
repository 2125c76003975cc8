import Foundation

extension MotionService {
    /// Whether headphone motion is supported here: a headphone source is configured
    /// (`CMHeadphoneMotionManager.isDeviceMotionAvailable`: the system's capability, not a connected headset).
    public var isHeadphoneMotionAvailable: Bool { headphones != nil }

    /// Whether the headphones are connected now (false without headphones).
    public var isHeadphoneConnected: Bool { headphoneHub?.isConnected ?? false }

    /// The headphones' connection: the state now first, then every change, delivered to `receive` on the
    /// headphones' thread under the service's headphone lock (quick, no calls back into the service). `nil`
    /// without headphones.
    public func subscribeHeadphoneConnection(receive: @escaping @Sendable (HeadphoneConnectionState) -> Void) -> (any MotionSubscription)? {
        headphoneStream(.connection(receive))
    }

    /// Headphone device motion at the headset's own rate, each sample's attitude relative to this
    /// subscription's start anchor (Z vertical, X the heading of its first sample: `q.z = 0` then). `nil`
    /// without headphones.
    public func subscribeHeadphoneMotion(receive: @escaping @Sendable (HeadphoneMotionSample) -> Void) -> (any MotionSubscription)? {
        headphoneStream(.motion(receive))
    }

    /// Activity from headphone motion (``MotionEngine/HeadActivityClassifier``): the current state first when
    /// known, then changes. `nil` without headphones.
    public func subscribeHeadphoneActivity(receive: @escaping @Sendable (ActivityReport) -> Void) -> (any MotionSubscription)? {
        headphoneStream(.activity(receive))
    }

    /// A client of the headphones whose cancel removes it; the headphones stop being read after the last one.
    private func headphoneStream(_ receiver: HeadphoneSubscription.Receiver) -> (any MotionSubscription)? {
        guard let hub = headphoneHub else { return nil }
        let subscription = hub.add(receiver)
        return CancellableStream(interval: 0) { hub.remove(subscription) }
    }

    /// Stops reading the headphones for good (the service shuts down).
    func stopHeadphones() {
        headphones?.run(nil)
    }
}
