import Foundation
import MotionHistory
import MotionSamples
import PostgresNIO

/// Writes one pending batch inside the flush's transaction.
///
/// Per device, in id order (so that two writers never wait for each other in a cycle): the device row is
/// locked (`SELECT … FOR UPDATE`), which serialises every writer of that device for the rest of the
/// transaction; its step minutes around the new steps are read, merged in Swift exactly as the SQLite
/// store merges them (`StepMinute`: millisecond dedup, totals, the link to the minute before) and written
/// back; accelerometer samples are packed into chunks (`AccelerometerChunk`) numbered from
/// `device.next_accelerometer_identifier`. Floors, transitions and activity starts are one row each, a
/// duplicate (same device and time) ignored. The writes are sent pipelined, then the caller commits.
struct PostgresWriting {
    let session: PostgresSession
    let devicePrefix: String
    /// Known device ids by source; grows with the devices this batch creates.
    var deviceIDs: [String: Int64]
    /// Whether the devices' `last_seen` becomes now (a daemon's own device; not a phone's, whose pushes say
    /// when it was seen).
    var touchesLastSeen = true

    init(session: PostgresSession, devicePrefix: String, deviceIDs: [String: Int64]) {
        self.session = session
        self.devicePrefix = devicePrefix
        self.deviceIDs = deviceIDs
    }

    /// Writes the batch; returns the device ids by source (to cache once the transaction commits).
    mutating func write(_ batch: PendingRecords) throws -> [String: Int64] {
        let operation = "writing \(batch.count) records"
        var sourcesByID: [Int64: String] = [:]
        for source in batch.sources.sorted() {
            let id = try deviceID(source, operation: operation)
            sourcesByID[id] = source
        }
        var writes: [PostgresQuery] = []
        for (device, source) in sourcesByID.sorted(by: { $0.key < $1.key }) {
            let steps = batch.steps[source] ?? []
            let samples = batch.accelerometer[source] ?? []
            if !steps.isEmpty || !samples.isEmpty {
                let locked = try session.query(
                    "SELECT next_accelerometer_identifier FROM coremotion.device WHERE id = \(device) FOR UPDATE",
                    operation: operation)
                guard let row = locked.rows.first else {
                    throw HistoryError.serverFailure(location: session.location, operation: operation, reason: "device \(device) vanished")
                }
                let nextIdentifier = try row.decode(Int64.self)
                if !steps.isEmpty { writes += try stepWrites(steps, device: device, operation: operation) }
                if !samples.isEmpty { writes += accelerometerWrites(samples, device: device, nextIdentifier: nextIdentifier) }
            }
            if touchesLastSeen {
                writes.append(
                    "UPDATE coremotion.device SET last_seen = now() WHERE id = \(device) AND last_seen < now() - interval '1 minute'")
            }
            for floor in batch.floors[source] ?? [] {
                let date = PostgresTimestamp(floor.date)
                let change = Int16(floor.change.rawValue)
                writes.append(
                    "INSERT INTO coremotion.floor_change (device, date, change) VALUES (\(device), \(date), \(change)) ON CONFLICT DO NOTHING")
            }
            for transition in batch.transitions[source] ?? [] {
                let date = PostgresTimestamp(transition.date)
                let value = Int16(transition.transition.rawValue)
                writes.append("""
                    INSERT INTO coremotion.pedometer_transition (device, date, transition) VALUES (\(device), \(date), \(value))
                    ON CONFLICT DO NOTHING
                    """)
            }
            for activity in batch.activities[source] ?? [] {
                let start = PostgresTimestamp(activity.startDate)
                let flags = Int16(activity.flags.rawValue)
                let confidence = Int16(activity.confidence.rawValue)
                writes.append("""
                    INSERT INTO coremotion.activity_segment (device, start, flags, confidence)
                    VALUES (\(device), \(start), \(flags), \(confidence)) ON CONFLICT DO NOTHING
                    """)
            }
        }
        try session.queries(writes, operation: operation)
        return deviceIDs
    }

    /// The id of a source's device, creating the row when new.
    mutating func deviceID(_ source: String, operation: String) throws -> Int64 {
        if let id = deviceIDs[source] { return id }
        let name = devicePrefix + source
        let kind = PostgresHistoryStore.deviceKind(of: source)
        let result = try session.query("""
            INSERT INTO coremotion.device (name, kind, first_seen, last_seen) VALUES (\(name), \(kind), now(), now())
            ON CONFLICT (name) DO UPDATE SET last_seen = greatest(coremotion.device.last_seen, excluded.last_seen)
            RETURNING id
            """, operation: operation)
        guard let row = result.rows.first else {
            throw HistoryError.serverFailure(location: session.location, operation: operation, reason: "no id for a new device")
        }
        let id = try row.decode(Int64.self)
        deviceIDs[source] = id
        return id
    }

