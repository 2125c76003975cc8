import Foundation
import MotionDevices
import MotionEngine
import MotionService
import MotionSimulator
import Testing
import TestSupport

@Suite("COREMOTION_HEADPHONE_DEVICE and the service's headphones")
struct HeadphoneServiceTests {
    @Test("the forms of COREMOTION_DEVICE, naming headphone sources")
    func forms() throws {
        #expect(try HeadphoneDeviceSpecification.parse("") == .none)
        #expect(try HeadphoneDeviceSpecification.parse("none") == .none)
        #expect(try HeadphoneDeviceSpecification.parse("auto") == .none)
        #expect(try HeadphoneDeviceSpecification.parse("replay:/data/airpods.jsonl?speed=2&loop=true")
            == .replay(path: "/data/airpods.jsonl", speed: 2, loop: true))
        #expect(try HeadphoneDeviceSpecification.parse("sim:head-shake?seed=3") == .simulator(scene: "head-shake", seed: 3, speed: 1))
        #expect(try HeadphoneDeviceSpecification.parse("sim:/tmp/my-head.json") == .simulator(scene: "/tmp/my-head.json", seed: 1, speed: 1))
        #expect(try HeadphoneDeviceSpecification.parse("iio:/tmp/fake") == .iio(root: "/tmp/fake"))
        #expect(try HeadphoneDeviceSpecification.parse("iio") == .iio(root: nil))
        #expect(try HeadphoneDeviceSpecification.parse("sensorlogger:0.0.0.0:8000") == .sensorLogger(host: "0.0.0.0", port: 8000))
        #expect(try HeadphoneDeviceSpecification.parse("sensorlogger:[::1]:8000") == .sensorLogger(host: "::1", port: 8000))
        #expect(HeadphoneDeviceSpecification.sensorLogger(host: "::1", port: 8000).description == "sensorlogger:[::1]:8000")
        #expect(try HeadphoneDeviceSpecification.fromEnvironment(["COREMOTION_HEADPHONE_DEVICE": "sim:head-nod"]) == .simulator(scene: "head-nod", seed: 1, speed: 1))
    }

    @Test("misspellings name the closest choices and this variable", arguments: [
        ("sim:head-shak", "did you mean 'head-shake'?"),
        ("sim:walking-in-hand", "unknown scene 'walking-in-hand'"),
        ("replya:/x", "did you mean 'replay:'?"),
        ("sensorloger:host:1", "did you mean 'sensorlogger:'?"),
        ("sim:head-nod?sped=2", "'speed'?"),
        ("service", "coremotiond --headphone-device"),
        ("sensorlogger:host:99999", "port must be a number from 1 to 65535"),
        ("sensorlogger:8000", "needs HOST:PORT"),
    ])
    func misspellings(_ value: String, _ expected: String) {
        do {
            _ = try HeadphoneDeviceSpecification.parse(value)
            Issue.record("\(value) was accepted")
        } catch {
            let text = "\(error)"
            #expect(text.contains(expected), "\(text)")
            #expect(text.hasPrefix("COREMOTION_HEADPHONE_DEVICE=\"\(value)\""))
            #expect(text.contains("accepted forms of COREMOTION_HEADPHONE_DEVICE"))
        }
    }

    @Test("the phone's variable keeps its own name, scenes and kinds")
    func phoneUnchanged() {
        #expect(throws: DeviceSpecificationError.self) { try DeviceSpecification.parse("sim:head-nod") }
        do {
            _ = try DeviceSpecification.parse("sensorlogger:host:1")
        } catch {
            #expect("\(error)".hasPrefix("COREMOTION_DEVICE="))
            #expect(!"\(error)".contains("COREMOTION_HEADPHONE_DEVICE"))
        }
    }

    @Test("the live Sensor Logger source beyond loopback wants the phone's token; a missing recording is named")
    func factory() throws {
        do {
            _ = try HeadphoneDeviceFactory.makeDevice(.sensorLogger(host: "0.0.0.0", port: 8000), clock: VirtualClock())
            Issue.record("listened beyond loopback without a token")
        } catch {
            #expect("\(error)".contains("token"))
        }
        #expect(throws: DeviceSpecificationError.self) {
            try HeadphoneDeviceFactory.makeDevice(.replay(path: "/nonexistent/airpods.jsonl", speed: 1, loop: false), clock: VirtualClock())
        }
        #expect(try HeadphoneDeviceFactory.makeDevice(.none, clock: VirtualClock()) == nil)
        let replay = try HeadphoneDeviceFactory.makeDevice(
            .replay(path: TestData.fixture("headphones/airpods-head-shake-excerpt.jsonl").path, speed: 1, loop: false), clock: VirtualClock())
        #expect(abs((replay?.rate ?? 0) - 50) < 1e-3)
        let service = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "none", "COREMOTION_HEADPHONE_DEVICE": "sim:head-nod"])
        #expect(service.isHeadphoneMotionAvailable)
        #expect(try DeviceSelection.fromEnvironment(["COREMOTION_DEVICE": "none", "COREMOTION_HEADPHONE_DEVICE": "sim:head-nod"])
            .headphoneSpecification == .simulator(scene: "head-nod", seed: 1, speed: 1))
        #expect(throws: DeviceSpecificationError.self) {
            try MotionService.fromEnvironment(["COREMOTION_DEVICE": "none", "COREMOTION_HEADPHONE_DEVICE": "sim:nope"])
        }
    }

    @Test("a raw head IMU fused here (6D): connected with its samples, attitude anchored, within 2° of the truth")
    func fusedHeadIMU() throws {
        let clock = VirtualClock()
        let scene = try HeadphoneSceneCatalog.scene(named: "look-around")
        let simulation = try Simulation(scene: scene.scene, seed: 2)
        let imu = ScheduledDevice(name: "head IMU", source: simulation.makeSource(), clock: clock)
        let headphones = try FusedHeadphoneDevice(imu: imu)
        #expect(headphones.rate == 100)
        let service = MotionService(device: NoDevice(clock: clock), history: .inMemory, headphones: headphones)
        let log = HeadphoneLog()
        let connection = try #require(service.subscribeHeadphoneConnection { log.connection($0) })
        let motion = try #require(service.subscribeHeadphoneMotion { log.motion($0) })
        let start = clock.now
        clock.advance(by: 14)
        motion.cancel()
        connection.cancel()
        #expect(log.states.map(\.isConnected) == [false, true])
        let samples = log.samples
        #expect(samples.count > 1300)
        #expect(abs(samples[0].attitude.z) < 1e-12)
        // Against the truth anchored the same way, after 2 s of convergence.
        let truthAnchor = simulation.truth(at: samples[0].time - start).attitude.verticalTwist
        var worst = 0.0
        for s in samples where s.time - start > 2 {
            let truth = truthAnchor.conjugate * simulation.truth(at: s.time - start).attitude
            worst = max(worst, s.attitude.angle(to: truth))
        }
        #expect(worst * 180 / .pi < 2, "worst \(worst * 180 / .pi)°")
    }

    @Test("activity from headphone motion: walking in the walk, none while shaking, stationary when still")
    func activity() throws {
        func reports(_ name: String, seconds: Double) throws -> [ActivityFlags] {
            let clock = VirtualClock()
            let timeline = try HeadphoneSimulation(scene: HeadphoneSceneCatalog.scene(named: name)).timeline()
            let service = MotionService(
                device: NoDevice(clock: clock), history: .inMemory,
                headphones: ScheduledHeadphoneDevice(name: name, timeline: timeline, clock: clock))
            let log = HeadphoneLog()
            let s = try #require(service.subscribeHeadphoneActivity { log.activity($0) })
            clock.advance(by: seconds)
            s.cancel()
            return log.activities.map(\.flags)
        }
        let walk = try reports("walk-head-turns", seconds: 28)
        #expect(walk.contains(.walking))
        #expect(!walk.contains(.running))
        let shake = try reports("head-shake", seconds: 12)
        #expect(shake.contains([]))
        #expect(shake.contains(.stationary))
        #expect(!shake.contains(.walking))
    }
}

/// Collects a service's headphone streams.
final class HeadphoneLog: @unchecked Sendable {
    private let lock = NSLock()
    private var stateList: [HeadphoneConnectionState] = []
    private var sampleList: [HeadphoneMotionSample] = []
    private var activityList: [ActivityReport] = []
    func connection(_ s: HeadphoneConnectionState) { lock.lock(); stateList.append(s); lock.unlock() }
    func motion(_ s: HeadphoneMotionSample) { lock.lock(); sampleList.append(s); lock.unlock() }
    func activity(_ a: ActivityReport) { lock.lock(); activityList.append(a); lock.unlock() }
    var states: [HeadphoneConnectionState] { lock.lock(); defer { lock.unlock() }; return stateList }
    var samples: [HeadphoneMotionSample] { lock.lock(); defer { lock.unlock() }; return sampleList }
    var activities: [ActivityReport] { lock.lock(); defer { lock.unlock() }; return activityList }
}
