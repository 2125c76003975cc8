import Foundation
import MotionClient

/// High-rate accelerometer and device-motion data delivered in batches of about one second.
///
/// Apple offers this on watchOS during a workout (about 800 Hz accelerometer, 200 Hz device motion).
/// Here it runs on any device, at the device's fastest rate, without a workout session; a batch holds
/// the samples of one second of device time.
open class CMBatchedSensorManager: NSObject {
    let provider: any MotionProvider
    /// The streams and latest batches, shared with the streams' delivery queue (which never sees the
    /// non-`Sendable` manager itself).
    private let state = BatchedSensorState()

    /// A manager on the process's motion service.
    public override init() {
        provider = MotionProviders.current
        super.init()
    }

    deinit {
        state.stopAccelerometer()
        state.stopDeviceMotion()
    }

    /// Authorization: the daemon's decision for this user and app, or `.authorized` in process
    /// (<doc:PortingAnIOSApp#Authorization>).
    open class var authorizationStatus: CMAuthorizationStatus { Authorization.status }
    /// Whether batched accelerometer data is supported: the device needs an accelerometer.
    open class var isAccelerometerSupported: Bool { MotionProviders.current.has(.accelerometer) }
    /// Whether batched device motion is supported: the device needs an accelerometer and a gyroscope.
    open class var isDeviceMotionSupported: Bool {
        DeviceMotionChannel.isSupported(on: MotionProviders.current)
    }

    /// Whether accelerometer batches are being collected.
    open var isAccelerometerActive: Bool { state.isAccelerometerActive }

    /// Whether device-motion batches are being collected.
    open var isDeviceMotionActive: Bool { state.isDeviceMotionActive }

    /// Accelerometer sample rate of the batches, Hz (the device's fastest rate; 0 without one).
    open var accelerometerDataFrequency: Int {
        Int((provider.sensorDescription(.accelerometer)?.maximumRate ?? 0).rounded())
    }

    /// Device-motion sample rate of the batches, Hz.
    open var deviceMotionDataFrequency: Int {
        DeviceMotionChannel.isSupported(on: provider) ? accelerometerDataFrequency : 0
    }

    /// The latest accelerometer batch, `nil` before the first.
    open var accelerometerBatch: [CMAccelerometerData]? { state.accelerometerBatch }

    /// The latest device-motion batch, `nil` before the first.
    open var deviceMotionBatch: [CMDeviceMotion]? { state.deviceMotionBatch }

    /// Starts collecting accelerometer batches; read ``accelerometerBatch``.
    open func startAccelerometerUpdates() { state.startAccelerometer(provider: provider, handler: nil) }

    /// Starts collecting accelerometer batches; `handler` runs on an internal serial queue per batch.
    open func startAccelerometerUpdates(handler: @escaping ([CMAccelerometerData]?, (any Error)?) -> Void) {
        let box = UncheckedBox(handler)
        state.startAccelerometer(provider: provider) { batch in box.value(batch, nil) }
    }

    /// Stops accelerometer batches.
    open func stopAccelerometerUpdates() { state.stopAccelerometer() }

    /// Starts collecting device-motion batches; read ``deviceMotionBatch``.
    open func startDeviceMotionUpdates() { state.startDeviceMotion(provider: provider, handler: nil) }

    /// Starts collecting device-motion batches; `handler` runs on an internal serial queue per batch.
    open func startDeviceMotionUpdates(handler: @escaping ([CMDeviceMotion]?, (any Error)?) -> Void) {
        let box = UncheckedBox(handler)
        state.startDeviceMotion(provider: provider) { batch in box.value(batch, nil) }
    }

    /// Stops device-motion batches.
    open func stopDeviceMotionUpdates() { state.stopDeviceMotion() }

    /// Accelerometer batches as an asynchronous sequence; iteration ends when the task is cancelled
    /// or the loop exits. Each call starts its own stream.
    open func accelerometerUpdates() -> AccelerometerUpdates { AccelerometerUpdates(provider: provider) }

    /// Device-motion batches as an asynchronous sequence.
    open func deviceMotionUpdates() -> DeviceMotionUpdates { DeviceMotionUpdates(provider: provider) }

