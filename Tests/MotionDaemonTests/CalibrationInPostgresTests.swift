import Foundation
import MotionHistory
import MotionHistoryPostgres
import MotionSamples
import MotionService
import MotionSimulator
import Testing

/// Real hardware's sensor calibration (gyroscope bias, magnetometer) kept in a PostgreSQL history: a daemon
/// whose history is a database keeps it there, not in a file (there is no history file to put it beside).
@Suite(
    "Sensor calibration in a PostgreSQL history",
    .enabled(if: EngineTestServer.location != nil, "no PostgreSQL server: set COREMOTION_TEST_POSTGRES=postgres://…"))
struct CalibrationInPostgresTests {
    /// A service on the simulator's still phone under an IIO device name (real hardware keeps its calibration).
    static func service(named name: String, history: HistoryLocation) throws -> (MotionService, VirtualClock) {
        PostgresHistoryStore.register()
        let clock = VirtualClock()
        let simulation = try Simulation(scene: SceneCatalog.resolve("still-face-up"), seed: 3)
        let device = ScheduledDevice(name: name, source: simulation.makeSource(), clock: clock)
        return (MotionService(device: device, keepsCalibration: true, history: history), clock)
    }

    @Test("the fusion's calibration is saved in the database and the next process starts from it")
    func keptInTheDatabase() throws {
        let history = try #require(EngineTestServer.location)
        let name = "iio:bmi160-calibration-\(UUID().uuidString.prefix(8))"
        let (first, clock) = try Self.service(named: name, history: history)
        first.waitUntilSensorCalibrationKept()
        #expect(first.savedSensorCalibration == nil)
        let stream = first.subscribeDeviceMotion(frame: .xArbitraryZVertical, interval: 0.01) { _ in }
        clock.advance(by: 10)
        stream?.cancel()
        let saved = try #require(first.savedSensorCalibration)
        #expect(saved.device == name && saved.gyroBias != .zero)
        first.waitUntilSensorCalibrationKept()
        first.shutDown()

        // Another process of the same machine: the state comes back from the database, exactly.
        let (second, _) = try Self.service(named: name, history: history)
        second.waitUntilSensorCalibrationKept()
        #expect(second.savedSensorCalibration == saved)
        second.shutDown()
        // Another device of the database starts cold.
        let (other, _) = try Self.service(named: name + "-other", history: history)
        other.waitUntilSensorCalibrationKept()
        #expect(other.savedSensorCalibration == nil)
        other.shutDown()
    }

    @Test("an older state never replaces a newer one; a state that is not a JSON object is refused")
    func newestWins() throws {
        let location = try #require(EngineTestServer.location)
        let store = try PostgresHistoryStore(configuration: HistoryConfiguration(location: location), options: .init())
        defer { try? store.close() }
        let source = "iio:calibration-order-\(UUID().uuidString.prefix(8))"
        let day = Date(timeIntervalSince1970: 1_790_000_000)
        try store.saveCalibration(Data(#"{"n": 2}"#.utf8), savedAt: day, source: source)
        try store.saveCalibration(Data(#"{"n": 1}"#.utf8), savedAt: day.addingTimeInterval(-60), source: source)
        let kept = try #require(try store.savedCalibration(source: source))
        #expect((try JSONSerialization.jsonObject(with: kept) as? [String: Int]) == ["n": 2])
        #expect(throws: HistoryError.self) { try store.saveCalibration(Data("[1, 2]".utf8), savedAt: day, source: source) }
        #expect(throws: HistoryError.self) { try store.saveCalibration(Data("{ not json".utf8), savedAt: day, source: source) }
        #expect(try store.savedCalibration(source: source + "-none") == nil)
    }
}
