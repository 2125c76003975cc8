import Foundation
import Logging
import MotionEngine

/// A client of the service's headphones: connection status, device motion (with its own start anchor) or
/// activity.
final class HeadphoneSubscription: @unchecked Sendable {  // @unchecked: `anchor` changes only in `HeadphoneHub.handle`, under the hub's `lock`; `receiver` is a `let`
    enum Receiver {
        case connection(@Sendable (HeadphoneConnectionState) -> Void)
        case motion(@Sendable (HeadphoneMotionSample) -> Void)
        case activity(@Sendable (ActivityReport) -> Void)
    }

    let receiver: Receiver
    /// The rotation about the vertical removed from this client's attitudes: the first sample's twist
    /// (guarded by the hub's lock).
    var anchor: Quaternion?

    init(_ receiver: Receiver) {
        self.receiver = receiver
    }
}

/// Runs the headphone device of a service for all its clients: tracks the connection, anchors each motion
/// client's attitude at its first sample, and classifies activity once for every activity client.
///
/// **Anchor**: each device-motion client gets attitudes relative to a reference frame whose Z is vertical and
/// whose X is the heading of its first sample: the first sample's rotation about the vertical
/// (``MotionSamples/Quaternion/verticalTwist``) is removed from every sample, so that its first sample has
/// `q.z = 0`, as Apple's headphone streams start (`spec/HEADPHONES.md` §2). The anchor holds until the client
/// stops, across disconnections (a frame kept while updates run); body-frame vectors are untouched. For a
/// recording that starts with `q.z = 0` and a client that starts with it, the anchor is the identity and
/// the attitudes are delivered as recorded.
final class HeadphoneHub: @unchecked Sendable {  // @unchecked: every var is guarded by `lock`; `configurationLock` serialises starting and stopping the device
    let device: any HeadphoneDevice
    private let logger: Logger
    /// Guards the clients and the state; events arrive under it.
    private let lock = NSLock()
    /// Serialises starting and stopping the device (never held with `lock`, which events take).
    private let configurationLock = NSLock()
    private var clients: [HeadphoneSubscription] = []
    private var running = false
    private var connected = false
    private var classifier = HeadActivityClassifier()
    private var lastActivity: ActivityReport?

    init(device: any HeadphoneDevice, logger: Logger) {
        self.device = device
        self.logger = logger
    }

    /// Whether the headphones are connected now.
    var isConnected: Bool {
        lock.lock()
        let running = self.running
        let connected = self.connected
        lock.unlock()
        return running ? connected : device.isConnected
    }

    func add(_ receiver: HeadphoneSubscription.Receiver) -> HeadphoneSubscription {
        let subscription = HeadphoneSubscription(receiver)
        configurationLock.lock()
        defer { configurationLock.unlock() }
        lock.lock()
        let start = !running
        lock.unlock()
        if start {
            device.run { [weak self] event in self?.handle(event) }
            let now = device.isConnected
            lock.lock()
            running = true
            connected = now
            lock.unlock()
        }
        lock.lock()
        clients.append(subscription)
        switch receiver {
        case .connection(let receive):
            receive(HeadphoneConnectionState(time: device.clock.now, isConnected: connected))
        case .activity(let receive):
            if let lastActivity { receive(lastActivity) }
        case .motion:
            break
        }
        lock.unlock()
        return subscription
    }

    func remove(_ subscription: HeadphoneSubscription) {
        configurationLock.lock()
        defer { configurationLock.unlock() }
        lock.lock()
        clients.removeAll { $0 === subscription }
        let stop = running && clients.isEmpty
        if stop {
            running = false
            classifier.reset()
            lastActivity = nil
        }
        lock.unlock()
        if stop { device.run(nil) }
    }

    /// The device's events, in order, on its thread.
    private func handle(_ event: HeadphoneEvent) {
        lock.lock()
        defer { lock.unlock() }
        guard running else { return }
        switch event {
        case .connected(let time):
            setConnected(true, at: time)
        case .disconnected(let time, let reason):
            logger.debug("headphones disconnected: \(reason)")
            setConnected(false, at: time)
            classifier.reset()
        case .motion(let sample):
            // A sample means connected, even if the hub started after the device said so.
            if !connected { setConnected(true, at: sample.time) }
            var classify = false
            for client in clients {
                switch client.receiver {
                case .motion(let receive):
                    let anchor = client.anchor ?? sample.attitude.verticalTwist
                    client.anchor = anchor
                    receive(sample.anchored(removing: anchor))
                case .activity:
                    classify = true
                case .connection:
                    break
                }
            }
            if classify, let report = classifier.add(sample) {
                let activity = ActivityReport(
                    startDate: device.clock.date(at: report.startTime), timestamp: report.time, flags: report.flags,
                    confidence: report.confidence)
                lastActivity = activity
                for client in clients {
                    if case .activity(let receive) = client.receiver { receive(activity) }
                }
            }
        }
    }

    /// Caller holds `lock`.
    private func setConnected(_ value: Bool, at time: Double) {
        guard value != connected else { return }
        connected = value
        let state = HeadphoneConnectionState(time: time, isConnected: value)
        for client in clients {
            if case .connection(let receive) = client.receiver { receive(state) }
        }
    }
}
