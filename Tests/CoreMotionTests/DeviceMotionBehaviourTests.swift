import CoreMotion
import CoreMotionTesting
import Foundation
import MotionHistory
import MotionService
import MotionSimulator
import Testing
import TestSupport

@Suite("CMMotionManager device motion on a virtual clock")
struct DeviceMotionBehaviourTests {
    /// 20 s of BROAD trial 01 (accelerometer, gyroscope, magnetometer; CC BY 4.0) as a fixture.
    static let broad = TestData.fixture("recordings/broad/broad-01-excerpt.csv")
    /// 20 s of a MotionSense walk (no magnetometer; MIT).
    static let motionSense = TestData.fixture(
        "recordings/motionsense/motionsense-excerpt.zip#A_DeviceMotion_data_subset/wlk_7/sub_1.csv")

    @Test("availability needs an accelerometer and a gyroscope; frames follow the magnetometer and the location")
    func availability() throws {
        let nine = try MotionTestHarness(recording: Self.broad)
        nine.run {
            let m = CMMotionManager()
            #expect(m.isDeviceMotionAvailable)
            let frames = CMMotionManager.availableAttitudeReferenceFrames()
            #expect(frames.contains([.xArbitraryZVertical, .xArbitraryCorrectedZVertical, .xMagneticNorthZVertical]))
        }
        let six = try MotionTestHarness(recording: Self.motionSense)
        six.run {
            #expect(CMMotionManager().isDeviceMotionAvailable)
            #expect(CMMotionManager.availableAttitudeReferenceFrames() == .xArbitraryZVertical)
        }
        let accelOnly = syntheticHarness([.accelerometer: 100])
        accelOnly.run {
            #expect(!CMMotionManager().isDeviceMotionAvailable)
            #expect(CMMotionManager.availableAttitudeReferenceFrames().isEmpty)
        }
    }

    @Test("gravity + userAcceleration is the raw sample; |gravity| = 1; gravity agrees with the attitude")
    func partition() throws {
        let h = try MotionTestHarness(recording: Self.broad)
        try h.run {
            let m = CMMotionManager()
            let raw = Recorder<CMAccelerometerData>()
            let fused = Recorder<CMDeviceMotion>()
            let q = serialQueue()
            m.accelerometerUpdateInterval = 0
            m.deviceMotionUpdateInterval = 0
            m.startAccelerometerUpdates(to: q) { d, _ in if let d { raw.append(d) } }
            m.startDeviceMotionUpdates(to: q) { d, _ in if let d { fused.append(d) } }
            h.advance(by: 5)
            m.stopDeviceMotionUpdates()
            m.stopAccelerometerUpdates()
            let samples = raw.all
            let motions = fused.all
            #expect(motions.count > 1000)  // 285.7 Hz for 5 s
            // Each device-motion sample partitions one raw sample exactly (stamped 1.75 ms after it here).
            var matched = 0
            var index = 0
            for dm in motions {
                while index < samples.count && samples[index].timestamp < dm.timestamp - 0.003 { index += 1 }
                guard index < samples.count else { break }
                let a = samples[index].acceleration
                let sum = (dm.gravity.x + dm.userAcceleration.x, dm.gravity.y + dm.userAcceleration.y, dm.gravity.z + dm.userAcceleration.z)
                if sum.0 == a.x && sum.1 == a.y && sum.2 == a.z { matched += 1 }
                let g = dm.gravity
                let n = (g.x * g.x + g.y * g.y + g.z * g.z).squareRoot()
                #expect(abs(n - 1) < 1e-9)
                let qa = dm.attitude.quaternion
                let gz = -(1 - 2 * (qa.x * qa.x + qa.y * qa.y))
                #expect(abs(gz - g.z) < 1e-9)
            }
            #expect(matched == motions.count)
            let first = try #require(motions.first)
            #expect(first.heading < 0)  // arbitrary frame
            #expect(first.sensorLocation == .default)
        }
    }

    @Test("attitudeReferenceFrame: default before start, the frame in use, kept after stop")
    func frameProperty() throws {
        let h = try MotionTestHarness(recording: Self.broad)
        h.run {
            let m = CMMotionManager()
            #expect(m.attitudeReferenceFrame == .xArbitraryZVertical)
            #expect(m.deviceMotion == nil)
            m.startDeviceMotionUpdates(using: .xMagneticNorthZVertical)
            #expect(m.isDeviceMotionActive)
            #expect(m.attitudeReferenceFrame == .xMagneticNorthZVertical)
            #expect(m.deviceMotion == nil)
            h.advance(by: 2)
            let heading = m.deviceMotion?.heading ?? -1
            #expect(heading >= 0 && heading < 360)
            m.stopDeviceMotionUpdates()
            #expect(!m.isDeviceMotionActive)
            #expect(m.attitudeReferenceFrame == .xMagneticNorthZVertical)
        }
    }

