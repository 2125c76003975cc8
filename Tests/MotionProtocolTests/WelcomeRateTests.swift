import Foundation
import MotionProtocol
import Testing

@Suite("welcome: odd sensor rates")
struct WelcomeRateTests {
    @Test("a sensor rate outside 1 µHz…10 MHz is sent at the nearest bound, so clients never refuse the welcome")
    func clampedRates() throws {
        let sensors = [
            SensorDescription(kind: .accelerometer, name: "sub-µs recording", minimumRate: 5e7, maximumRate: 5e7),
            SensorDescription(kind: .barometer, name: "zero", minimumRate: 0, maximumRate: .infinity),
        ]
        let welcome = DaemonWelcome(
            authorization: .authorized, appID: "a", deviceName: "d", sensors: sensors, referenceFrames: [],
            absoluteAltitude: false, recorderAvailable: false, bufferCapacity: 1)
        let bytes = DaemonMessage.welcome(welcome).encoded
        let decoded = try bytes.dropFirst(4).withUnsafeBytes { try DaemonMessage.decode($0) }
        guard case .welcome(let w) = decoded else {
            Issue.record("not a welcome")
            return
        }
        #expect(w.sensors[0].maximumRate == 10_000_000 && w.sensors[0].minimumRate == 10_000_000)
        #expect(w.sensors[1].minimumRate == 1e-6 && w.sensors[1].maximumRate == 1e-6)
    }
}
