// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

/// Writes a batch of pending records inside one write transaction.
enum HistoryWriting {
    static func write(_ batch: PendingRecords, to db: Database, sourceIDs: inout [String: Int64]) throws -> RecordCounts {
        var counts = RecordCounts()
        for (source, steps) in batch.steps where !steps.isEmpty {
            let id = try sourceID(source, db, &sourceIDs)
            counts.steps += try writeSteps(steps, source: id, db)
        }
        for (source, floors) in batch.floors where !floors.isEmpty {
            let id = try sourceID(source, db, &sourceIDs)
            let statement = try db.cachedStatement(sql: "INSERT INTO floor_change (source, date, change) VALUES (?, ?, ?)")
            for floor in floors {
                try statement.execute(arguments: [id, floor.date.timeIntervalSince1970, floor.change.rawValue])
            }
            counts.floorChanges += floors.count
        }
        for (source, transitions) in batch.transitions where !transitions.isEmpty {
            let id = try sourceID(source, db, &sourceIDs)
            let statement = try db.cachedStatement(
                sql: "INSERT INTO pedometer_transition (source, date, transition) VALUES (?, ?, ?)")
            for transition in transitions {
                try statement.execute(arguments: [id, transition.date.timeIntervalSince1970, transition.transition.rawValue])
            }
            counts.pedometerTransitions += transitions.count
        }
        for (source, activities) in batch.activities where !activities.isEmpty {
            let id = try sourceID(source, db, &sourceIDs)
            let statement = try db.cachedStatement(
                sql: "INSERT INTO activity_segment (source, start, flags, confidence) VALUES (?, ?, ?, ?)")
            for activity in activities {
                try statement.execute(arguments: [
                    id, activity.startDate.timeIntervalSince1970, activity.flags.rawValue, activity.confidence.rawValue,
                ])
            }
            counts.activitySegments += activities.count
        }
        for (source, samples) in batch.accelerometer where !samples.isEmpty {
            let id = try sourceID(source, db, &sourceIDs)
            counts.accelerometerSamples += try writeAccelerometer(samples, source: id, db)
        }
        return counts
    }

    /// The id of a source, inserting it when new. The caller keeps `cache` only if the transaction commits.
    static func sourceID(_ name: String, _ db: Database, _ cache: inout [String: Int64]) throws -> Int64 {
        if let id = cache[name] { return id }
        try db.execute(sql: "INSERT OR IGNORE INTO source (name) VALUES (?)", arguments: [name])
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [name]) else {
            throw DatabaseError(resultCode: .SQLITE_INTERNAL, message: "source '\(name)' vanished after insertion")
        }
        cache[name] = id
        return id
    }

    /// Merges steps into their minute rows; returns how many were new.
    private static func writeSteps(_ steps: [StepRecord], source: Int64, _ db: Database) throws -> Int {
        var byMinute: [Int64: [PackedStep]] = [:]
        for step in steps {
            let ms = StepMinute.milliseconds(step.date)
            let minute = StepMinute.minute(ofMilliseconds: ms)
            let offset = UInt16(ms - minute * StepMinute.millisecondsPerMinute)
            let stride = UInt16((step.strideLength * 1000).rounded())
            byMinute[minute, default: []].append(PackedStep(offset: offset, strideMillimetres: stride))
        }
        let select = try db.cachedStatement(sql: "SELECT steps FROM step_minute WHERE source = ? AND minute = ?")
        let previousLast = try db.cachedStatement(
            sql: "SELECT last_offset_milliseconds FROM step_minute WHERE source = ? AND minute = ?")
        let upsert = try db.cachedStatement(sql: """
            INSERT INTO step_minute (source, minute, step_count, distance_millimetres, active_milliseconds,
                                     link_milliseconds, first_offset_milliseconds, last_offset_milliseconds, steps)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT (source, minute) DO UPDATE SET
                step_count = excluded.step_count, distance_millimetres = excluded.distance_millimetres,
                active_milliseconds = excluded.active_milliseconds, link_milliseconds = excluded.link_milliseconds,
                first_offset_milliseconds = excluded.first_offset_milliseconds,
                last_offset_milliseconds = excluded.last_offset_milliseconds, steps = excluded.steps
            """)
        // The next minute's link depends on this minute's last step.
        let relinkNext = try db.cachedStatement(sql: """
            UPDATE step_minute SET link_milliseconds =
                CASE WHEN first_offset_milliseconds + :perMinute - :last <= :gap
                     THEN first_offset_milliseconds + :perMinute - :last ELSE 0 END
            WHERE source = :source AND minute = :next
            """)
        var added = 0
        for minute in byMinute.keys.sorted() {
            var bucket = StepMinute(minute: minute, steps: [])
            if let stored = try Data.fetchOne(select, arguments: [source, minute]) {
                guard let unpacked = StepMinute.unpack(stored) else {
                    throw DatabaseError(resultCode: .SQLITE_CORRUPT, message: "damaged step row (source \(source), minute \(minute))")
                }
                bucket.steps = unpacked
            }
            let before = bucket.steps.count
            bucket.merge(byMinute[minute]!)
            added += bucket.steps.count - before
            guard bucket.steps.count > before else { continue }
            let first = Int64(bucket.steps.first!.offset)
            let last = Int64(bucket.steps.last!.offset)
            var link: Int64 = 0
            if let previous = try Int64.fetchOne(previousLast, arguments: [source, minute - 1]) {
                let gap = first + StepMinute.millisecondsPerMinute - previous
                if gap <= StepMinute.maximumActiveGapMilliseconds { link = gap }
            }
            try upsert.execute(arguments: [
                source, minute, bucket.steps.count, bucket.distanceMillimetres, bucket.activeMilliseconds, link,
                first, last, bucket.packed(),
            ])
            try relinkNext.execute(arguments: [
                "perMinute": StepMinute.millisecondsPerMinute, "last": last,
                "gap": StepMinute.maximumActiveGapMilliseconds, "source": source, "next": minute + 1,
            ])
        }
        return added
    }

    /// Writes samples (sorted, as `append` checked) in chunks, with identifiers from the store's counter.
    private static func writeAccelerometer(_ samples: [AccelerometerRecord], source: Int64, _ db: Database) throws -> Int {
        let packedSamples = samples.map { sample in
            AccelerometerChunk.Sample(
                microseconds: AccelerometerChunk.microseconds(sample.date),
                x: Float(sample.acceleration.x), y: Float(sample.acceleration.y), z: Float(sample.acceleration.z))
        }
        var nextIdentifier = try Int64.fetchOne(
            db, sql: "SELECT value FROM store_counter WHERE name = 'next_accelerometer_identifier'") ?? 1
        let insert = try db.cachedStatement(sql: """
            INSERT INTO accelerometer_chunk (source, first_identifier, sample_count, start_microseconds, end_microseconds, samples)
            VALUES (?, ?, ?, ?, ?, ?)
            """)
        for chunk in AccelerometerChunk.chunks(of: packedSamples) {
            try insert.execute(arguments: [
                source, nextIdentifier, chunk.samples.count, chunk.startMicroseconds, chunk.endMicroseconds, chunk.packed(),
            ])
            nextIdentifier += Int64(chunk.samples.count)
        }
        try db.execute(
            sql: "UPDATE store_counter SET value = ? WHERE name = 'next_accelerometer_identifier'", arguments: [nextIdentifier])
        return samples.count
    }
}
#endif
