import Foundation
import MotionClient

/// Motion of the user's head from motion-sensing headphones (AirPods Pro/Max and the like): attitude,
/// rotation rate, gravity and user acceleration as the headset's own fusion computes them, with the bud that
/// measured each sample.
///
/// Where the headphones come from is chosen outside the app's code, as for every device: in process by
/// `COREMOTION_HEADPHONE_DEVICE` (a recording of real AirPods, a simulated head, a head-worn IMU on Linux IIO
/// fused here), through `coremotiond` by the daemon's `--headphone-device` (<doc:Devices>).
///
/// Apple's semantics:
/// - ``isDeviceMotionAvailable`` says whether this system supports headphone motion (a headphone source is
///   configured), not whether a headset is connected.
/// - The ``delegate`` hears ``CMHeadphoneMotionManagerDelegate/headphoneMotionManagerDidConnect(_:)`` and
///   ``CMHeadphoneMotionManagerDelegate/headphoneMotionManagerDidDisconnect(_:)`` while device-motion updates
///   or connection-status updates run, on the queue given to
///   ``startDeviceMotionUpdates(to:withHandler:)``, or on the main queue (the main thread while the main run
///   loop runs) when none was given. Headphones already connected when updates start report
///   `didConnect` at once, before the first sample.
/// - Samples come at the headset's own rate (50 Hz for AirPods on iOS 26 / macOS 26, 25 Hz before); there
///   is no update interval. Their attitude is relative to the pose when updates started: Z vertical, X the
///   heading of the first sample, so the first sample's quaternion has `z = 0`. Rotation rate is in the
///   bud's own axes (rad/s), gravity and user acceleration in g; the magnetic field is `.uncalibrated`
///   zeros and the heading 0; ``CMDeviceMotion/sensorLocation`` is `.headphoneLeft` or `.headphoneRight`
///   (`.default` when the source does not say).
/// - Connection follows the stream: connected when samples start, disconnected after a silence longer
///   than 1 s (a bud out of the ear, the headset switched to another device) or at the end of a recording,
///   connected again when samples come back. The attitude keeps the start anchor across a reconnection.
/// - Authorization as for the pedometer and the altimeter (``authorizationStatus()``): denied or restricted,
///   the push handler gets `CMErrorNotAuthorized` once and no data, and no connection is reported.
open class CMHeadphoneMotionManager: NSObject {
    let provider: any MotionProvider
    private let session: HeadphoneSession

    /// A manager on the process's motion service and its headphones.
    public override init() {
        provider = MotionProviders.current
        session = HeadphoneSession(provider: provider)
        super.init()
        session.owner = UncheckedBox(WeakManager(self))
    }

    deinit { session.stopAll() }

    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Receives connect and disconnect calls (held weakly, as Apple's).
    open weak var delegate: (any CMHeadphoneMotionManagerDelegate)? {
        get { session.delegate }
        set { session.delegate = newValue }
    }

    /// Whether connection-status updates run (``startConnectionStatusUpdates()``).
    open var isConnectionStatusActive: Bool { session.isStatusActive }

    /// Whether this system supports headphone motion: a headphone source is configured
    /// (`COREMOTION_HEADPHONE_DEVICE`, or the daemon's). True whether or not a headset is connected.
    open var isDeviceMotionAvailable: Bool { provider.isHeadphoneMotionAvailable }
    /// Whether device-motion updates run.
    open var isDeviceMotionActive: Bool { session.isMotionActive }
    /// The latest sample since updates started, or `nil` before the first one.
    open var deviceMotion: CMDeviceMotion? { session.latest }

    /// Starts device-motion updates without a handler: read ``deviceMotion``. The delegate hears the
    /// connection on the main queue. No effect where headphone motion is not available.
    open func startDeviceMotionUpdates() {
        session.startMotion(queue: nil, handler: nil)
    }

    /// Starts device-motion updates on `queue`: one handler call per sample, in order; the delegate hears
    /// the connection on the same queue (before the first sample when already connected). A second call
    /// replaces the queue and handler, and anchors the attitude anew. No effect where headphone motion is
    /// not available.
    open func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping DeviceMotionHandler) {
        session.startMotion(queue: queue, handler: handler)
    }

    /// Stops device-motion updates; waiting handler calls are dropped. Connection-status updates, if started,
    /// go on (the delegate then hears them on the main queue).
    open func stopDeviceMotionUpdates() {
        session.stopMotion()
    }

