import Foundation

/// One step inside a minute bucket: milliseconds since the minute's start and stride in millimetres.
package struct PackedStep: Hashable {
    package var offset: UInt16
    package var strideMillimetres: UInt16

    package init(offset: UInt16, strideMillimetres: UInt16) {
        self.offset = offset
        self.strideMillimetres = strideMillimetres
    }
}

/// The steps of one source in one minute, as stored in a `step_minute` row (SQLite and PostgreSQL alike;
/// `package`: the PostgreSQL store packs and sums its rows with the same code).
package struct StepMinute {
    package static let millisecondsPerMinute: Int64 = 60_000
    /// Consecutive steps at most this far apart count as moving time (``HistoryStore/maximumActiveStepGap``).
    package static let maximumActiveGapMilliseconds: Int64 = 2_000

    package var minute: Int64
    /// Sorted by offset, no two with the same offset.
    package var steps: [PackedStep]

    package init(minute: Int64, steps: [PackedStep]) {
        self.minute = minute
        self.steps = steps
    }

    package var startMilliseconds: Int64 { minute * Self.millisecondsPerMinute }

    // MARK: Aggregates stored beside the packed steps

    package var distanceMillimetres: Int64 { steps.reduce(0) { $0 + Int64($1.strideMillimetres) } }

    package var activeMilliseconds: Int64 {
        var total: Int64 = 0
        var previous: Int64?
        for step in steps {
            let t = Int64(step.offset)
            if let p = previous, t - p <= Self.maximumActiveGapMilliseconds { total += t - p }
            previous = t
        }
        return total
    }

    // MARK: Packing

    /// 4 bytes per step, little-endian: UInt16 offset in ms, UInt16 stride in mm.
    package func packed() -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(steps.count * 4)
        for step in steps {
            bytes.append(UInt8(truncatingIfNeeded: step.offset))
            bytes.append(UInt8(truncatingIfNeeded: step.offset >> 8))
            bytes.append(UInt8(truncatingIfNeeded: step.strideMillimetres))
            bytes.append(UInt8(truncatingIfNeeded: step.strideMillimetres >> 8))
        }
        return Data(bytes)
    }

    /// Decodes a packed blob; `nil` when its length is not a multiple of 4 or an offset is outside the minute
    /// (a damaged row).
    package static func unpack(_ data: Data) -> [PackedStep]? {
        guard data.count % 4 == 0 else { return nil }
        var steps = [PackedStep]()
        steps.reserveCapacity(data.count / 4)
        let valid = data.withUnsafeBytes { raw -> Bool in
            var index = 0
            while index < raw.count {
                let offset = UInt16(raw[index]) | UInt16(raw[index + 1]) << 8
                let stride = UInt16(raw[index + 2]) | UInt16(raw[index + 3]) << 8
                guard Int64(offset) < millisecondsPerMinute else { return false }
                steps.append(PackedStep(offset: offset, strideMillimetres: stride))
                index += 4
            }
            return true
        }
        return valid ? steps : nil
    }

    /// Adds steps (any order); a step at an offset already present is a duplicate and is ignored.
    package mutating func merge(_ newSteps: [PackedStep]) {
        var seen = Set(steps.map(\.offset))
        for step in newSteps where seen.insert(step.offset).inserted {
            steps.append(step)
        }
        steps.sort { $0.offset < $1.offset }
    }

    // MARK: Quantisation

    /// Milliseconds since 1970 of a date, rounded to the nearest millisecond.
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    package static func minute(ofMilliseconds ms: Int64) -> Int64 {
        floorDivide(ms, millisecondsPerMinute)
    }

    package static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// Integer division rounding toward −∞.
package func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}

/// Accumulates the steps of one source over `[from, to)`, visiting its steps in date order.
package struct StepSpan {
    package let from: Int64
    package let to: Int64
    package var steps = 0
    package var distanceMillimetres: Int64 = 0
    package var activeMilliseconds: Int64 = 0
    package var first: Int64?
    package var last: Int64?
    /// The previous step visited (inside the span or not).
    package var previous: Int64?

    package init(from: Int64, to: Int64) {
        self.from = from
        self.to = to
    }

    /// Counts the part inside the span of the gap from the previous step to `t`, when it is short enough.
    package mutating func link(to t: Int64) {
        if let p = previous, t - p <= StepMinute.maximumActiveGapMilliseconds {
            activeMilliseconds += max(0, min(t, to) - max(p, from))
        }
    }

    package mutating func addStep(at t: Int64, strideMillimetres: Int64) {
        link(to: t)
        if t >= from, t < to {
            steps += 1
            distanceMillimetres += strideMillimetres
            if first == nil { first = t }
            last = t
        }
        previous = t
    }

    package mutating func addWholeMinute(first f: Int64, last l: Int64, count: Int, distanceMillimetres d: Int64, activeMilliseconds a: Int64) {
        link(to: f)
        steps += count
        distanceMillimetres += d
        activeMilliseconds += a
        if first == nil { first = f }
        last = l
        previous = l
    }
}
