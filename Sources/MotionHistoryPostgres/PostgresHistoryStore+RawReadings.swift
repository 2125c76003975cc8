import Foundation
import MotionHistory
import PostgresNIO

/// One sensor's stored raw readings of one device, as an ingest node stored them from the device's pushes
/// (`coremotion.sample_chunk`): the sender's own sensor name, field names, units and axes, unconverted.
public struct StoredRawReadings: Sendable, Hashable {
    /// The sensor as the sender named it (Sensor Logger: `accelerometer`, `gyroscope`, `location`, …).
    public var sensor: String
    /// The names of each reading's values, in order (e.g. `["x", "y", "z"]`).
    public var fields: [String]
    /// The readings in time order.
    public var readings: [Reading]

    /// One reading: its time and one value per field. Values stored as `real` come back as the nearest
    /// `Double` of their float4 (7 significant digits); `location`'s are stored as `double precision`.
    public struct Reading: Sendable, Hashable {
        public var time: Date
        public var values: [Double]

        public init(time: Date, values: [Double]) {
            self.time = time
            self.values = values
        }
    }

    public init(sensor: String, fields: [String], readings: [Reading]) {
        self.sensor = sensor
        self.fields = fields
        self.readings = readings
    }
}

extension PostgresHistoryStore {
    /// The longest span ``rawReadings(device:sensor:from:to:)`` reads at once, seconds: an hour of a
    /// 100 Hz sensor is 360,000 readings, which a caller holds in memory.
    public static let longestRawReadingSpan: TimeInterval = 3_600

    /// The most readings ``rawReadings(device:sensor:from:to:limit:)`` returns by default: a phone decides how
    /// many readings it pushes per second, so the span alone does not bound what a caller would hold.
    public static let defaultRawReadingLimit = 2_000_000

    /// The raw readings of `sensor` that ingest nodes stored for `device` (an id as ``devices()`` lists it)
    /// in `[start, end)`, one ``StoredRawReadings`` per field list the sensor was sent with (normally one),
    /// in time order. Empty for a device or sensor the store does not hold. At most `limit` readings, the
    /// first ones in chunk order; `truncated` says when there were more (ask for a shorter span).
    ///
    /// - Throws: ``MotionHistory/HistoryError/spanTooLong(seconds:limit:)`` for a span longer than
    ///   ``longestRawReadingSpan``; ``MotionHistory/HistoryError/serverFailure(location:operation:reason:)``
    ///   when the server fails.
    public func rawReadings(
        device: String, sensor: String, from start: Date, to end: Date, limit: Int = defaultRawReadingLimit
    ) throws -> (series: [StoredRawReadings], truncated: Bool) {
        try HistoryValidation.validateSpan(start, end)
        let seconds = end.timeIntervalSince(start)
        guard seconds <= Self.longestRawReadingSpan else {
            throw HistoryError.spanTooLong(seconds: seconds, limit: Self.longestRawReadingSpan)
        }
        let operation = "reading stored raw readings"
        let name = devicePrefix + device
        let from = PostgresTimestamp(start)
        let to = PostgresTimestamp(end)
        // A chunk spans at most 60 s (the schema's check), so the chunks that can hold a reading of the span
        // start at most 60 s before it: the primary key (device, sensor, start_time) bounds the scan.
        let earliestChunk = PostgresTimestamp(microseconds: from.microseconds - 60_000_000)
        return try read(operation: operation) {
            let rows = try session.query("""
                SELECT s.fields, c.start_time, u.o,
                    ARRAY(SELECT x FROM unnest(coalesce(c.real_values[CAST(u.i AS int):CAST(u.i AS int)][:]::float8[], c.double_values[CAST(u.i AS int):CAST(u.i AS int)][:]))
                          WITH ORDINALITY AS w(x, k) ORDER BY k)
                FROM coremotion.device d
                JOIN coremotion.sample_chunk c ON c.device = d.id
                JOIN coremotion.sensor s ON s.id = c.sensor
                CROSS JOIN LATERAL unnest(c.offsets) WITH ORDINALITY AS u(o, i)
                WHERE d.name = \(name) AND s.name = \(sensor)
                  AND c.start_time >= \(earliestChunk) AND c.start_time < \(to)
                  AND c.start_time + u.o * interval '1 microsecond' >= \(from)
                  AND c.start_time + u.o * interval '1 microsecond' < \(to)
                ORDER BY s.id, c.start_time, u.i
                LIMIT \(Int64(max(0, limit)) + 1)
                """, operation: operation).rows
            var series: [StoredRawReadings] = []
            for row in rows.prefix(max(0, limit)) {
                let (fields, chunkStart, offset, values) = try row.decode(([String], PostgresTimestamp, Int32, [Double]).self)
                let time = PostgresTimestamp(microseconds: chunkStart.microseconds + Int64(offset)).date
                let reading = StoredRawReadings.Reading(time: time, values: values)
                if let last = series.indices.last, series[last].fields == fields {
                    series[last].readings.append(reading)
                } else if let index = series.firstIndex(where: { $0.fields == fields }) {
                    series[index].readings.append(reading)
                } else {
                    series.append(StoredRawReadings(sensor: sensor, fields: fields, readings: [reading]))
                }
            }
            // Chunks of one field list come in start order and never overlap by more than a push's readings;
            // a final sort by time makes the order exact whatever the pushes' order was.
            for i in series.indices { series[i].readings.sort { $0.time < $1.time } }
            return (series, rows.count > max(0, limit))
        }
    }
}
