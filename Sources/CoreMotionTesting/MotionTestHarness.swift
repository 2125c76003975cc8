import CoreMotion
import Foundation
import MotionRecordings
import MotionHistory
import MotionService
import MotionSimulator

/// Runs an app's unchanged Core Motion code against a recording, a simulator scene or any device, on a
/// virtual clock: time moves only when the test says so, every handler call up to that time has
/// happened when ``advance(by:timeout:)`` returns, and every run gives identical results.
///
/// ```swift
/// import CoreMotion
/// import CoreMotionTesting
/// import Testing
///
/// @Test func countsShakes() throws {
///     let harness = try MotionTestHarness(recording: URL(fileURLWithPath: "walk.cmrec"))
///     try harness.run {
///         let detector = ShakeDetector()      // app code: creates a CMMotionManager, starts updates
///         detector.start()
///         harness.advance(by: 60)             // one minute of recording, in milliseconds
///         #expect(detector.shakes == 0)
///     }
/// }
/// ```
///
/// Code inside ``run(_:)`` (and tasks it starts) that creates `CMMotionManager`, `CMPedometer`,
/// `CMMotionActivityManager` or `CMAltimeter` gets this harness's device; `CMHeadphoneMotionManager` and
/// `CMHeadphoneActivityManager` get its headphones (``init(headphoneScene:seed:device:clock:)``,
/// ``init(headphoneRecording:clock:speed:loop:)``). For code that creates them
/// on other threads, use ``installForProcess()`` instead (one harness per process at a time).
///
/// Handlers must run on an `OperationQueue` other than the thread that calls `advance` (for
/// example a queue of their own, or `.main` when the test itself runs off the main thread and the
/// main run loop is spinning).
public final class MotionTestHarness: Sendable {
    /// The virtual clock; starts at 1000 s "since boot" on 2025-01-01T00:00:00Z unless given.
    public let clock: VirtualClock
    /// The service the harness installs.
    public let service: MotionService
    /// The client interface the API talks to while the harness is installed: ``service`` itself.
    public var provider: any MotionProvider { service }

    /// A harness on any device that stamps its samples on `clock`, with headphones beside it if given (for
    /// `CMHeadphoneMotionManager` and `CMHeadphoneActivityManager`). Pedometer, activity and sensor-recorder
    /// history is kept in memory, private to the harness.
    public init(device: any MotionDevice, clock: VirtualClock, headphones: (any HeadphoneDevice)? = nil) {
        self.clock = clock
        self.service = MotionService(device: device, history: .inMemory, headphones: headphones)
    }

    /// A harness around a service made by the caller (for a device specification or history location
    /// of its own). The service's device must stamp its samples on `clock`.
    public init(service: MotionService, clock: VirtualClock) {
        self.clock = clock
        self.service = service
    }

    /// A harness that replays `recording` from the current virtual time.
    public convenience init(recording: Recording, clock: VirtualClock = VirtualClock(), speed: Double = 1, loop: Bool = false) {
        let device = ScheduledDevice(
            name: "replay:\(recording.metadata.source)", source: RecordingSource(recording), clock: clock, speed: speed, loop: loop
        )
        self.init(device: device, clock: clock)
    }

    /// A harness that replays the recording at `url` (any supported format; `PATH#MEMBER` selects one
    /// recording of an archive) from the current virtual time.
    public convenience init(recording url: URL, clock: VirtualClock = VirtualClock(), speed: Double = 1, loop: Bool = false) throws {
        try self.init(recording: RecordingReader.read(url), clock: clock, speed: speed, loop: loop)
    }

    /// A harness on the simulator: a named scene (`still-face-up`, `walking-in-hand`, … see
    /// `coremotion simulate --list`) or a scene file, with a seed for its sensor noise.
    public convenience init(scene: String, seed: UInt64 = 1, clock: VirtualClock = VirtualClock()) throws {
        let resolved = try SceneCatalog.resolve(scene)
        let simulation = try Simulation(scene: resolved, seed: seed)
        let device = ScheduledDevice(name: "sim:\(resolved.name) (seed \(seed))", source: simulation.makeSource(), clock: clock)
        self.init(device: device, clock: clock)
    }

