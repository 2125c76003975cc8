import Foundation
import MotionDevices
import MotionService
import MotionSimulator
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

    @Test("a misspelt scene, kind, option or word names what was meant, lists the choices, and still fails", arguments: [
        ("sim:walking", "unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, still-upright, "),
        ("sim:walkign-in-hand?seed=3", "did you mean 'walking-in-hand'?"),
        ("sim:Car", "unknown scene 'Car'; did you mean 'car'?"),
        ("sim:moonwalk", "unknown scene 'moonwalk'; scenes: still-face-up, "),
        ("replya:/data/walk.zip", "unknown device kind 'replya:'; did you mean 'replay:'? device kinds: replay:, sim:, iio:, service:"),
        ("SIM:car", "did you mean 'sim:'?"),
        ("bluetooth:phone", "unknown device kind 'bluetooth:'; device kinds: replay:, sim:, iio:, service:"),
        ("replay:/data/walk.zip?sped=2", "unknown option 'sped'; did you mean 'speed'? options of replay: loop, speed"),
        ("replay:/data/walk.zip?lop=true", "did you mean 'loop'?"),
        ("replay:/data/walk.zip?loop=ture", "loop must be true or false, found 'ture'; did you mean 'true'?"),
        ("sim:car?sede=3", "unknown option 'sede'; did you mean 'seed'? options of sim: seed, speed"),
        ("nonee", "unknown device 'nonee'; did you mean 'none'? devices: auto, none, iio, service, replay:, sim:"),
        ("Auto", "did you mean 'auto'?"),
        ("servise", "did you mean 'service'?"),
        ("/data/walk.zip", "unknown device '/data/walk.zip'; did you mean 'replay:/data/walk.zip'?"),
        ("sim", "sim needs a scene: sim:SCENE"),
        ("replay", "replay needs a recording: replay:PATH"),
    ])
    func didYouMean(_ value: String, _ phrase: String) {
        do {
            let parsed = try DeviceSpecification.parse(value)
            Issue.record("\(value) was accepted as \(parsed)")
        } catch let error as DeviceSpecificationError {
            let text = "\(error)"
            #expect(text.contains("COREMOTION_DEVICE=\"\(value)\": "), "\(text)")
            #expect(text.contains(phrase), "\(text)")
            #expect(text.contains("accepted forms of COREMOTION_DEVICE"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("a scene file is not checked against the named scenes when parsed (it is read when the device is made)")
    func sceneFilesParse() throws {
        #expect(try DeviceSpecification.parse("sim:walking.json") == .simulator(scene: "walking.json", seed: 1, speed: 1))
        #expect(try DeviceSpecification.parse("sim:./walking") == .simulator(scene: "./walking", seed: 1, speed: 1))
        // Every named scene parses.
        for name in SceneCatalog.names {
            #expect(try DeviceSpecification.parse("sim:\(name)") == .simulator(scene: name, seed: 1, speed: 1))
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
