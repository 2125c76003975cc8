// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

extension HistoryStore {
    /// The recorded accelerometer samples with dates in `(start, end]`, in date order.
    ///
    /// The start is exclusive and the end inclusive, as Apple's header documents for
    /// `accelerometerData(from:to:)`, so that a client polling from the last date it received gets each
    /// sample once. Gaps in recording give no samples.
    ///
    /// - Throws: ``HistoryError/spanTooLong(seconds:limit:)`` when the span is longer than 12 h
    ///   (``maximumAccelerometerSpan``); ``HistoryError/invalidSpan(start:end:)``;
    ///   ``HistoryError/closed(location:)``; a ``HistoryError`` naming the file when reading fails.
    public func accelerometerSamples(from start: Date, to end: Date, source: String?) throws -> [RecordedAccelerometerSample] {
        try HistoryValidation.validateAccelerometerSpan(start, end)
        try flushBeforeQuery()
        let fromMicros = AccelerometerChunk.microseconds(start)
        let toMicros = AccelerometerChunk.microseconds(end)
        guard fromMicros < toMicros else { return [] }
        do {
            return try database.read { db in
                var arguments: [String: (any DatabaseValueConvertible)?] = [
                    "lookBack": fromMicros - AccelerometerChunk.maximumSpanMicroseconds, "to": toMicros,
                ]
                if let source {
                    guard let id = try Self.storedSourceID(source, db) else { return [] }
                    arguments["source"] = id
                }
                let condition = """
                    \(source == nil ? "" : "source = :source AND")
                    start_microseconds > :lookBack AND start_microseconds <= :to
                    """
                let capacity = try Int.fetchOne(
                    db, sql: "SELECT COALESCE(SUM(sample_count), 0) FROM accelerometer_chunk WHERE \(condition)",
                    arguments: StatementArguments(arguments)) ?? 0
                let rows = try Row.fetchCursor(
                    db,
                    sql: """
                        SELECT first_identifier, sample_count, start_microseconds, samples FROM accelerometer_chunk
                        WHERE \(condition)
                        ORDER BY start_microseconds, first_identifier
                        """,
                    arguments: StatementArguments(arguments))
                var samples: [RecordedAccelerometerSample] = []
                samples.reserveCapacity(capacity)
                var sorted = true
                while let row = try rows.next() {
                    let firstIdentifier: Int64 = row[0]
                    let count: Int = row[1]
                    let chunkStart: Int64 = row[2]
                    let packed: Data = row[3]
                    let valid = AccelerometerChunk.unpack(packed, count: count, startMicroseconds: chunkStart) { index, sample in
                        guard sample.microseconds > fromMicros, sample.microseconds <= toMicros else { return }
                        let date = AccelerometerChunk.date(microseconds: sample.microseconds)
                        if let last = samples.last, last.date > date { sorted = false }
                        samples.append(RecordedAccelerometerSample(
                            identifier: UInt64(firstIdentifier + Int64(index)), date: date,
                            acceleration: Vector3(Double(sample.x), Double(sample.y), Double(sample.z))))
                    }
                    guard valid else {
                        throw DatabaseError(
                            resultCode: .SQLITE_CORRUPT, message: "damaged accelerometer chunk (first identifier \(firstIdentifier))")
                    }
                }
                if !sorted {
                    samples.sort { ($0.date, $0.identifier) < ($1.date, $1.identifier) }
                }
                return samples
            }
        } catch {
            throw mapError(error, operation: "reading accelerometer history")
        }
    }

    /// Records a request to record the accelerometer from `start` for `duration` seconds, at once (not
    /// batched), so that recording resumes after a restart until the request ends.
    ///
    /// - Throws: ``HistoryError/spanTooLong(seconds:limit:)`` for more than 12 h;
    ///   ``HistoryError/invalidRecord(kind:index:field:value:)`` for a duration that is not positive and finite.
    @discardableResult
    public func addAccelerometerRecording(
        from start: Date, duration: TimeInterval, source: String
    ) throws -> AccelerometerRecordingRequest {
        try HistoryValidation.validateRecording(from: start, duration: duration, source: source)
        try checkOpen()
        let request = AccelerometerRecordingRequest(start: start, end: start.addingTimeInterval(duration), source: source)
        do {
            // On the flush queue, where a damaged file may be replaced: the source ids are the file's.
            try flushQueueSync {
                let known = sourceIDs.withLock { $0 }
                let ids = try database.write { db -> [String: Int64] in
                    var ids = known
                    let id = try HistoryWriting.sourceID(source, db, &ids)
                    try db.execute(
                        sql: "INSERT INTO recording_request (source, start, end) VALUES (?, ?, ?)",
                        arguments: [id, request.start.timeIntervalSince1970, request.end.timeIntervalSince1970])
                    return ids
                }
                sourceIDs.withLock { $0.merge(ids) { a, _ in a } }
            }
            writerState.withLock { $0.estimate.recordingRequests += 1 }
        } catch {
            throw mapError(error, operation: "writing a recording request")
        }
        return request
    }

    /// The recording requests in force at `date` (`start <= date < end`), by start.
    public func accelerometerRecordingRequests(activeAt date: Date, source: String?) throws -> [AccelerometerRecordingRequest] {
        try Self.validate(date: date, kind: "query", index: 0, field: "date")
        try checkOpen()
        do {
            return try database.read { db in
                var arguments: [any DatabaseValueConvertible] = [date.timeIntervalSince1970, date.timeIntervalSince1970]
                if let source {
                    guard let id = try Self.storedSourceID(source, db) else { return [] }
                    arguments.append(id)
                }
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT r.start, r.end, s.name FROM recording_request AS r JOIN source AS s ON s.id = r.source
                        WHERE r.start <= ? AND r.end > ? \(source == nil ? "" : "AND r.source = ?")
                        ORDER BY r.start, r.id
                        """,
                    arguments: StatementArguments(arguments)
                ).map { row in
                    AccelerometerRecordingRequest(
                        start: Date(timeIntervalSince1970: row[0]), end: Date(timeIntervalSince1970: row[1]), source: row[2])
                }
            }
        } catch {
            throw mapError(error, operation: "reading recording requests")
        }
    }

    /// When recording should stop if it is running at `date`: the latest end of the requests in force, or
    /// `nil` when none is.
    public func accelerometerRecordingEnd(activeAt date: Date, source: String?) throws -> Date? {
        try accelerometerRecordingRequests(activeAt: date, source: source).map(\.end).max()
    }
}
#endif
