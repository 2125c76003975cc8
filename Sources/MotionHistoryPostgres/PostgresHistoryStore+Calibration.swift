import Foundation
import MotionHistory

extension PostgresHistoryStore {
    /// The largest calibration state kept (its JSON): a few hundred bytes in practice.
    static let maximumCalibrationBytes = 65_536

    /// A PostgreSQL history keeps the sensor calibration of its machine's hardware in
    /// `coremotion.calibration`: the machine may be rebuilt, the database stays.
    public var keepsSensorCalibration: Bool { true }

    /// The calibration state last saved for `source` (JSON), or `nil` when none was.
    public func savedCalibration(source: String) throws -> Data? {
        try HistoryValidation.validate(source: source)
        let operation = "reading the sensor calibration"
        return try read(operation: operation, flushFirst: false) {
            guard let device = try devices(for: source, operation: operation).keys.first else { return nil }
            guard let row = try session.query(
                "SELECT state::text FROM coremotion.calibration WHERE device = \(device)", operation: operation
            ).rows.first else { return nil }
            return Data(try row.decode(String.self).utf8)
        }
    }

    /// Saves `source`'s calibration state (JSON), replacing an older one; a state older than the stored
    /// one (another process of the same device saved later) is not written.
    public func saveCalibration(_ state: Data, savedAt: Date, source: String) throws {
        try HistoryValidation.validate(source: source)
        try HistoryValidation.validate(date: savedAt, kind: "calibration", index: 0, field: "savedAt")
        guard state.count <= Self.maximumCalibrationBytes, let text = String(data: state, encoding: .utf8),
              (try? JSONSerialization.jsonObject(with: state)) is [String: Any]
        else {
            throw HistoryError.invalidRecord(kind: "calibration", index: 0, field: "state", value: "not a JSON object of at most \(Self.maximumCalibrationBytes) bytes")
        }
        let operation = "writing the sensor calibration"
        try write(operation: operation) {
            let known = deviceIDs.withLock { $0 }
            let ids = try session.transaction(operation: operation) { () throws -> [String: Int64] in
                var writing = PostgresWriting(session: session, devicePrefix: devicePrefix, deviceIDs: known)
                let device = try writing.deviceID(source, operation: operation)
                let at = PostgresTimestamp(savedAt)
                try session.query("""
                    INSERT INTO coremotion.calibration (device, saved_at, state) VALUES (\(device), \(at), \(text)::jsonb)
                    ON CONFLICT (device) DO UPDATE SET saved_at = excluded.saved_at, state = excluded.state
                    WHERE coremotion.calibration.saved_at <= excluded.saved_at
                    """, operation: operation)
                return writing.deviceIDs
            }
            deviceIDs.withLock { $0.merge(ids) { a, _ in a } }
        }
    }
}