    @Test("xArbitraryZVertical starts at yaw zero; each manager has its own zero")
    func arbitraryFrameStartsAtZeroYaw() throws {
        let h = try MotionTestHarness(scene: "rotate-z")
        h.run {
            let first = CMMotionManager()
            let yaws1 = Recorder<Double>()
            first.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: serialQueue()) { d, _ in
                if let d { yaws1.append(d.attitude.yaw) }
            }
            h.advance(by: 8)  // the rig turns
            let second = CMMotionManager()
            let yaws2 = Recorder<Double>()
            second.startDeviceMotionUpdates(using: .xArbitraryZVertical, to: serialQueue()) { d, _ in
                if let d { yaws2.append(d.attitude.yaw) }
            }
            h.advance(by: 1)
            first.stopDeviceMotionUpdates()
            second.stopDeviceMotionUpdates()
            #expect(abs(yaws1.all.first ?? 1) < 1e-9)
            #expect(abs(yaws2.all.first ?? 1) < 1e-9)
            #expect(yaws1.all.map(abs).max() ?? 0 > 0.1)  // the first manager saw the turn
        }
    }

    @Test("true north without a location gives CMErrorTrueNorthNotAvailable and no data")
    func trueNorthWithoutLocation() throws {
        let h = try MotionTestHarness(recording: Self.broad)
        h.run {
            #expect(!CMMotionManager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical))
            let m = CMMotionManager()
            let errors = Recorder<Int>()
            let data = Recorder<Double>()
            let q = serialQueue()
            m.startDeviceMotionUpdates(using: .xTrueNorthZVertical, to: q) { d, e in
                if let e = e as NSError?, e.domain == CMErrorDomain { errors.append(e.code) }
                if let d { data.append(d.timestamp) }
            }
            h.advance(by: 1)
            q.waitUntilAllOperationsAreFinished()
            #expect(errors.all == [Int(CMErrorTrueNorthNotAvailable.rawValue)])
            #expect(data.all.isEmpty)
            m.stopDeviceMotionUpdates()
        }
    }

    @Test("true north with a location: heading is the magnetic heading plus the WMM declination")
    func trueNorthWithLocation() throws {
        // Two harnesses on the same recording and clock start: one magnetic north, one true north at
        // Boulder, Colorado (NOAA's WMM2025 gives about +7.6° there in 2025; the harness clock stands
        // at 2025-01-01).
        func headings(_ frame: CMAttitudeReferenceFrame, location: Bool) throws -> [Double] {
            let h = try MotionTestHarness(recording: Self.broad)
            if location { h.setLocation(latitude: 40.0, longitude: -105.25, altitude: 1650) }
            return h.run {
                #expect(CMMotionManager.availableAttitudeReferenceFrames().contains(.xTrueNorthZVertical) == location)
                let m = CMMotionManager()
                let out = Recorder<Double>()
                let errors = Recorder<Int>()
                let q = serialQueue()
                m.startDeviceMotionUpdates(using: frame, to: q) { d, e in
                    if let d { out.append(d.heading) }
                    if let e = e as NSError?, e.code == Int(CMErrorTrueNorthNotAvailable.rawValue) { errors.append(e.code) }
                }
                h.advance(by: 3)
                q.waitUntilAllOperationsAreFinished()
                m.stopDeviceMotionUpdates()
                #expect(errors.all.isEmpty)
                return out.all
            }
        }
        let magnetic = try headings(.xMagneticNorthZVertical, location: false)
        let trueNorth = try headings(.xTrueNorthZVertical, location: true)
        #expect(magnetic.count == trueNorth.count && magnetic.count > 100)
        let declination = try #require(MotionService(device: NoDevice(clock: VirtualClock()), location: GeographicLocation(latitude: 40.0, longitude: -105.25, altitude: 1650)).magneticDeclination())
        let degrees = declination * 180 / .pi
        #expect(degrees > 7 && degrees < 8.5)
        for (m, t) in zip(magnetic, trueNorth) {
            var d = t - m
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            #expect(abs(d - degrees) < 1e-6)
            #expect(t >= 0 && t < 360)
        }
    }

    /// Runs device motion for `seconds` on `harness` and returns the rotation rates it delivered.
    static func rotationRates(_ harness: MotionTestHarness, seconds: Double) -> [CMRotationRate] {
        harness.run {
            let m = CMMotionManager()
            let rates = Recorder<CMRotationRate>()
            let q = serialQueue()
            m.startDeviceMotionUpdates(to: q) { d, _ in if let d { rates.append(d.rotationRate) } }
            harness.advance(by: seconds)
            q.waitUntilAllOperationsAreFinished()
            m.stopDeviceMotionUpdates()
            return rates.all
        }
    }

    @Test("the fusion keeps its gyro bias from one run to the next, as iOS does")
    func gyroBiasCarriesOver() throws {
        // The simulator's gyroscope has the constant bias (0.0020, −0.0015, 0.0010) rad/s (|b| 2.7e-3).
        let bias = (0.0020, -0.0015, 0.0010)
        func meanMagnitude(_ rates: ArraySlice<CMRotationRate>) -> Double {
            let n = Double(rates.count)
            let x = rates.map(\.x).reduce(0, +) / n, y = rates.map(\.y).reduce(0, +) / n, z = rates.map(\.z).reduce(0, +) / n
            return (x * x + y * y + z * z).squareRoot()
        }
        let warm = try MotionTestHarness(scene: "still-face-up")
        #expect(warm.service.savedSensorCalibration == nil)
        let firstRun = Self.rotationRates(warm, seconds: 20)
        let saved = try #require(warm.service.savedSensorCalibration)
        #expect(abs(saved.gyroBias.x - bias.0) < 3e-4 && abs(saved.gyroBias.y - bias.1) < 3e-4 && abs(saved.gyroBias.z - bias.2) < 3e-4)
        #expect(saved.magnetometer != nil)
        // A cold start shows the bias in its first 0.2 s; the second run of the same service does not.
        let cold = meanMagnitude(firstRun.prefix(20))
        let secondRun = Self.rotationRates(warm, seconds: 2)
        let restarted = meanMagnitude(secondRun.prefix(20))
        #expect(cold > 2e-3)
        #expect(restarted < 5e-4)
        // A new service (another process) on a replay or simulation starts cold: runs stay identical.
        let other = try MotionTestHarness(scene: "still-face-up")
        #expect(other.service.savedSensorCalibration == nil)
        #expect(Self.rotationRates(other, seconds: 0.5).map(\.x) == firstRun.prefix(50).map(\.x))
    }

    @Test("real hardware keeps its calibration in a file beside the history; a damaged file is ignored")
    func calibrationFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cm-calibration-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let history = HistoryLocation.file(folder.appendingPathComponent("history.sqlite"))
        let clock = VirtualClock()
        func service() throws -> MotionService {
            // An IIO specification marks real hardware; the simulated device stands in for the sensors.
            let simulation = try Simulation(scene: SceneCatalog.resolve("still-face-up"), seed: 3)
            let device = ScheduledDevice(name: "iio:bmi160+ak8975", source: simulation.makeSource(), clock: clock)
            return MotionService(device: device, keepsCalibration: true, history: history)
        }
        let first = try service()
        let harness = MotionTestHarness(service: first, clock: clock)
        _ = Self.rotationRates(harness, seconds: 10)
        let saved = try #require(first.savedSensorCalibration)
        let file = folder.appendingPathComponent("calibration/iio_bmi160_ak8975.json")
        #expect(FileManager.default.fileExists(atPath: file.path))
        let second = try service()
        #expect(second.savedSensorCalibration == saved)
        try Data("{ not json".utf8).write(to: file)
        let third = try service()
        #expect(third.savedSensorCalibration == nil)
    }

    @Test("device motion decimates to its interval; raw streams keep theirs")
    func intervals() throws {
        let h = try MotionTestHarness(recording: Self.motionSense)
        h.run {
            let m = CMMotionManager()
            let dm = Recorder<Double>()
            m.deviceMotionUpdateInterval = 0.1
            m.startDeviceMotionUpdates(to: serialQueue()) { d, _ in if let d { dm.append(d.timestamp) } }
            h.advance(by: 5)
            m.stopDeviceMotionUpdates()
            let t = dm.all
            #expect(t.count >= 49 && t.count <= 51)
            #expect(zip(t.dropFirst(), t).allSatisfy { abs(($0 - $1) - 0.1) < 0.011 })
        }
    }
}
