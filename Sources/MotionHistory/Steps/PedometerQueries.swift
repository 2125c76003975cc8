// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

extension HistoryStore {
    /// Pedometer totals over `[start, end)`, exact to the step.
    ///
    /// A step counts when its stored date (rounded to the millisecond) is in the span, with the bounds
    /// rounded the same way; so a step exactly at `start` counts, one exactly at `end` does not, and the
    /// totals of adjacent spans add up to the total of their union (steps, distance, floors and active
    /// duration alike). Records older than the retention window are gone, so an earlier `start` yields only
    /// what is stored. With `source == nil` every source's records add up.
    ///
    /// - Throws: ``HistoryError/invalidSpan(start:end:)`` when `end < start` or a bound is not finite;
    ///   ``HistoryError/closed(location:)``; a ``HistoryError`` naming the file when reading fails.
    public func pedometerSummary(from start: Date, to end: Date, source: String?) throws -> PedometerSummary {
        try Self.validateSpan(start, end)
        try flushBeforeQuery()
        var summary = PedometerSummary(start: start, end: end)
        let fromMs = StepMinute.milliseconds(start)
        let toMs = StepMinute.milliseconds(end)
        guard fromMs < toMs else { return summary }
        do {
            try database.read { db in
                let sourceID: Int64?
                if let source {
                    guard let id = try Self.storedSourceID(source, db) else { return }
                    sourceID = id
                } else {
                    sourceID = nil
                }
                try Self.sumSteps(db, fromMs: fromMs, toMs: toMs, sourceID: sourceID, into: &summary)
                let floorRows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT change, count(*) FROM floor_change
                        WHERE date >= ? AND date < ? \(sourceID == nil ? "" : "AND source = ?") GROUP BY change
                        """,
                    arguments: StatementArguments(
                        [start.timeIntervalSince1970, end.timeIntervalSince1970] + (sourceID.map { [$0] } ?? [])))
                for row in floorRows {
                    let change: Int = row[0]
                    let count: Int = row[1]
                    if change > 0 { summary.floorsAscended += count } else { summary.floorsDescended += count }
                }
            }
        } catch {
            throw mapError(error, operation: "reading pedometer history")
        }
        return summary
    }

    /// Pause/resume transitions in `[start, end)`, in date order.
    public func pedometerTransitions(from start: Date, to end: Date, source: String?) throws -> [PedometerTransitionRecord] {
        try Self.validateSpan(start, end)
        try flushBeforeQuery()
        do {
            return try database.read { db in
                var arguments: [any DatabaseValueConvertible] = [start.timeIntervalSince1970, end.timeIntervalSince1970]
                if let source {
                    guard let id = try Self.storedSourceID(source, db) else { return [] }
                    arguments.append(id)
                }
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT date, transition FROM pedometer_transition
                        WHERE date >= ? AND date < ? \(source == nil ? "" : "AND source = ?") ORDER BY date, id
                        """,
                    arguments: StatementArguments(arguments))
                return rows.compactMap { row in
                    guard let transition = PedometerTransition(rawValue: row[1]) else { return nil }
                    return PedometerTransitionRecord(date: Date(timeIntervalSince1970: row[0]), transition: transition)
                }
            }
        } catch {
            throw mapError(error, operation: "reading pedometer transitions")
        }
    }

    /// The date of the newest record of any kind from `source` (steps, floors, transitions, activity starts,
    /// accelerometer samples), or `nil` when it has none. After a crash this is about where the last
    /// recording stopped: the service appends an ``ActivityFlags/unknown`` activity there when the last
    /// stored state is not already unknown.
    public func latestRecordDate(source: String) throws -> Date? {
        try flushBeforeQuery()
        do {
            return try database.read { db in
                guard let id = try Self.storedSourceID(source, db) else { return nil }
                let seconds = try Double.fetchOne(
                    db,
                    sql: """
                        SELECT MAX(value) FROM (
                            SELECT (SELECT (minute * 60000 + last_offset_milliseconds) / 1000.0 FROM step_minute
                                    WHERE source = :id ORDER BY minute DESC LIMIT 1) AS value
                            UNION ALL SELECT (SELECT MAX(date) FROM floor_change WHERE source = :id)
                            UNION ALL SELECT (SELECT MAX(date) FROM pedometer_transition WHERE source = :id)
                            UNION ALL SELECT (SELECT MAX(start) FROM activity_segment WHERE source = :id)
                            UNION ALL SELECT (SELECT end_microseconds / 1000000.0 FROM accelerometer_chunk
                                              WHERE source = :id ORDER BY start_microseconds DESC LIMIT 1))
                        """,
                    arguments: ["id": id])
                return seconds.map { Date(timeIntervalSince1970: $0) }
            }
        } catch {
            throw mapError(error, operation: "reading the latest record date")
        }
    }

    /// Every source of the file with the span of its records, its stored steps and its recorded
    /// accelerometer samples (`coremotion history devices`).
    public func devices() throws -> [HistoryDeviceSummary] {
        try flushBeforeQuery()
        do {
            return try database.read { db in
                let rows = try Row.fetchAll(
                    db,
                    sql: """
                        SELECT s.name,
                            (SELECT MIN(lo) FROM (
                                SELECT MIN(minute * 60000 + first_offset_milliseconds) / 1000.0 AS lo FROM step_minute WHERE source = s.id
                                UNION ALL SELECT MIN(date) FROM floor_change WHERE source = s.id
                                UNION ALL SELECT MIN(date) FROM pedometer_transition WHERE source = s.id
                                UNION ALL SELECT MIN(start) FROM activity_segment WHERE source = s.id
                                UNION ALL SELECT MIN(start_microseconds) / 1000000.0 FROM accelerometer_chunk WHERE source = s.id)),
                            (SELECT MAX(hi) FROM (
                                SELECT MAX(minute * 60000 + last_offset_milliseconds) / 1000.0 AS hi FROM step_minute WHERE source = s.id
                                UNION ALL SELECT MAX(date) FROM floor_change WHERE source = s.id
                                UNION ALL SELECT MAX(date) FROM pedometer_transition WHERE source = s.id
                                UNION ALL SELECT MAX(start) FROM activity_segment WHERE source = s.id
                                UNION ALL SELECT MAX(end_microseconds) / 1000000.0 FROM accelerometer_chunk WHERE source = s.id)),
                            (SELECT COALESCE(SUM(step_count), 0) FROM step_minute WHERE source = s.id),
                            (SELECT COALESCE(SUM(sample_count), 0) FROM accelerometer_chunk WHERE source = s.id)
                        FROM source s ORDER BY s.name
                        """)
                return rows.map { row in
                    let samples: Int = row[4]
                    return HistoryDeviceSummary(
                        id: row[0], first: (row[1] as Double?).map(Date.init(timeIntervalSince1970:)),
                        last: (row[2] as Double?).map(Date.init(timeIntervalSince1970:)),
                        samples: samples > 0 ? ["accelerometer": samples] : [:], steps: row[3])
                }
            }
        } catch {
            throw mapError(error, operation: "listing the devices")
        }
    }

    /// The dates of the oldest and the newest record of any kind and any source, or `nil` for an empty
    /// history (`coremotion service status`).
    public func recordSpan() throws -> ClosedRange<Date>? {
        try flushBeforeQuery()
        do {
            return try database.read { db in
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT MIN(lo), MAX(hi) FROM (
                            SELECT MIN(minute * 60000 + first_offset_milliseconds) / 1000.0 AS lo,
                                   MAX(minute * 60000 + last_offset_milliseconds) / 1000.0 AS hi FROM step_minute
                            UNION ALL SELECT MIN(date), MAX(date) FROM floor_change
                            UNION ALL SELECT MIN(date), MAX(date) FROM pedometer_transition
                            UNION ALL SELECT MIN(start), MAX(start) FROM activity_segment
                            UNION ALL SELECT MIN(start_microseconds) / 1000000.0, MAX(end_microseconds) / 1000000.0
                                      FROM accelerometer_chunk)
                        """)
                guard let row, let lo = row[0] as Double?, let hi = row[1] as Double?, lo <= hi else { return nil }
                return Date(timeIntervalSince1970: lo)...Date(timeIntervalSince1970: hi)
            }
        } catch {
            throw mapError(error, operation: "reading the history's span")
        }
    }

    /// The id of a source already in the file, or `nil`.
    static func storedSourceID(_ name: String, _ db: Database) throws -> Int64? {
        try Int64.fetchOne(db, sql: "SELECT id FROM source WHERE name = ?", arguments: [name])
    }

    /// Adds the steps of `[fromMs, toMs)` to `summary`.
    ///
    /// The minutes wholly inside the span are summed by SQLite from their stored totals (the covering index
    /// `step_minute_totals`; each row stores the moving time inside its minute and the link from the minute
    /// before); the few minutes at each bound (and one gap's worth beyond it) are walked here, unpacking
    /// their steps where the bound cuts them.
    private static func sumSteps(
        _ db: Database, fromMs: Int64, toMs: Int64, sourceID: Int64?, into summary: inout PedometerSummary
    ) throws {
        let gap = StepMinute.maximumActiveGapMilliseconds
        let perMinute = StepMinute.millisecondsPerMinute
        // One minute more on each side: a gap across a bound counts for its part inside the span.
        let firstMinute = StepMinute.minute(ofMilliseconds: fromMs - gap)
        let lastMinute = StepMinute.minute(ofMilliseconds: toMs + gap)
        // Minutes wholly inside [fromMs, toMs) (none when firstInterior > lastInterior).
        let firstInterior = -floorDivide(-fromMs, perMinute)
        let lastInterior = floorDivide(toMs, perMinute) - 1
        var arguments: [String: (any DatabaseValueConvertible)?] = [
            "first": firstMinute, "last": lastMinute, "firstInterior": firstInterior, "lastInterior": lastInterior,
            "perMinute": perMinute,
        ]
        let sourceCondition: String
        if let sourceID {
            arguments["source"] = sourceID
            sourceCondition = "source = :source"
        } else {
            sourceCondition = "source >= 0"
        }
        var interior: [Int64: MinuteTotals] = [:]
        if firstInterior <= lastInterior {
            // A minute's link reaches back to the minute before; the first whole minute's link leaves the
            // run, so it is walked below instead.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT source, SUM(step_count), SUM(distance_millimetres),
                           SUM(active_milliseconds) + SUM(CASE WHEN minute > :firstInterior THEN link_milliseconds ELSE 0 END),
                           MIN(minute * :perMinute + first_offset_milliseconds),
                           MAX(minute * :perMinute + last_offset_milliseconds)
                    FROM step_minute INDEXED BY step_minute_totals
                    WHERE \(sourceCondition) AND minute BETWEEN :firstInterior AND :lastInterior
                    GROUP BY source
                    """,
                arguments: StatementArguments(arguments))
            for row in rows {
                let source: Int64 = row[0]
                interior[source] = MinuteTotals(
                    source: source, minute: firstInterior, count: row[1], distanceMillimetres: row[2],
                    activeMilliseconds: row[3], firstStep: row[4], lastStep: row[5])
            }
        }
        var edges: [Int64: [MinuteTotals]] = [:]
        let edgeRows = try Row.fetchCursor(
            db,
            sql: """
                SELECT source, minute, step_count, distance_millimetres, active_milliseconds,
                       first_offset_milliseconds, last_offset_milliseconds
                FROM step_minute INDEXED BY step_minute_totals
                WHERE \(sourceCondition) AND minute BETWEEN :first AND :last
                  AND (minute < :firstInterior OR minute > :lastInterior)
                ORDER BY source, minute
                """,
            arguments: StatementArguments(arguments))
        while let row = try edgeRows.next() {
            let source: Int64 = row[0]
            let minute: Int64 = row[1]
            let start = minute * perMinute
            edges[source, default: []].append(MinuteTotals(
                source: source, minute: minute, count: row[2], distanceMillimetres: row[3], activeMilliseconds: row[4],
                firstStep: start + (row[5] as Int64), lastStep: start + (row[6] as Int64)))
        }
        let packedSteps = try db.cachedStatement(sql: "SELECT steps FROM step_minute WHERE source = ? AND minute = ?")

        func walk(_ minute: MinuteTotals, _ span: inout StepSpan) throws {
            let start = minute.minute * perMinute
            let end = start + perMinute
            if end <= fromMs {
                span.previous = minute.lastStep
            } else if start >= toMs {
                span.link(to: minute.firstStep)
                span.previous = minute.firstStep
            } else {
                guard let packed = try Data.fetchOne(packedSteps, arguments: [minute.source, minute.minute]),
                      let steps = StepMinute.unpack(packed)
                else {
                    throw DatabaseError(
                        resultCode: .SQLITE_CORRUPT, message: "damaged step row (source \(minute.source), minute \(minute.minute))")
                }
                for step in steps {
                    span.addStep(at: start + Int64(step.offset), strideMillimetres: Int64(step.strideMillimetres))
                }
            }
        }

        for source in Set(interior.keys).union(edges.keys).sorted() {
            var span = StepSpan(from: fromMs, to: toMs)
            let sourceEdges = edges[source] ?? []
            for minute in sourceEdges where minute.minute < firstInterior { try walk(minute, &span) }
            if let whole = interior[source] {
                span.addWholeMinute(
                    first: whole.firstStep, last: whole.lastStep, count: whole.count,
                    distanceMillimetres: whole.distanceMillimetres, activeMilliseconds: whole.activeMilliseconds)
            }
            // (Without whole minutes, firstInterior > lastInterior: every edge minute is walked once.)
            for minute in sourceEdges where minute.minute >= max(firstInterior, lastInterior + 1) {
                try walk(minute, &span)
            }
            summary.steps += span.steps
            summary.distance += Double(span.distanceMillimetres) / 1000
            summary.activeDuration += Double(span.activeMilliseconds) / 1000
            if let first = span.first {
                let date = StepMinute.date(milliseconds: first)
                summary.firstStepDate = summary.firstStepDate.map { min($0, date) } ?? date
            }
            if let last = span.last {
                let date = StepMinute.date(milliseconds: last)
                summary.lastStepDate = summary.lastStepDate.map { max($0, date) } ?? date
            }
        }
    }
}

/// The totals of one minute row, or of a run of whole minutes; first and last are absolute milliseconds.
private struct MinuteTotals {
    var source: Int64
    var minute: Int64
    var count: Int
    var distanceMillimetres: Int64
    var activeMilliseconds: Int64
    /// Milliseconds since 1970 of the first step.
    var firstStep: Int64
    /// Milliseconds since 1970 of the last step.
    var lastStep: Int64
}

#endif
