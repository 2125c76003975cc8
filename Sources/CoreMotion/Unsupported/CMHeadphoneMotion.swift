import Foundation

/// Motion of supported headphones (AirPods Pro/Max). Linux has no way to read headphone motion: no
/// headphones ever connect, ``isDeviceMotionAvailable`` is false, and starting updates does nothing —
/// the behaviour of an iPhone with no compatible headphones, so app code compiles and runs unchanged.
open class CMHeadphoneMotionManager: NSObject {
    private let lock = NSLock()
    private weak var storedDelegate: (any CMHeadphoneMotionManagerDelegate)?
    private var statusActive = false

    /// A manager; no headphones ever connect on Linux.
    public override init() { super.init() }

    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }

    /// Receives connect and disconnect calls (never made on Linux).
    open weak var delegate: (any CMHeadphoneMotionManagerDelegate)? {
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

    /// Whether connection-status updates are running.
    open var isConnectionStatusActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return statusActive
    }

    /// Always false on Linux: no headphone motion.
    open var isDeviceMotionAvailable: Bool { false }
    /// Always false on Linux.
    open var isDeviceMotionActive: Bool { false }
    /// Always `nil` on Linux.
    open var deviceMotion: CMDeviceMotion? { nil }

    /// Does nothing (no headphone motion on Linux).
    open func startDeviceMotionUpdates() {}
    /// Does nothing (no headphone motion on Linux).
    open func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping DeviceMotionHandler) {}
    /// Does nothing.
    open func stopDeviceMotionUpdates() {}
    /// Starts connection-status updates; no headphones ever connect on Linux.
    open func startConnectionStatusUpdates() {
        lock.lock()
        statusActive = true
        lock.unlock()
    }
    /// Stops connection-status updates.
    open func stopConnectionStatusUpdates() {
        lock.lock()
        statusActive = false
        lock.unlock()
    }

    /// Receives headphone device motion.
    public typealias DeviceMotionHandler = (CMDeviceMotion?, (any Error)?) -> Void
}

/// Connection events of ``CMHeadphoneMotionManager`` (never sent on Linux).
public protocol CMHeadphoneMotionManagerDelegate: NSObjectProtocol {
    /// Headphones with motion sensors connected (never called on Linux).
    func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager)
    /// Headphones with motion sensors disconnected (never called on Linux).
    func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager)
}

extension CMHeadphoneMotionManagerDelegate {
    /// Does nothing: the method is optional, as in Apple's protocol.
    public func headphoneMotionManagerDidConnect(_ manager: CMHeadphoneMotionManager) {}
    /// Does nothing: the method is optional, as in Apple's protocol.
    public func headphoneMotionManagerDidDisconnect(_ manager: CMHeadphoneMotionManager) {}
}

/// Activity from headphone motion. Not available on Linux: ``isActivityAvailable`` and
/// ``isStatusAvailable`` are false and starting updates does nothing.
open class CMHeadphoneActivityManager: NSObject {
    /// Headphone connection state.
    public enum Status: Int, Sendable, Hashable, BitwiseCopyable {
        /// No headphones are connected (always, on Linux).
        case disconnected = 0
        /// Supported headphones are connected.
        case connected = 1
    }

    /// Receives headphone activity.
    public typealias ActivityHandler = (CMMotionActivity?, (any Error)?) -> Void
    /// Receives headphone connection status.
    public typealias StatusHandler = (CMHeadphoneActivityManager.Status, (any Error)?) -> Void

    /// A manager; it never reports activity or a connection on Linux.
    public override init() { super.init() }

    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class func authorizationStatus() -> CMAuthorizationStatus { Authorization.status }
    /// Always false on Linux.
    open var isActivityAvailable: Bool { false }
    /// Always false on Linux.
    open var isActivityActive: Bool { false }
    /// Always false on Linux.
    open var isStatusAvailable: Bool { false }
    /// Always false on Linux.
    open var isStatusActive: Bool { false }
    /// Does nothing on Linux.
    open func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping ActivityHandler) {}
    /// Does nothing.
    open func stopActivityUpdates() {}
    /// Does nothing on Linux.
    open func startStatusUpdates(to queue: OperationQueue, withHandler handler: @escaping StatusHandler) {}
    /// Does nothing.
    open func stopStatusUpdates() {}
}
