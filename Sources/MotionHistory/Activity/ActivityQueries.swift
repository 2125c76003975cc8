// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import Foundation
import GRDB

extension HistoryStore {
    /// The activity segments overlapping `[start, end)`, in date order.
    ///
    /// The first segment of each source may start before `start`: it is the state in force at `start`. A
    /// segment that starts exactly at `end` is not included. Consecutive segments of one source with the same
    /// flags and confidence are one segment (the earlier start is kept). The result is empty when no segment
    /// overlaps the span (nothing recorded yet, or `start == end`); Apple's API then reports
    /// `CMErrorUnknown`.
    ///
    /// - Throws: ``HistoryError/invalidSpan(start:end:)``, ``HistoryError/closed(location:)``, or a
    ///   ``HistoryError`` naming the file when reading fails.
    public func activities(from start: Date, to end: Date, source: String?) throws -> [ActivitySegment] {
        try Self.validateSpan(start, end)
        try flushBeforeQuery()
        guard start < end else { return [] }
        let rows: [Row]
        do {
            rows = try database.read { db -> [Row] in
                var arguments: [String: (any DatabaseValueConvertible)?] = [
                    "from": start.timeIntervalSince1970, "to": end.timeIntervalSince1970,
                ]
                var sourceCondition = ""
                if let source {
                    guard let id = try Self.storedSourceID(source, db) else { return [] }
                    arguments["source"] = id
                    sourceCondition = "AND a.source = :source"
                }
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT a.start, a.flags, a.confidence, s.name, a.source FROM activity_segment AS a
                        JOIN source AS s ON s.id = a.source
                        WHERE a.id IN (
                            SELECT (SELECT b.id FROM activity_segment AS b
                                    WHERE b.source = known.id AND b.start <= :from
                                    ORDER BY b.start DESC, b.id DESC LIMIT 1)
                            FROM source AS known \(source == nil ? "" : "WHERE known.id = :source"))
                        UNION ALL
                        SELECT a.start, a.flags, a.confidence, s.name, a.source FROM activity_segment AS a
                        JOIN source AS s ON s.id = a.source
                        WHERE a.start > :from AND a.start < :to \(sourceCondition)
                        ORDER BY 1, 5
                        """,
                    arguments: StatementArguments(arguments))
            }
        } catch {
            throw mapError(error, operation: "reading activity history")
        }
        var segments: [ActivitySegment] = []
        var lastState: [Int64: (ActivityFlags, ActivityConfidence)] = [:]
        for row in rows {
            let sourceID: Int64 = row[4]
            let flags = ActivityFlags(rawValue: UInt8(truncatingIfNeeded: row[1] as Int)).intersection(.all)
            let confidence = ActivityConfidence(rawValue: row[2]) ?? .low
            if let last = lastState[sourceID], last == (flags, confidence) { continue }
            lastState[sourceID] = (flags, confidence)
            segments.append(ActivitySegment(
                startDate: Date(timeIntervalSince1970: row[0]), flags: flags, confidence: confidence, source: row[3]))
        }
        return segments
    }
}
#endif
