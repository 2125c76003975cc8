import Foundation
import MotionClient

/// The entry point to the device's motion sensors: raw accelerometer, gyroscope and magnetometer
/// data, and processed device motion.
///
/// Data arrives either by **pull** (start without a handler and read ``accelerometerData`` and
/// friends, `nil` until the first sample) or by **push** (start with an `OperationQueue` and a
/// handler: one operation per sample, in timestamp order). The device is chosen outside the app's
/// code by `COREMOTION_DEVICE` (Linux IIO sensors, a recording, the simulator, or none).
///
/// Behaviour decided here where Apple is silent:
/// - Update intervals are clamped at the fast end only, to the sensor's shortest sample period; NaN or
///   negative values mean "as fast as possible". Intervals longer than 1 s are honoured as given (5 s
///   gives the first sample at once, then one every 5 s): Apple documents a cap only at the fast end ("the
///   maximum value is determined by the maximum frequency supported by the hardware",
///   https://developer.apple.com/documentation/coremotion/cmmotionmanager/accelerometerupdateinterval) and
///   asks apps to use the largest interval they can to save energy (Energy Efficiency Guide for iOS Apps,
///   "Reduce the Frequency of Motion Updates",
///   https://developer.apple.com/library/archive/documentation/Performance/Conceptual/EnergyGuide-iOS/MotionBestPractices.html);
///   no slowest interval is documented. Infinity counts as the largest finite interval (the first sample
///   only). The getters return the interval in effect. The default interval is 0.01 s.
/// - Push delivery loses nothing while the handler keeps up on average; up to 65,536 samples per
///   stream may wait (about 11 minutes at 100 Hz). Past that the oldest waiting sample is discarded
///   and a warning is logged.
/// - Stopping a stream turns its operations still waiting on the queue into no-ops; other work on the
///   queue is untouched.
/// - Several managers share the hardware: the device runs at the fastest rate any of them asked for,
///   and each manager gets its own stream at its own interval.
/// - Timestamps are seconds on the clock of `ProcessInfo.processInfo.systemUptime`.
/// - Handlers given `OperationQueue.main` run on the main queue, one at a time: on the main thread while
///   the main run loop runs (`RunLoop.main.run()`, as an app's does); after `dispatchMain()` the main queue
///   is drained by a worker thread, as on Apple's platforms (see `QueueDelivery`).
/// - Like Apple's, the class is a plain `NSObject` subclass, open and not `Sendable`: an app may subclass
///   it (a singleton, a mock) without restating any conformance. Its internals live in `Sendable` state
///   objects of their own, so the library never hands the manager itself to another thread.
open class CMMotionManager: NSObject {
    /// The interval a new manager starts with, seconds.
    static let defaultUpdateInterval: TimeInterval = 0.01

    let provider: any MotionProvider
    private let accelerometer = RawSensorChannel<CMAccelerometerData>(.accelerometer) { sample in
        guard case .accelerometer(let v) = sample else { return nil }
        return CMAccelerometerData(acceleration: CMAcceleration(x: v.value.x, y: v.value.y, z: v.value.z), timestamp: v.time)
    }
    private let gyro = RawSensorChannel<CMGyroData>(.gyroscope) { sample in
        guard case .gyroscope(let v) = sample else { return nil }
        return CMGyroData(rotationRate: CMRotationRate(x: v.value.x, y: v.value.y, z: v.value.z), timestamp: v.time)
    }
    private let magnetometer = RawSensorChannel<CMMagnetometerData>(.magnetometer) { sample in
        guard case .magnetometer(let v) = sample else { return nil }
        return CMMagnetometerData(magneticField: CMMagneticField(x: v.value.x, y: v.value.y, z: v.value.z), timestamp: v.time)
    }
    let deviceMotionChannel: DeviceMotionChannel
    private let settingsLock = NSLock()
    private var storedShowsDeviceMovementDisplay = false
    private var storedDeviceMotionBody: (any CMBodyIdentifiable)?

    /// A manager on the process's motion service (the device `COREMOTION_DEVICE` names).
    public override init() {
        provider = MotionProviders.current
        deviceMotionChannel = DeviceMotionChannel(provider: provider)
        super.init()
    }