    /// Lets the delegate hear connects and disconnects without device-motion updates, on the main queue
    /// (or the device-motion queue while push updates run). Headphones already connected report at once.
    open func startConnectionStatusUpdates() {
        session.startStatus()
    }

    /// Stops connection-status updates started by ``startConnectionStatusUpdates()`` (device-motion
    /// updates, if running, still report the connection).
    open func stopConnectionStatusUpdates() {
        session.stopStatus()
    }

    /// Receives headphone device motion.
    public typealias DeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void
}

/// Connection events of ``CMHeadphoneMotionManager``, called on the device-motion queue, or on the main
/// queue when updates were started without one. Both methods are optional, as in Apple's protocol.
public protocol CMHeadphoneMotionManagerDelegate: NSObjectProtocol {
    /// Headphones with motion sensors connected: samples start (or, when status updates start, they already
    /// flow).
    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager)
    /// Headphones with motion sensors disconnected: no sample for more than 1 s, or the end of a recording.
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager)
}

extension CMHeadphoneMotionManagerDelegate {
    /// Does nothing: the method is optional, as in Apple's protocol.
    public func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) {}
    /// Does nothing: the method is optional, as in Apple's protocol.
    public func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) {}
}

/// The manager, held weakly by its session (a delegate call after the manager is gone is skipped).
final class WeakManager {
    weak var manager: CMHeadphoneMotionManager?
    init(_ manager: CMHeadphoneMotionManager) { self.manager = manager }
}

/// What reaches the app's queue: a connection change or a sample.
enum HeadphoneUpdate: @unchecked Sendable {  // @unchecked: payloads are an NSError or a CMDeviceMotion (all `let`; CMAttitude locks its value), handed off once
    case connected
    case disconnected
    case motion(CMDeviceMotion)
    case error(NSError)
}

/// The state of one ``CMHeadphoneMotionManager``: its streams, deliveries and connection as the app has heard
/// it. `Sendable` on its own, so that the manager itself never crosses threads.
final class HeadphoneSession: @unchecked Sendable {  // @unchecked: every var is guarded by `lock`, except `owner`, set once in the manager's init before any stream
    private let provider: any MotionProvider
    private let lock = NSLock()
    /// The manager that owns this session (set once, right after init).
    var owner: UncheckedBox<WeakManager>?
    private weak var storedDelegate: (any CMHeadphoneMotionManagerDelegate)?
    private var statusActive = false
    private var motionActive = false
    private var connection: (any MotionSubscription)?
    private var motion: (any MotionSubscription)?
    /// Push delivery (samples and connection events) on the app's queue.
    private var motionDelivery: QueueDelivery<HeadphoneUpdate>?
    /// Connection events on the main queue when no push queue was given.
    private var mainDelivery: QueueDelivery<HeadphoneUpdate>?
    /// The connection as last reported to the delegate (each change once).
    private var reportedConnected = false
    private var latestItem: CMDeviceMotion?

    init(provider: any MotionProvider) {
        self.provider = provider
    }

