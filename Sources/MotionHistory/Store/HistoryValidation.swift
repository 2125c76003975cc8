import Foundation
import MotionSamples

/// The checks every history store makes before it accepts records or answers a query, so that the SQLite
/// store (``HistoryStore``) and the PostgreSQL store (`MotionHistoryPostgres`) refuse the same inputs with
/// the same errors. Built with or without the `SQLiteHistory` trait; visible to the package's modules only.
package enum HistoryValidation {
    /// A source tag is 1…``HistoryStore/maximumSourceLength`` characters.
    package static func validate(source: String) throws {
        guard !source.isEmpty, source.count <= HistoryStore.maximumSourceLength else { throw HistoryError.invalidSource(source) }
    }

    /// Dates must be finite and within ±3 000 years of 1970 (so that microseconds fit in 64 bits).
    package static func validate(date: Date, kind: String, index: Int, field: String) throws {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 9.4e10 else {
            throw HistoryError.invalidRecord(kind: kind, index: index, field: field, value: "\(seconds) s since 1970")
        }
    }

    /// A query span: both bounds valid dates, `start <= end`.
    package static func validateSpan(_ start: Date, _ end: Date) throws {
        for date in [start, end] {
            let seconds = date.timeIntervalSince1970
            guard seconds.isFinite, abs(seconds) < 9.4e10 else {
                throw HistoryError.invalidSpan(start: start.timeIntervalSince1970, end: end.timeIntervalSince1970)
            }
        }
        guard start <= end else { throw HistoryError.invalidSpan(start: start.timeIntervalSince1970, end: end.timeIntervalSince1970) }
    }

    /// An accelerometer query span: valid, and at most ``HistoryStore/maximumAccelerometerSpan`` long.
    package static func validateAccelerometerSpan(_ start: Date, _ end: Date) throws {
        try validateSpan(start, end)
        let span = end.timeIntervalSince(start)
        guard span <= HistoryStore.maximumAccelerometerSpan else {
            throw HistoryError.spanTooLong(seconds: span, limit: HistoryStore.maximumAccelerometerSpan)
        }
    }

    /// Steps: valid dates, strides in `0...65.535` m (stored as whole millimetres in 16 bits).
    package static func validate(steps: [StepRecord], source: String) throws {
        try validate(source: source)
        for (index, step) in steps.enumerated() {
            try validate(date: step.date, kind: "step", index: index, field: "date")
            guard step.strideLength.isFinite, step.strideLength >= 0, step.strideLength <= 65.535 else {
                throw HistoryError.invalidRecord(
                    kind: "step", index: index, field: "strideLength (m, 0...65.535)", value: "\(step.strideLength)")
            }
        }
    }

    /// Floor changes: valid dates.
    package static func validate(floors: [FloorRecord], source: String) throws {
        try validate(source: source)
        for (index, floor) in floors.enumerated() {
            try validate(date: floor.date, kind: "floor", index: index, field: "date")
        }
    }

    /// Pedometer transitions: valid dates.
    package static func validate(transitions: [PedometerTransitionRecord], source: String) throws {
        try validate(source: source)
        for (index, transition) in transitions.enumerated() {
            try validate(date: transition.date, kind: "pedometer transition", index: index, field: "date")
        }
    }

    /// Activity starts: valid dates, only known flags.
    package static func validate(activities: [ActivityRecord], source: String) throws {
        try validate(source: source)
        for (index, activity) in activities.enumerated() {
            try validate(date: activity.startDate, kind: "activity", index: index, field: "startDate")
            guard ActivityFlags.all.isSuperset(of: activity.flags) else {
                throw HistoryError.invalidRecord(
                    kind: "activity", index: index, field: "flags", value: "\(activity.flags.rawValue)")
            }
        }
    }

    /// Accelerometer samples: valid dates, finite components that fit a 32-bit float. The order is checked
    /// by ``checkOrder(of:source:after:)`` under the store's lock.
    package static func validate(samples: [AccelerometerRecord], source: String) throws {
        try validate(source: source)
        for (index, sample) in samples.enumerated() {
            try validate(date: sample.date, kind: "accelerometer", index: index, field: "date")
            let a = sample.acceleration
            for (name, value) in [("x", a.x), ("y", a.y), ("z", a.z)]
            where !value.isFinite || abs(value) > Double(Float.greatestFiniteMagnitude) {
                throw HistoryError.invalidRecord(kind: "accelerometer", index: index, field: name, value: "\(value)")
            }
        }
    }

    /// Checks that each sample is later (to the microsecond) than the one before it and than `previous`, the
    /// last sample of the source appended before; returns the date of the last sample.
    package static func checkOrder(of samples: [AccelerometerRecord], source: String, after previous: Date?) throws -> Date? {
        var previous = previous
        for (index, sample) in samples.enumerated() {
            if let previous, AccelerometerChunk.microseconds(sample.date) <= AccelerometerChunk.microseconds(previous) {
                throw HistoryError.outOfOrderSample(source: source, index: index, date: sample.date, previous: previous)
            }
            previous = sample.date
        }
        return previous
    }

    /// A recording request: valid source and start, a positive finite duration of at most 12 h.
    package static func validateRecording(from start: Date, duration: TimeInterval, source: String) throws {
        try validate(source: source)
        try validate(date: start, kind: "recording request", index: 0, field: "start")
        guard duration.isFinite, duration > 0 else {
            throw HistoryError.invalidRecord(kind: "recording request", index: 0, field: "duration (s)", value: "\(duration)")
        }
        guard duration <= HistoryStore.maximumAccelerometerSpan else {
            throw HistoryError.spanTooLong(seconds: duration, limit: HistoryStore.maximumAccelerometerSpan)
        }
    }
}