    deinit {
        accelerometer.stop()
        gyro.stop()
        magnetometer.stop()
        deviceMotionChannel.stop()
    }

    // MARK: Availability and activity

    /// Whether the device has an accelerometer.
    open var isAccelerometerAvailable: Bool { provider.has(.accelerometer) }
    /// Whether accelerometer updates are running.
    open var isAccelerometerActive: Bool { accelerometer.isActive }
    /// Whether the device has a gyroscope.
    open var isGyroAvailable: Bool { provider.has(.gyroscope) }
    /// Whether gyroscope updates are running.
    open var isGyroActive: Bool { gyro.isActive }
    /// Whether the device has a magnetometer.
    open var isMagnetometerAvailable: Bool { provider.has(.magnetometer) }
    /// Whether magnetometer updates are running.
    open var isMagnetometerActive: Bool { magnetometer.isActive }
    /// Whether device motion can be computed: it needs an accelerometer and a gyroscope.
    open var isDeviceMotionAvailable: Bool { deviceMotionChannel.isAvailable }
    /// Whether device-motion updates are running.
    open var isDeviceMotionActive: Bool { deviceMotionChannel.isActive }

    // MARK: Intervals

    /// Interval between accelerometer samples delivered to this manager, seconds (clamped at the fast end
    /// only; longer than 1 s is honoured; see the class overview).
    open var accelerometerUpdateInterval: TimeInterval {
        get { accelerometer.interval(on: provider) }
        set { accelerometer.setInterval(newValue, on: provider) }
    }

    /// Interval between gyroscope samples, seconds (clamped).
    open var gyroUpdateInterval: TimeInterval {
        get { gyro.interval(on: provider) }
        set { gyro.setInterval(newValue, on: provider) }
    }

    /// Interval between magnetometer samples, seconds (clamped).
    open var magnetometerUpdateInterval: TimeInterval {
        get { magnetometer.interval(on: provider) }
        set { magnetometer.setInterval(newValue, on: provider) }
    }

    /// Interval between device-motion samples, seconds (clamped).
    open var deviceMotionUpdateInterval: TimeInterval {
        get { deviceMotionChannel.interval }
        set { deviceMotionChannel.setInterval(newValue) }
    }

    // MARK: Latest samples (pull)

    /// The latest accelerometer sample, `nil` until the first one after start.
    open var accelerometerData: CMAccelerometerData? { accelerometer.latest }
    /// The latest gyroscope sample, `nil` until the first one after start.
    open var gyroData: CMGyroData? { gyro.latest }
    /// The latest magnetometer sample, `nil` until the first one after start.
    open var magnetometerData: CMMagnetometerData? { magnetometer.latest }
    /// The latest device-motion sample, `nil` until the first one after start.
    open var deviceMotion: CMDeviceMotion? { deviceMotionChannel.latest }

    // MARK: Accelerometer

    /// Starts accelerometer updates without a handler; read ``accelerometerData``.
    open func startAccelerometerUpdates() {
        accelerometer.start(on: provider, queue: nil, handler: nil)
    }