    /// A harness with simulated headphones on a simulated head (`head-nod`, `head-shake`, `look-around`,
    /// `walk-head-turns`, `bud-out-and-in`, or a scene file), played from the current virtual time; the phone
    /// has no sensors unless `device` names a phone scene (`still-face-up`, …).
    public convenience init(headphoneScene: String, seed: UInt64 = 1, device phoneScene: String? = nil, clock: VirtualClock = VirtualClock()) throws {
        let scene = try HeadphoneSceneCatalog.resolve(headphoneScene)
        let headphones = ScheduledHeadphoneDevice(
            name: "sim:\(scene.name) (seed \(seed))", timeline: try HeadphoneSimulation(scene: scene, seed: seed).timeline(), clock: clock)
        let device: any MotionDevice
        if let phoneScene {
            let resolved = try SceneCatalog.resolve(phoneScene)
            device = ScheduledDevice(
                name: "sim:\(resolved.name) (seed \(seed))", source: try Simulation(scene: resolved, seed: seed).makeSource(), clock: clock)
        } else {
            device = NoDevice(clock: clock)
        }
        self.init(device: device, clock: clock, headphones: headphones)
    }

    /// A harness with headphones replaying the headphone recording at `url` (a Sensor Logger export with
    /// `Headphone.csv`, or a JSON-lines capture of `CMHeadphoneMotionManager`) from the current virtual time; the
    /// phone has no sensors.
    public convenience init(headphoneRecording url: URL, clock: VirtualClock = VirtualClock(), speed: Double = 1, loop: Bool = false) throws {
        let recording = try HeadphoneRecordingReader.read(url)
        let headphones = ScheduledHeadphoneDevice(
            name: "replay:\(url.path)", timeline: recording.timeline(loop: loop), clock: clock, speed: speed)
        self.init(device: NoDevice(clock: clock), clock: clock, headphones: headphones)
    }

    /// Where the device is, for the true-north frame (`COREMOTION_LOCATION` on a real run); `nil`
    /// (the default) leaves `.xTrueNorthZVertical` unavailable. Set it before starting updates.
    public var location: GeographicLocation? {
        get { service.location }
        set { service.location = newValue }
    }

    /// Places the device at a latitude and longitude (degrees) and altitude (metres) so that
    /// `.xTrueNorthZVertical` is available, as `COREMOTION_LOCATION=lat,lon,alt` does on a real run.
    public func setLocation(latitude: Double, longitude: Double, altitude: Double = 0) {
        service.location = GeographicLocation(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// The time on the virtual clock, seconds (the time base of `CMLogItem.timestamp`).
    public var now: TimeInterval { clock.now }

    /// The wall-clock date the virtual clock stands at (for pedometer and activity queries).
    public var date: Date { clock.date(at: clock.now) }

    /// Runs `body` with this harness as the motion service of the current task.
    public func run<R>(_ body: () throws -> R) rethrows -> R {
        try MotionProviderOverride.with(provider, operation: body)
    }

    /// Runs `body` with this harness as the motion service of the current task.
    public func run<R>(isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> R) async rethrows -> R {
        try await MotionProviderOverride.with(provider, isolation: isolation, operation: body)
    }

    /// Makes this harness the motion service of the whole process, until ``uninstall()``.
    public func installForProcess() { MotionProviderOverride.installForProcess(provider) }

    /// Removes a process-wide installation.
    public func uninstall() { MotionProviderOverride.installForProcess(nil) }

    /// Moves virtual time forward by `seconds`, delivers every sample due, and waits until every
    /// handler call they cause has run (or `timeout` real seconds pass; returns false then).
    @discardableResult
    public func advance(by seconds: TimeInterval, timeout: TimeInterval = 30) -> Bool {
        clock.advance(by: seconds)
        return service.deliveries.waitUntilDelivered(timeout: timeout)
    }
}