    /// Accelerometer batches, about one per second of data. Not `Sendable`, as in Apple's Swift overlay
    /// (`CoreMotion.swiftinterface` declares `struct AccelerometerUpdates : AsyncSequence`).
    public struct AccelerometerUpdates: AsyncSequence {
        /// One batch: about one second of accelerometer samples, oldest first.
        public typealias Element = [CMAccelerometerData]
        let provider: any MotionProvider

        /// Iterates over the batches of one stream, which starts when the iterator is made.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<UncheckedBox<[CMAccelerometerData]>, any Error>.Iterator
            /// The next batch; waits for it. Throws `CMErrorNotAvailable` without an accelerometer; `nil`
            /// when the stream ends.
            public mutating func next() async throws -> [CMAccelerometerData]? { try await base.next()?.value }
        }

        /// Starts a stream of its own and returns its iterator; the stream stops when the iteration ends
        /// or its task is cancelled.
        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncThrowingStream<UncheckedBox<[CMAccelerometerData]>, any Error>.makeStream(
                bufferingPolicy: .unbounded)
            let batches = BatchStream<CMAccelerometerData>(provider: provider) { continuation.yield($0) }
            continuation.onTermination = { _ in batches.stop() }
            if provider.has(.accelerometer) {
                batches.start(sensor: .accelerometer, convert: BatchedSensorState.accelerometerData)
            } else {
                continuation.finish(throwing: CMErrorNotAvailable.error("the device has no accelerometer"))
            }
            return Iterator(base: stream.makeAsyncIterator())
        }
    }

    /// Device-motion batches, about one per second of data. Not `Sendable`, as in Apple's Swift overlay.
    public struct DeviceMotionUpdates: AsyncSequence {
        /// One batch: about one second of device-motion samples, oldest first.
        public typealias Element = [CMDeviceMotion]
        let provider: any MotionProvider

        /// Iterates over the batches of one stream, which starts when the iterator is made.
        public struct Iterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<UncheckedBox<[CMDeviceMotion]>, any Error>.Iterator
            /// The next batch; waits for it. Throws `CMErrorNotAvailable` without an accelerometer and a
            /// gyroscope; `nil` when the stream ends.
            public mutating func next() async throws -> [CMDeviceMotion]? { try await base.next()?.value }
        }

        /// Starts a stream of its own and returns its iterator; the stream stops when the iteration ends
        /// or its task is cancelled.
        public func makeAsyncIterator() -> Iterator {
            let (stream, continuation) = AsyncThrowingStream<UncheckedBox<[CMDeviceMotion]>, any Error>.makeStream(
                bufferingPolicy: .unbounded)
            let batches = BatchStream<CMDeviceMotion>(provider: provider) { continuation.yield($0) }
            continuation.onTermination = { _ in batches.stop() }
            if DeviceMotionChannel.isSupported(on: provider) {
                batches.startDeviceMotion()
            } else {
                continuation.finish(throwing: CMErrorNotAvailable.error("device motion is not available on this device"))
            }
            return Iterator(base: stream.makeAsyncIterator())
        }
    }
}

/// The state of a ``CMBatchedSensorManager``: its two streams and their latest batches, guarded by a lock.
/// The streams' delivery captures this object, never the manager.
final class BatchedSensorState: @unchecked Sendable {  // @unchecked: its streams and latest batches are read and written only under `lock`
    private let lock = NSLock()
    private var accelerometerStream: BatchStream<CMAccelerometerData>?
    private var deviceMotionStream: BatchStream<CMDeviceMotion>?
    private var latestAccelerometerBatch: [CMAccelerometerData]?
    private var latestDeviceMotionBatch: [CMDeviceMotion]?

    @Sendable static func accelerometerData(_ sample: SensorSample) -> CMAccelerometerData? {
        guard case .accelerometer(let v) = sample else { return nil }
        return CMAccelerometerData(acceleration: CMAcceleration(x: v.value.x, y: v.value.y, z: v.value.z), timestamp: v.time)
    }

