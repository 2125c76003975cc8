import Foundation
import MotionHistory

/// The PostgreSQL history's schema: its migrations, applied in order, each once.
///
/// Migration 1 is `tools/postgres/schema.sql`, embedded here word for word (a test checks that the two are
/// the same text). A later schema adds migration 2, … and never edits an applied one. The store applies
/// what is missing inside one transaction after `SELECT pg_advisory_xact_lock(``advisoryLockKey``)`, so
/// that nodes starting at once apply a migration once; it refuses a database holding a migration it does
/// not know (``HistoryError/newerSchema(path:unknownMigrations:)``).
enum PostgresSchema {
    /// One migration: its version (a row of `coremotion.schema_migrations`) and its SQL, which inserts
    /// that row itself.
    struct Migration: Sendable {
        var version: Int
        var sql: String
    }

    /// The key of the transaction-level advisory lock taken while migrating ("CMHS" in ASCII, the SQLite
    /// store's application id, followed by "PG").
    static let advisoryLockKey: Int64 = 0x434D_4853_5047

    /// Every migration this version knows, oldest first.
    static let migrations = [Migration(version: 1, sql: version1)]

    /// The latest schema version this version knows.
    static var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// Migration 1: `tools/postgres/schema.sql`.
    static let version1 = #"""
-- The PostgreSQL history, schema version 1 (migration 1).
--
-- Applied by the Swift store inside one transaction, after `SELECT pg_advisory_xact_lock(...)` so that
-- several nodes starting at once apply it once; a store that finds a version in `schema_migrations`
-- it does not know refuses to write. A later schema adds migration 2, ... and never edits this file.
-- By hand: psql --single-transaction -v ON_ERROR_STOP=1 -f tools/postgres/schema.sql URL
--
-- Everything lives in the schema `coremotion`, every name qualified (analysts: SET search_path =
-- coremotion). Times are `timestamptz` (microsecond resolution); offsets inside packed or array
-- columns are relative to the row's own start and say their unit. Every record row carries `device` (-> device.id).
-- docs/notes/postgres-history.md gives the reasons and the measured figures.

CREATE SCHEMA coremotion;

CREATE TABLE coremotion.schema_migrations (
    version integer PRIMARY KEY,
    applied_at timestamptz NOT NULL DEFAULT now()
);

-- One row per device that ever wrote: a phone (its Sensor Logger `deviceId`) or a daemon's own device
-- (machine id + device spec, e.g. '3f2a…:iio:/sys/bus/iio/devices/iio:device0'). Rows are never
-- deleted, so ids stay valid for every process. Created with
--   INSERT ... ON CONFLICT (name) DO UPDATE SET last_seen = greatest(device.last_seen, excluded.last_seen)
--   RETURNING id
-- which is safe when two nodes meet a new phone at once.
CREATE TABLE coremotion.device (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 1024),
    kind text NOT NULL CHECK (kind IN ('phone', 'machine', 'replay', 'simulation', 'other')),
    description text NOT NULL DEFAULT '',
    first_seen timestamptz NOT NULL,
    last_seen timestamptz NOT NULL,
    -- identifier of the next sample of this device's sensor recorder (CMSensorRecorder identifiers)
    next_accelerometer_identifier bigint NOT NULL DEFAULT 1,
    CHECK (first_seen <= last_seen)
);

-- Which node runs a device's engines (pedometer, activity, altimeter) and how far their records are
-- written. Raw readings and push receipts are written by whichever node a push reaches; derived records
-- have one writer per device: the node holding the lease (`lease_until` in the future), which renews it
-- while it works. A node takes a missing or expired lease, restarts the engines from the stored raw
-- readings shortly before `derived_until` and writes only records after it. Every transaction that
-- writes derived records also moves `derived_until` forward with
--   UPDATE device_engine SET derived_until = $new, lease_until = $lease
--   WHERE device = $d AND node = $me AND derived_until = $old
-- and rolls back when that updates no row (the lease was lost meanwhile), so a stalled former holder
-- cannot write twice.
CREATE TABLE coremotion.device_engine (
    device bigint PRIMARY KEY REFERENCES coremotion.device (id),
    node text NOT NULL,
    lease_until timestamptz NOT NULL,
    derived_until timestamptz NOT NULL
);