    /// Starts accelerometer updates; `handler` runs on `queue` once per sample, in order.
    open func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler) {
        accelerometer.start(on: provider, queue: queue, handler: handler)
    }

    /// Stops accelerometer updates.
    open func stopAccelerometerUpdates() { accelerometer.stop() }

    // MARK: Gyroscope

    /// Starts gyroscope updates without a handler; read ``gyroData``.
    open func startGyroUpdates() { gyro.start(on: provider, queue: nil, handler: nil) }

    /// Starts gyroscope updates; `handler` runs on `queue` once per sample, in order.
    open func startGyroUpdates(to queue: OperationQueue, withHandler handler: @escaping CMGyroHandler) {
        gyro.start(on: provider, queue: queue, handler: handler)
    }

    /// Stops gyroscope updates.
    open func stopGyroUpdates() { gyro.stop() }

    // MARK: Magnetometer

    /// Starts magnetometer updates without a handler; read ``magnetometerData``.
    open func startMagnetometerUpdates() { magnetometer.start(on: provider, queue: nil, handler: nil) }

    /// Starts magnetometer updates; `handler` runs on `queue` once per sample, in order.
    open func startMagnetometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMagnetometerHandler) {
        magnetometer.start(on: provider, queue: queue, handler: handler)
    }

    /// Stops magnetometer updates.
    open func stopMagnetometerUpdates() { magnetometer.stop() }

    // MARK: Device motion

    /// Starts device-motion updates in the default frame (``attitudeReferenceFrame``'s default,
    /// `.xArbitraryZVertical`) without a handler; read ``deviceMotion``.
    open func startDeviceMotionUpdates() {
        deviceMotionChannel.start(frame: .xArbitraryZVertical, queue: nil, handler: nil, showsMovementDisplay: showsDeviceMovementDisplay)
    }

    /// Starts device-motion updates in the default frame; `handler` runs on `queue` once per sample.
    open func startDeviceMotionUpdates(to queue: OperationQueue, withHandler handler: @escaping CMDeviceMotionHandler) {
        deviceMotionChannel.start(frame: .xArbitraryZVertical, queue: queue, handler: handler, showsMovementDisplay: showsDeviceMovementDisplay)
    }

    /// Starts device-motion updates in `referenceFrame` without a handler; read ``deviceMotion``.
    open func startDeviceMotionUpdates(using referenceFrame: CMAttitudeReferenceFrame) {
        deviceMotionChannel.start(frame: referenceFrame, queue: nil, handler: nil, showsMovementDisplay: showsDeviceMovementDisplay)
    }

    /// Starts device-motion updates in `referenceFrame`; `handler` runs on `queue` once per sample.
    /// Pick a frame from ``availableAttitudeReferenceFrames()``; with an unavailable frame the
    /// handler receives an error (`CMErrorTrueNorthNotAvailable` for true north without a location).
    open func startDeviceMotionUpdates(
        using referenceFrame: CMAttitudeReferenceFrame, to queue: OperationQueue, withHandler handler: @escaping CMDeviceMotionHandler
    ) {
        deviceMotionChannel.start(frame: referenceFrame, queue: queue, handler: handler, showsMovementDisplay: showsDeviceMovementDisplay)
    }

    /// Stops device-motion updates.
    open func stopDeviceMotionUpdates() { deviceMotionChannel.stop() }

    // MARK: Reference frames and settings

    /// The reference frames usable on this device now.
    open class func availableAttitudeReferenceFrames() -> CMAttitudeReferenceFrame {
        DeviceMotionChannel.availableFrames(on: MotionProviders.current)
    }

    /// The frame in use while device motion runs; after a stop, the last frame used; before any
    /// start, `.xArbitraryZVertical`.
    open var attitudeReferenceFrame: CMAttitudeReferenceFrame { deviceMotionChannel.frame }

    /// Whether the system may show its "move your device" calibration display. There is no such
    /// display on Linux; the value is kept, and the device-motion handler still receives
    /// `CMErrorDeviceRequiresMovement` once when the magnetometer needs movement to calibrate.
    open var showsDeviceMovementDisplay: Bool {
        get {
            settingsLock.lock()
            defer { settingsLock.unlock() }
            return storedShowsDeviceMovementDisplay
        }
        set {
            settingsLock.lock()
            storedShowsDeviceMovementDisplay = newValue
            settingsLock.unlock()
        }
    }

    /// A body (a view) to express device motion in. There are no such bodies on Linux: data stays in
    /// the device's frame, Apple's documented behaviour on platforms without support.
    open var deviceMotionBody: (any CMBodyIdentifiable)? {
        get {
            settingsLock.lock()
            defer { settingsLock.unlock() }
            return storedDeviceMotionBody
        }
        set {
            settingsLock.lock()
            storedDeviceMotionBody = newValue
            settingsLock.unlock()
        }
    }

    /// Authorization for motion data: through `coremotiond`, the daemon's decision for this user and app
    /// (`coremotion permissions`); in process `.authorized`, or the state `COREMOTION_AUTHORIZATION` names
    /// (to exercise an app's handling of the others).
    open class var authorizationStatus: CMAuthorizationStatus { Authorization.status }
}

/// Something that can serve as ``CMMotionManager/deviceMotionBody`` (a view, on Apple's platforms).
public protocol CMBodyIdentifiable: NSObjectProtocol {}