    var isAccelerometerActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return accelerometerStream != nil
    }

    var isDeviceMotionActive: Bool {
        lock.lock()
        defer { lock.unlock() }
        return deviceMotionStream != nil
    }

    var accelerometerBatch: [CMAccelerometerData]? {
        lock.lock()
        defer { lock.unlock() }
        return latestAccelerometerBatch
    }

    var deviceMotionBatch: [CMDeviceMotion]? {
        lock.lock()
        defer { lock.unlock() }
        return latestDeviceMotionBatch
    }

    func startAccelerometer(provider: any MotionProvider, handler: (@Sendable ([CMAccelerometerData]) -> Void)?) {
        stopAccelerometer()
        guard provider.has(.accelerometer) else { return }
        let stream = BatchStream<CMAccelerometerData>(provider: provider) { [weak self] box in
            guard let self else { return }
            self.lock.lock()
            self.latestAccelerometerBatch = box.value
            self.lock.unlock()
            handler?(box.value)
        }
        lock.lock()
        accelerometerStream = stream
        lock.unlock()
        stream.start(sensor: .accelerometer, convert: Self.accelerometerData)
    }

    func stopAccelerometer() {
        lock.lock()
        let stream = accelerometerStream
        accelerometerStream = nil
        lock.unlock()
        stream?.stop()
    }

    func startDeviceMotion(provider: any MotionProvider, handler: (@Sendable ([CMDeviceMotion]) -> Void)?) {
        stopDeviceMotion()
        guard DeviceMotionChannel.isSupported(on: provider) else { return }
        let stream = BatchStream<CMDeviceMotion>(provider: provider) { [weak self] box in
            guard let self else { return }
            self.lock.lock()
            self.latestDeviceMotionBatch = box.value
            self.lock.unlock()
            handler?(box.value)
        }
        lock.lock()
        deviceMotionStream = stream
        lock.unlock()
        stream.startDeviceMotion()
    }

    func stopDeviceMotion() {
        lock.lock()
        let stream = deviceMotionStream
        deviceMotionStream = nil
        lock.unlock()
        stream?.stop()
    }
}

/// Collects samples into one-second batches and hands each batch to `emit` on a serial queue.
final class BatchStream<Item: CMLogItem>: @unchecked Sendable {  // @unchecked: `pending`, `subscription`, `deviceMotion` are guarded by `lock`; `delivery` is a `let`
    private let provider: any MotionProvider
    private let lock = NSLock()
    private var pending: [Item] = []
    private var subscription: (any MotionSubscription)?
    private var deviceMotion: DeviceMotionChannel?
    private let delivery: QueueDelivery<UncheckedBox<[Item]>>
    static var batchSpan: TimeInterval { 1.0 }

    init(provider: any MotionProvider, emit: @escaping @Sendable (UncheckedBox<[Item]>) -> Void) {
        self.provider = provider
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "coremotion.batched"
        delivery = QueueDelivery(queue: queue, label: "batch", handler: emit)
        provider.deliveries.track(delivery)
    }

    func start(sensor: SensorKind, convert: @escaping @Sendable (SensorSample) -> Item?) {
        let s = provider.subscribe(to: sensor, interval: 0) { [weak self] sample in
            if let item = convert(sample) { self?.add(item) }
        }
        lock.lock()
        subscription = s
        lock.unlock()
    }

    func startDeviceMotion() {
        let channel = DeviceMotionChannel(provider: provider)
        channel.setInterval(0)
        lock.lock()
        deviceMotion = channel
        lock.unlock()
        channel.startInternal(frame: .xArbitraryZVertical) { [weak self] motion in
            if let item = motion as? Item { self?.add(item) }
        }
    }

    private func add(_ item: Item) {
        lock.lock()
        pending.append(item)
        var batch: [Item]?
        if let first = pending.first, item.timestamp - first.timestamp >= Self.batchSpan - 1e-6 {
            batch = pending
            pending.removeAll(keepingCapacity: true)
        }
        lock.unlock()
        if let batch { delivery.deliver(UncheckedBox(batch)) }
    }

    func stop() {
        lock.lock()
        let s = subscription
        subscription = nil
        let channel = deviceMotion
        deviceMotion = nil
        lock.unlock()
        s?.cancel()
        channel?.stop()
        delivery.cancel()
        provider.deliveries.untrack(delivery)
    }
}
