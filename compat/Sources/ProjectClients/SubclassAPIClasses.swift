import CoreMotion

// Apps subclass Core Motion's classes: a singleton motion service, mocks for their tests, fake samples. On
// Apple's platforms these are plain NSObject subclasses (open, not Sendable), so such subclasses compile
// without a diagnostic in Swift 5 and Swift 6 language modes; the compat runner fails on any warning here.

/// The app's one motion manager, as Apple recommends ("create only one CMMotionManager object for your app").
final class MotionService: CMMotionManager {
    nonisolated(unsafe) static let shared = MotionService()

    private(set) var accelerometerStarts = 0
    var samplesSeen = 0

    override func startAccelerometerUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAccelerometerHandler) {
        accelerometerStarts += 1
        super.startAccelerometerUpdates(to: queue, withHandler: handler)
    }
}

/// A fake sample for the app's tests: stored `var`s, overridden read-only properties.
final class FakeAccelerometerData: CMAccelerometerData {
    var fakeAcceleration = CMAcceleration(x: 0, y: 0, z: -1)
    var fakeTimestamp: TimeInterval = 42
    override var acceleration: CMAcceleration { fakeAcceleration }
    override var timestamp: TimeInterval { fakeTimestamp }
}

final class StubPedometerData: CMPedometerData {
    var steps = 0
    override var numberOfSteps: NSNumber { NSNumber(value: steps) }
    override var distance: NSNumber? { NSNumber(value: Double(steps) * 0.7) }
}

/// The classic mock: records the queries and answers from a stub.
final class MockPedometer: CMPedometer {
    var stubbedSteps = 1234
    var queries: [(Date, Date)] = []

    override func queryPedometerData(from start: Date, to end: Date, withHandler handler: @escaping CMPedometerHandler) {
        queries.append((start, end))
        let data = StubPedometerData()
        data.steps = stubbedSteps
        handler(data, nil)
    }
}

final class MockAltimeter: CMAltimeter {
    var relativeStarts = 0
    override func startRelativeAltitudeUpdates(to queue: OperationQueue, withHandler handler: @escaping CMAltitudeHandler) {
        relativeStarts += 1
    }
}

final class MockActivityManager: CMMotionActivityManager {
    var running = false
    var delivered = 0
    override func startActivityUpdates(to queue: OperationQueue, withHandler handler: @escaping CMMotionActivityHandler) {
        running = true
        handler(nil)
    }
    override func stopActivityUpdates() { running = false }
}

final class MockSensorRecorder: CMSensorRecorder {
    var requested: TimeInterval = 0
    override func recordAccelerometer(forDuration duration: TimeInterval) { requested += duration }
}

final class FakeAttitude: CMAttitude {
    var fakeYaw = 0.5
    override var yaw: Double { fakeYaw }
}

final class FakeDeviceMotion: CMDeviceMotion {
    var fakeAttitude = FakeAttitude()
    override var attitude: CMAttitude { fakeAttitude }
}

/// A main-actor singleton, the other way apps keep one manager in Swift 6.
@MainActor
enum Sensors {
    static let altimeter = MockAltimeter()
}

/// Apple's enums are imported NS_ENUMs, not `@frozen`, so apps switch over them with `@unknown default`; that
/// must compile here without a diagnostic too.
func describe(_ status: CMAuthorizationStatus) -> String {
    switch status {
    case .notDetermined: return "not determined"
    case .restricted: return "restricted"
    case .denied: return "denied"
    case .authorized: return "authorized"
    @unknown default: return "unknown"
    }
}

/// What the task found, read back by the main thread.
final class TaskOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    func set(_ key: String, _ value: Int) {
        lock.lock()
        values[key] = value
        lock.unlock()
    }

    func value(_ key: String) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return values[key] ?? -1
    }
}

func subclassAPIClasses(_ e: Expectations) {
    // The singleton, from the main thread: push updates through the overridden start.
    let service = MotionService.shared
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let received = TaskOutcome()
    service.accelerometerUpdateInterval = 0.02
    service.startAccelerometerUpdates(to: queue) { data, _ in
        if data != nil { received.set("samples", received.value("samples") + 1) }
    }
    Thread.sleep(forTimeInterval: 0.5)
    service.stopAccelerometerUpdates()
    queue.waitUntilAllOperationsAreFinished()
    service.samplesSeen = received.value("samples")
    e.check(service.accelerometerStarts == 1, "the overridden start ran \(service.accelerometerStarts) times")
    e.check(service.samplesSeen >= 10, "\(service.samplesSeen) samples in 0.5 s at 50 Hz through the subclass")

    // The mocks, from the main thread.
    let pedometer = MockPedometer()
    pedometer.stubbedSteps = 321
    var steps = -1
    pedometer.queryPedometerData(from: Date(timeIntervalSinceNow: -3600), to: Date()) { data, error in
        steps = data?.numberOfSteps.intValue ?? (error == nil ? -2 : -3)
    }
    e.check(steps == 321 && pedometer.queries.count == 1, "mock pedometer answered \(steps) after \(pedometer.queries.count) queries")

    let fake = FakeAccelerometerData()
    fake.fakeAcceleration.x = 0.25
    let sample: CMAccelerometerData = fake
    e.check(sample.acceleration.x == 0.25 && sample.timestamp == 42, "the fake sample's overrides")
    let motion = FakeDeviceMotion()
    motion.fakeAttitude.fakeYaw = 1.25
    e.check(motion.attitude.yaw == 1.25, "the fake device motion's attitude")

    let recorder = MockSensorRecorder()
    recorder.recordAccelerometer(forDuration: 60)
    e.check(recorder.requested == 60, "mock recorder")

    let activity = MockActivityManager()
    activity.startActivityUpdates(to: OperationQueue()) { _ in activity.delivered += 1 }
    e.check(activity.running && activity.delivered == 1, "mock activity manager")
    activity.stopActivityUpdates()

    MainActor.assumeIsolated {
        Sensors.altimeter.startRelativeAltitudeUpdates(to: .main) { _, _ in }
    }
    let altimeterStarts = MainActor.assumeIsolated { Sensors.altimeter.relativeStarts }
    e.check(altimeterStarts == 1, "main-actor singleton altimeter")

    // From a task: the app makes and uses its objects there (they are not Sendable, so they stay in the task).
    let outcome = TaskOutcome()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let manager = MotionService()
        manager.accelerometerUpdateInterval = 0.02
        manager.startAccelerometerUpdates()
        try? await Task.sleep(nanoseconds: 300_000_000)
        outcome.set("pull", manager.accelerometerData == nil ? 0 : 1)
        manager.stopAccelerometerUpdates()
        let mock = MockPedometer()
        mock.stubbedSteps = 7
        mock.queryPedometerData(from: Date(timeIntervalSinceNow: -60), to: Date()) { data, _ in
            outcome.set("steps", data?.numberOfSteps.intValue ?? -1)
        }
        done.signal()
    }
    e.check(done.wait(timeout: .now() + 10) == .success, "the task never finished")
    e.check(outcome.value("pull") == 1, "no accelerometerData in a task after 0.3 s")
    e.check(outcome.value("steps") == 7, "mock pedometer in a task answered \(outcome.value("steps"))")
    e.check(describe(CMPedometer.authorizationStatus()) == "authorized", "authorization \(describe(CMPedometer.authorizationStatus()))")
    e.note("\(service.samplesSeen) samples through MotionService.shared; mocks and a task fine")
}
