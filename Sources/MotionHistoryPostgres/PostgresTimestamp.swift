import Foundation
import MotionHistory
import PostgresNIO

/// A `timestamptz` as whole microseconds since 1970, encoded and decoded exactly.
///
/// postgres-nio's own `Date` coding truncates the product of a `Double` (a date 0.000 001 s after a whole
/// second may be written one microsecond early), so the store converts dates itself: rounded to the
/// microsecond as the SQLite store rounds accelerometer dates, and read back as `Double(µs) / 10⁶`.
struct PostgresTimestamp: Hashable, Comparable, Sendable {
    /// Microseconds since 1970-01-01 00:00:00 UTC.
    var microseconds: Int64

    /// PostgreSQL counts from 2000-01-01 00:00:00 UTC.
    static let postgresEpochOffset: Int64 = 946_684_800_000_000

    init(microseconds: Int64) {
        self.microseconds = microseconds
    }

    /// A date rounded to the nearest microsecond.
    init(_ date: Date) {
        microseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    /// The start of a step minute (minutes since 1970).
    init(minute: Int64) {
        microseconds = minute * 60_000_000
    }

    var date: Date { Date(timeIntervalSince1970: Double(microseconds) / 1_000_000) }

    /// Milliseconds since 1970 (exact for step minutes).
    var milliseconds: Int64 { floorDivide(microseconds, 1000) }

    /// The minute (since 1970) this time falls in.
    var minute: Int64 { floorDivide(microseconds, 60_000_000) }

    static func < (a: Self, b: Self) -> Bool { a.microseconds < b.microseconds }
}

extension PostgresTimestamp: PostgresNonThrowingEncodable {
    static var psqlType: PostgresDataType { .timestamptz }
    static var psqlFormat: PostgresFormat { .binary }

    func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        byteBuffer.writeInteger(microseconds - Self.postgresEpochOffset)
    }
}

extension PostgresTimestamp: PostgresDecodable {
    init<JSONDecoder: PostgresJSONDecoder>(
        from buffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat, context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        guard format == .binary, type == .timestamptz || type == .timestamp, buffer.readableBytes == 8,
              let value = buffer.readInteger(as: Int64.self)
        else { throw PostgresDecodingError.Code.typeMismatch }
        microseconds = value + Self.postgresEpochOffset
    }
}