-- Steps, one row per device and minute; `steps` packs every step of the minute, sorted by date, no two
-- in the same millisecond, 4 bytes a step: uint16 little-endian milliseconds since `minute`, uint16
-- little-endian stride length in millimetres. The totals are the sums the SQLite store keeps.
-- The primary key's index carries the totals (INCLUDE), so a summary is an index-only scan.
CREATE TABLE coremotion.step_minute (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    minute timestamptz NOT NULL CHECK (extract(epoch FROM minute) % 60 = 0),
    step_count integer NOT NULL CHECK (step_count > 0),
    distance_millimetres integer NOT NULL CHECK (distance_millimetres >= 0),
    active_milliseconds integer NOT NULL CHECK (active_milliseconds BETWEEN 0 AND 60000),
    link_milliseconds integer NOT NULL CHECK (link_milliseconds BETWEEN 0 AND 2000),
    first_offset_milliseconds integer NOT NULL CHECK (first_offset_milliseconds BETWEEN 0 AND 59999),
    last_offset_milliseconds integer NOT NULL CHECK (last_offset_milliseconds BETWEEN 0 AND 59999),
    steps bytea NOT NULL CHECK (length(steps) = 4 * step_count),
    PRIMARY KEY (device, minute) INCLUDE (step_count, distance_millimetres, active_milliseconds,
        link_milliseconds, first_offset_milliseconds, last_offset_milliseconds)
);
CREATE INDEX step_minute_by_minute ON coremotion.step_minute (minute);

CREATE TABLE coremotion.floor_change (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    date timestamptz NOT NULL,
    change smallint NOT NULL CHECK (change IN (-1, 1)),
    PRIMARY KEY (device, date)
);
CREATE INDEX floor_change_by_date ON coremotion.floor_change (date);

CREATE TABLE coremotion.pedometer_transition (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    date timestamptz NOT NULL,
    transition smallint NOT NULL CHECK (transition IN (0, 1)),   -- 0 pause, 1 resume
    PRIMARY KEY (device, date)
);
CREATE INDEX pedometer_transition_by_date ON coremotion.pedometer_transition (date);

-- An activity state from `start` until the device's next segment. flags: 1 unknown, 2 stationary,
-- 4 walking, 8 running, 16 cycling, 32 automotive (ActivityFlags); confidence: 0 low, 1 medium, 2 high.
CREATE TABLE coremotion.activity_segment (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    start timestamptz NOT NULL,
    flags smallint NOT NULL CHECK (flags BETWEEN 0 AND 63),
    confidence smallint NOT NULL CHECK (confidence BETWEEN 0 AND 2),
    PRIMARY KEY (device, start)
);
CREATE INDEX activity_segment_by_start ON coremotion.activity_segment (start);

-- The sensor recorder (CMSensorRecorder) of a daemon's own device: chunks of at most 1 024 accelerometer
-- samples spanning at most 60 s, packed as in the SQLite store, 16 bytes a sample: uint32 little-endian
-- microseconds since `start_time`, then x, y, z as little-endian float32 in g. Sample i has the
-- identifier first_identifier + i (taken from device.next_accelerometer_identifier in the same
-- transaction).
CREATE TABLE coremotion.accelerometer_chunk (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    start_time timestamptz NOT NULL,          -- first sample
    end_time timestamptz NOT NULL,            -- last sample
    first_identifier bigint NOT NULL,
    sample_count integer NOT NULL CHECK (sample_count BETWEEN 1 AND 1024),
    samples bytea NOT NULL CHECK (length(samples) = 16 * sample_count),
    PRIMARY KEY (device, start_time),
    UNIQUE (device, first_identifier),
    CHECK (end_time >= start_time AND end_time <= start_time + interval '60 seconds')
);

CREATE TABLE coremotion.recording_request (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    device bigint NOT NULL REFERENCES coremotion.device (id),
    start timestamptz NOT NULL,
    "end" timestamptz NOT NULL CHECK ("end" >= start)
);
CREATE INDEX recording_request_by_device_end ON coremotion.recording_request (device, "end");

-- What the fusion learned about a device's sensor errors (SensorCalibrationState as JSON: gyroscope
-- bias and its sigma, magnetometer calibration). Replaces the SQLite store's calibration/<device>.json.
CREATE TABLE coremotion.calibration (
    device bigint PRIMARY KEY REFERENCES coremotion.device (id),
    saved_at timestamptz NOT NULL,
    state jsonb NOT NULL
);