    /// Reads the minutes the steps fall in (and their neighbours, for the links), merges, and returns the
    /// upserts and relinks (SQLite's `HistoryWriting.writeSteps`, with the same totals and links).
    private func stepWrites(_ steps: [StepRecord], device: Int64, operation: String) throws -> [PostgresQuery] {
        var byMinute: [Int64: [PackedStep]] = [:]
        for step in steps {
            let ms = StepMinute.milliseconds(step.date)
            let minute = StepMinute.minute(ofMilliseconds: ms)
            let offset = UInt16(ms - minute * StepMinute.millisecondsPerMinute)
            let stride = UInt16((step.strideLength * 1000).rounded())
            byMinute[minute, default: []].append(PackedStep(offset: offset, strideMillimetres: stride))
        }
        let minutes = byMinute.keys.sorted()
        let from = PostgresTimestamp(minute: minutes.first! - 1)
        let to = PostgresTimestamp(minute: minutes.last! + 1)
        let stored = try session.query("""
            SELECT minute, steps FROM coremotion.step_minute
            WHERE device = \(device) AND minute BETWEEN \(from) AND \(to) ORDER BY minute FOR UPDATE
            """, operation: operation)
        var rows: [Int64: [PackedStep]] = [:]
        for row in stored.rows {
            let (minute, packed) = try row.decode((PostgresTimestamp, ByteBuffer).self)
            guard let unpacked = StepMinute.unpack(Data(packed.readableBytesView)) else {
                throw HistoryError.serverFailure(
                    location: session.location, operation: operation, reason: "damaged step row (device \(device), minute \(minute.minute))")
            }
            rows[minute.minute] = unpacked
        }
        var changed: [Int64] = []
        for minute in minutes {
            var bucket = StepMinute(minute: minute, steps: rows[minute] ?? [])
            let before = bucket.steps.count
            bucket.merge(byMinute[minute]!)
            if bucket.steps.count > before {
                rows[minute] = bucket.steps
                changed.append(minute)
            }
        }
        /// The link into `minute` from the minute before: the gap across the boundary when short enough.
        func link(into minute: Int64) -> Int64 {
            guard let first = rows[minute]?.first, let previous = rows[minute - 1]?.last else { return 0 }
            let gap = Int64(first.offset) + StepMinute.millisecondsPerMinute - Int64(previous.offset)
            return gap <= StepMinute.maximumActiveGapMilliseconds ? gap : 0
        }
        var writes: [PostgresQuery] = []
        let changedSet = Set(changed)
        for minute in changed {
            let bucket = StepMinute(minute: minute, steps: rows[minute]!)
            let start = PostgresTimestamp(minute: minute)
            let count = Int32(bucket.steps.count)
            let distance = Int32(bucket.distanceMillimetres)
            let active = Int32(bucket.activeMilliseconds)
            let linked = Int32(link(into: minute))
            let first = Int32(bucket.steps.first!.offset)
            let last = Int32(bucket.steps.last!.offset)
            let packed = ByteBuffer(bytes: bucket.packed())
            writes.append("""
                INSERT INTO coremotion.step_minute (device, minute, step_count, distance_millimetres, active_milliseconds,
                    link_milliseconds, first_offset_milliseconds, last_offset_milliseconds, steps)
                VALUES (\(device), \(start), \(count), \(distance), \(active), \(linked), \(first), \(last), \(packed))
                ON CONFLICT (device, minute) DO UPDATE SET
                    step_count = excluded.step_count, distance_millimetres = excluded.distance_millimetres,
                    active_milliseconds = excluded.active_milliseconds, link_milliseconds = excluded.link_milliseconds,
                    first_offset_milliseconds = excluded.first_offset_milliseconds,
                    last_offset_milliseconds = excluded.last_offset_milliseconds, steps = excluded.steps
                """)
            // The next minute's link depends on this minute's last step.
            let next = minute + 1
            if !changedSet.contains(next), rows[next] != nil {
                let nextStart = PostgresTimestamp(minute: next)
                let nextLink = Int32(link(into: next))
                writes.append(
                    "UPDATE coremotion.step_minute SET link_milliseconds = \(nextLink) WHERE device = \(device) AND minute = \(nextStart)")
            }
        }
        return writes
    }

    /// Chunks of samples (sorted, as `append` checked) numbered from the device's counter, and the
    /// counter's new value. A chunk starting at the time of a stored one (samples appended again after a
    /// restart) is skipped; its identifiers stay unused.
    private func accelerometerWrites(_ samples: [AccelerometerRecord], device: Int64, nextIdentifier: Int64) -> [PostgresQuery] {
        let packedSamples = samples.map { sample in
            AccelerometerChunk.Sample(
                microseconds: AccelerometerChunk.microseconds(sample.date),
                x: Float(sample.acceleration.x), y: Float(sample.acceleration.y), z: Float(sample.acceleration.z))
        }
        var next = nextIdentifier
        var writes: [PostgresQuery] = []
        for chunk in AccelerometerChunk.chunks(of: packedSamples) {
            let start = PostgresTimestamp(microseconds: chunk.startMicroseconds)
            let end = PostgresTimestamp(microseconds: chunk.endMicroseconds)
            let count = Int32(chunk.samples.count)
            let packed = ByteBuffer(bytes: chunk.packed())
            writes.append("""
                INSERT INTO coremotion.accelerometer_chunk (device, start_time, end_time, first_identifier, sample_count, samples)
                VALUES (\(device), \(start), \(end), \(next), \(count), \(packed)) ON CONFLICT DO NOTHING
                """)
            next += Int64(chunk.samples.count)
        }
        writes.append("UPDATE coremotion.device SET next_accelerometer_identifier = \(next) WHERE id = \(device)")
        return writes
    }
}
