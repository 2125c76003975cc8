import Foundation
import MotionService
import Testing
import TestSupport

@Suite("COREMOTION_DEVICE parsing and device selection")
struct DeviceSpecificationTests {
    @Test("accepted forms")
    func acceptedForms() throws {
        #expect(try DeviceSpecification.parse("") == .auto)
        #expect(try DeviceSpecification.parse("auto") == .auto)
        #expect(try DeviceSpecification.parse("none") == .none)
        #expect(try DeviceSpecification.parse("iio") == .iio(root: nil))
        #expect(try DeviceSpecification.parse("iio:/tmp/tree") == .iio(root: "/tmp/tree"))
        #expect(try DeviceSpecification.parse("replay:/data/walk.zip") == .replay(path: "/data/walk.zip", speed: 1, loop: false))
        #expect(try DeviceSpecification.parse("replay:/data/walk.zip?speed=4&loop=true") == .replay(path: "/data/walk.zip", speed: 4, loop: true))
        #expect(try DeviceSpecification.parse("replay:C:weird:path?speed=0.5") == .replay(path: "C:weird:path", speed: 0.5, loop: false))
        #expect(try DeviceSpecification.parse("sim:walking-in-hand") == .simulator(scene: "walking-in-hand", seed: 1, speed: 1))
        #expect(try DeviceSpecification.parse("sim:/s/scene.json?seed=7&speed=2") == .simulator(scene: "/s/scene.json", seed: 7, speed: 2))
    }

    @Test("malformed values fail with the reason and the list of accepted forms", arguments: [
        "replay", "replay:", "replay:/x?speed=0", "replay:/x?speed=fast", "replay:/x?loop=maybe", "replay:/x?colour=red",
        "sim:", "sim:walking?seed=-1", "iio:/x?fast=1", "bluetooth:phone", "nonsense", "replay:/x?speed=1&speed=2",
    ])
    func malformed(_ value: String) {
        do {
            _ = try DeviceSpecification.parse(value)
            Issue.record("\(value) was accepted")
        } catch let error as DeviceSpecificationError {
            let text = "\(error)"
            #expect(text.contains("COREMOTION_DEVICE=\"\(value)\""))
            #expect(text.contains("replay:PATH") && text.contains("sim:SCENE") && text.contains("iio") && text.contains("none"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("devices that cannot be opened fail with a clear reason, never fall back")
    func unopenable() {
        for value in ["replay:/nonexistent/walk.zip", "sim:no-such-scene", "iio:/nonexistent/tree"] {
            do {
                _ = try MotionService.fromEnvironment(["COREMOTION_DEVICE": value])
                Issue.record("\(value) was opened")
            } catch let error as DeviceSpecificationError {
                #expect(!error.reason.isEmpty)
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test("none and replay devices open; replay of a fixture reports its sensors")
    func opens() throws {
        let none = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "none"])
        #expect(none.device.sensors.isEmpty)
        let path = TestData.fixture("recordings/broad/broad-01-excerpt.csv").path
        let replay = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "replay:\(path)?speed=2"])
        #expect(Set(replay.device.sensors.keys) == [.accelerometer, .gyroscope, .magnetometer])
        let sim = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "sim:stairs?seed=3"])
        #expect(sim.has(.barometer))
    }
}