    var delegate: (any CMHeadphoneMotionManagerDelegate)? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return storedDelegate
        }
        set {
            lock.lock()
            storedDelegate = newValue
            lock.unlock()
        }
    }

    var isStatusActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return statusActive
    }

    var isMotionActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return motionActive
    }

    var latest: CMDeviceMotion? {
        lock.lock()
        defer { lock.unlock() }
        return latestItem
    }

    // MARK: Starting and stopping

    func startMotion(queue: OperationQueue?, handler: CMHeadphoneMotionManager.DeviceMotionHandler?) {
        stopMotion()
        guard provider.isHeadphoneMotionAvailable else { return }
        if let refusal = Authorization.refusal(provider, history: false, code: CMErrorNotAuthorized) {
            if let queue, let handler {
                let box = UncheckedBox(handler)
                queue.addOperation { box.value(nil, refusal) }
            }
            return
        }
        var delivery: QueueDelivery<HeadphoneUpdate>?
        if let queue {
            let box = handler.map(UncheckedBox.init)
            delivery = QueueDelivery(queue: queue, label: "headphone motion") { [weak self] update in
                switch update {
                case .motion(let m): box?.value(m, nil)
                case .error(let e): box?.value(nil, e)
                case .connected, .disconnected: self?.tellDelegate(update)
                }
            }
        }
        if let delivery { provider.deliveries.track(delivery) }
        lock.lock()
        motionActive = true
        motionDelivery = delivery
        latestItem = nil
        lock.unlock()
        // The connection first, so that headphones already connected report before the first sample.
        ensureConnectionStream()
        let subscription = provider.subscribeHeadphoneMotion { [weak self] sample in self?.receive(sample) }
        lock.lock()
        if motionActive && motion == nil {
            motion = subscription
        } else {
            lock.unlock()
            subscription?.cancel()
            return
        }
        lock.unlock()
    }

    func stopMotion() {
        lock.lock()
        let subscription = motion
        let delivery = motionDelivery
        motion = nil
        motionDelivery = nil
        motionActive = false
        lock.unlock()
        subscription?.cancel()
        delivery?.cancel()
        if let delivery { provider.deliveries.untrack(delivery) }
        endConnectionStreamIfUnused()
    }

    func startStatus() {
        lock.lock()
        statusActive = true
        lock.unlock()
        guard provider.isHeadphoneMotionAvailable, Authorization.refusal(provider, history: false, code: CMErrorNotAuthorized) == nil else {
            return
        }
        ensureConnectionStream()
    }

    func stopStatus() {
        lock.lock()
        statusActive = false
        lock.unlock()
        endConnectionStreamIfUnused()
    }

    func stopAll() {
        lock.lock()
        statusActive = false
        lock.unlock()
        stopMotion()
    }

    private func ensureConnectionStream() {
        lock.lock()
        let running = connection != nil
        lock.unlock()
        guard !running else { return }
        let subscription = provider.subscribeHeadphoneConnection { [weak self] state in self?.connectionChanged(state) }
        lock.lock()
        if connection == nil && (statusActive || motionActive) {
            connection = subscription
            lock.unlock()
        } else {
            lock.unlock()
            subscription?.cancel()
        }
    }

    private func endConnectionStreamIfUnused() {
        lock.lock()
        guard !statusActive && !motionActive, let subscription = connection else {
            lock.unlock()
            return
        }
        connection = nil
        reportedConnected = false
        let main = mainDelivery
        mainDelivery = nil
        lock.unlock()
        subscription.cancel()
        if let main {
            // Calls already queued still run (the app may rely on the last disconnect); new ones are not made.
            provider.deliveries.untrack(main)
        }
    }

    // MARK: Events (on the provider's thread)

    private func connectionChanged(_ state: HeadphoneConnectionState) {
        lock.lock()
        guard state.isConnected != reportedConnected, connection != nil || statusActive || motionActive else {
            lock.unlock()
            return
        }
        reportedConnected = state.isConnected
        let delivery = motionDelivery ?? mainQueueDelivery()
        lock.unlock()
        delivery.deliver(state.isConnected ? .connected : .disconnected)
    }

    /// The main-queue delivery of connection events, made on first use. Caller holds `lock`.
    private func mainQueueDelivery() -> QueueDelivery<HeadphoneUpdate> {
        if let mainDelivery { return mainDelivery }
        let delivery = QueueDelivery<HeadphoneUpdate>(queue: .main, label: "headphone connection") { [weak self] update in
            self?.tellDelegate(update)
        }
        provider.deliveries.track(delivery)
        mainDelivery = delivery
        return delivery
    }

    private func receive(_ sample: HeadphoneMotionSample) {
        let location: CMDeviceMotion.SensorLocation = switch sample.location {
        case .left: .headphoneLeft
        case .right: .headphoneRight
        case .unknown: .default
        }
        let motion = CMDeviceMotion(
            timestamp: sample.time, attitude: sample.attitude, rotationRate: sample.rotationRate, gravity: sample.gravity,
            userAcceleration: sample.userAcceleration, magneticField: .zero, accuracy: .uncalibrated, heading: 0,
            headingAccuracy: -1, sensorLocation: location)
        lock.lock()
        guard motionActive else {
            lock.unlock()
            return
        }
        latestItem = motion
        let delivery = motionDelivery
        lock.unlock()
        delivery?.deliver(.motion(motion))
    }

    /// Calls the delegate (on the delivery's queue).
    private func tellDelegate(_ update: HeadphoneUpdate) {
        guard let manager = owner?.value.manager, let delegate = self.delegate else { return }
        switch update {
        case .connected: delegate.headphoneMotionManagerDidConnect(manager)
        case .disconnected: delegate.headphoneMotionManagerDidDisconnect(manager)
        default: break
        }
    }
}