-- A kind of raw reading as a sender names it ('accelerometer', 'gyroscope', 'magnetometer',
-- 'location', ...) with the names of its value fields in order ('{x,y,z}'). Units are the sender's
-- (Sensor Logger: m/s^2, rad/s, microtesla, ...).
CREATE TABLE coremotion.sensor (
    id smallint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 256),
    fields text[] NOT NULL CHECK (cardinality(fields) BETWEEN 1 AND 32),
    UNIQUE (name, fields)
);

-- Raw readings of any sensor in chunks: one row per device, sensor and push (a 1 s push gives one row
-- per sensor and second), at most 1 024 readings spanning at most 60 s; a longer push is split.
-- offsets[i]: microseconds since start_time of reading i (offsets[1] = 0, increasing).
-- real_values[i][j]: field j (sensor.fields[j]) of reading i, float4; `double_values` instead for sensors
-- whose values need float8 (location); exactly one of the two is set.
-- Read as rows:  SELECT c.start_time + o * interval '1 microsecond' AS time, v ...
--                FROM sample_chunk c, unnest(c.offsets) WITH ORDINALITY AS u(o, i) ...
CREATE TABLE coremotion.sample_chunk (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    sensor smallint NOT NULL REFERENCES coremotion.sensor (id),
    start_time timestamptz NOT NULL,          -- first reading
    end_time timestamptz NOT NULL,            -- last reading
    sample_count integer NOT NULL CHECK (sample_count BETWEEN 1 AND 1024),
    offsets integer[] NOT NULL,
    real_values real[],
    double_values double precision[],
    PRIMARY KEY (device, sensor, start_time),
    CHECK (end_time >= start_time AND end_time <= start_time + interval '60 seconds'),
    CHECK (array_ndims(offsets) = 1 AND cardinality(offsets) = sample_count AND offsets[1] = 0),
    CHECK ((real_values IS NULL) <> (double_values IS NULL)),
    CHECK (real_values IS NULL OR (array_ndims(real_values) = 2 AND array_length(real_values, 1) = sample_count)),
    CHECK (double_values IS NULL
        OR (array_ndims(double_values) = 2 AND array_length(double_values, 1) = sample_count))
);

-- Per device and sensor: the span and the number of stored raw readings, kept in the push's
-- transaction (only for chunks actually inserted), so `history devices` reads a few rows instead of
-- summing every chunk.
CREATE TABLE coremotion.device_sensor (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    sensor smallint NOT NULL REFERENCES coremotion.sensor (id),
    first_time timestamptz NOT NULL,
    last_time timestamptz NOT NULL,
    sample_count bigint NOT NULL CHECK (sample_count >= 0),
    PRIMARY KEY (device, sensor)
);

-- Push deduplication: one row per push stored, written in the same transaction as the push's chunks.
-- Sensor Logger numbers messages per recording, so the key is (device, session, message id); a sender
-- without sessions uses ''. A retried push, on this node or another, conflicts here and stores nothing.
CREATE TABLE coremotion.push_receipt (
    device bigint NOT NULL REFERENCES coremotion.device (id),
    session_id text NOT NULL CHECK (length(session_id) <= 256),
    message_id bigint NOT NULL,
    received_at timestamptz NOT NULL,
    node text NOT NULL,
    sample_count integer NOT NULL,
    PRIMARY KEY (device, session_id, message_id)
);

INSERT INTO coremotion.schema_migrations (version) VALUES (1);

"""#

    /// The statements of a script, without comments: split at semicolons outside quotes (the extended
    /// query protocol runs one statement at a time).
    static func statements(of script: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inQuote: Character?
        var inComment = false
        var previous: Character?
        for character in script {
            if inComment {
                if character == "\n" { inComment = false; current.append(character) }
                previous = character
                continue
            }
            if let quote = inQuote {
                current.append(character)
                if character == quote { inQuote = nil }
            } else if character == "-", previous == "-" {
                current.removeLast()
                inComment = true
            } else if character == "'" || character == "\"" {
                inQuote = character
                current.append(character)
            } else if character == ";" {
                let statement = current.trimmingCharacters(in: .whitespacesAndNewlines)
                if !statement.isEmpty { statements.append(statement) }
                current = ""
            } else {
                current.append(character)
            }
            previous = inComment ? nil : character
        }
        let last = current.trimmingCharacters(in: .whitespacesAndNewlines)
        if !last.isEmpty { statements.append(last) }
        return statements
    }
}
