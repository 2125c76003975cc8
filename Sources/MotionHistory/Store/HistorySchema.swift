// The SQLite store: built with the package trait `SQLiteHistory` (on by default); HistoryStore+WithoutSQLite.swift otherwise.
#if SQLiteHistory
import GRDB

/// The schema of the history file, built by GRDB's `DatabaseMigrator`.
///
/// Version 1 (migration `"v1"`). Dates are seconds since 1970 (UTC) as `REAL`, except where a column name
/// says milliseconds or microseconds (`INTEGER`). Every record table has a `source` column referring to
/// `source(id)`. `docs/history.md` describes every column.
enum HistorySchema {
    /// `PRAGMA application_id` of a history file: "CMHS" in ASCII. A file with tables and another id is
    /// some other program's database and is never modified.
    static let applicationID: Int32 = 0x434D_4853

    /// Migration identifiers this version knows, in order.
    static let migrationIdentifiers = ["v1"]

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
            try db.execute(sql: """
                CREATE TABLE source (
                    id INTEGER PRIMARY KEY,
                    name TEXT NOT NULL UNIQUE
                );
                CREATE TABLE store_counter (
                    name TEXT PRIMARY KEY NOT NULL,
                    value INTEGER NOT NULL
                );
                INSERT INTO store_counter (name, value) VALUES ('next_accelerometer_identifier', 1);

                -- Steps, one row per source and minute; `steps` packs every step of the minute, sorted by
                -- date, as 4 bytes: UInt16 little-endian milliseconds since the minute's start, UInt16
                -- little-endian stride length in millimetres.
                CREATE TABLE step_minute (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    minute INTEGER NOT NULL,                  -- floor(milliseconds since 1970 / 60 000)
                    step_count INTEGER NOT NULL,
                    distance_millimetres INTEGER NOT NULL,    -- sum of the packed stride lengths
                    active_milliseconds INTEGER NOT NULL,     -- sum of gaps ≤ 2 000 ms between packed steps
                    link_milliseconds INTEGER NOT NULL,       -- gap from the last step of minute - 1 to the
                                                              -- first step of this minute if ≤ 2 000 ms, else 0
                    first_offset_milliseconds INTEGER NOT NULL,
                    last_offset_milliseconds INTEGER NOT NULL,
                    steps BLOB NOT NULL,
                    UNIQUE (source, minute)
                );
                CREATE INDEX step_minute_by_minute ON step_minute (minute);
                -- Covers the totals, so that a long summary reads this narrow index, not every packed row.
                CREATE INDEX step_minute_totals ON step_minute (source, minute, step_count, distance_millimetres,
                    active_milliseconds, link_milliseconds, first_offset_milliseconds, last_offset_milliseconds);

                CREATE TABLE floor_change (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    date REAL NOT NULL,
                    change INTEGER NOT NULL CHECK (change IN (-1, 1))
                );
                CREATE INDEX floor_change_by_source_date ON floor_change (source, date);
                CREATE INDEX floor_change_by_date ON floor_change (date);

                CREATE TABLE pedometer_transition (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    date REAL NOT NULL,
                    transition INTEGER NOT NULL CHECK (transition IN (0, 1))  -- 0 pause, 1 resume
                );
                CREATE INDEX pedometer_transition_by_source_date ON pedometer_transition (source, date);
                CREATE INDEX pedometer_transition_by_date ON pedometer_transition (date);

                CREATE TABLE activity_segment (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    start REAL NOT NULL,
                    flags INTEGER NOT NULL CHECK (flags BETWEEN 0 AND 63),
                    confidence INTEGER NOT NULL CHECK (confidence BETWEEN 0 AND 2)
                );
                CREATE INDEX activity_segment_by_source_start ON activity_segment (source, start);
                CREATE INDEX activity_segment_by_start ON activity_segment (start);

                -- Accelerometer samples in chunks of at most 1 024 samples spanning at most 60 s; `samples`
                -- packs 16 bytes per sample: UInt32 little-endian microseconds since `start_microseconds`,
                -- then x, y, z as little-endian Float32 in g. Sample i has identifier first_identifier + i.
                CREATE TABLE accelerometer_chunk (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    first_identifier INTEGER NOT NULL,
                    sample_count INTEGER NOT NULL,
                    start_microseconds INTEGER NOT NULL,      -- microseconds since 1970 of the first sample
                    end_microseconds INTEGER NOT NULL,        -- of the last sample
                    samples BLOB NOT NULL
                );
                CREATE INDEX accelerometer_chunk_by_source_start ON accelerometer_chunk (source, start_microseconds);
                CREATE INDEX accelerometer_chunk_by_start ON accelerometer_chunk (start_microseconds);

                CREATE TABLE recording_request (
                    id INTEGER PRIMARY KEY,
                    source INTEGER NOT NULL REFERENCES source(id),
                    start REAL NOT NULL,
                    end REAL NOT NULL
                );
                CREATE INDEX recording_request_by_end ON recording_request (end);
                """)
        }
        return migrator
    }
}
#endif
