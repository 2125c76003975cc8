import Foundation

/// One step inside a minute bucket: milliseconds since the minute's start and stride in millimetres.
struct PackedStep: Hashable {
    var offset: UInt16
    var strideMillimetres: UInt16
}

/// The steps of one source in one minute, as stored in a `step_minute` row.
struct StepMinute {
    static let millisecondsPerMinute: Int64 = 60_000
    /// Consecutive steps at most this far apart count as moving time (``HistoryStore/maximumActiveStepGap``).
    static let maximumActiveGapMilliseconds: Int64 = 2_000

    var minute: Int64
    /// Sorted by offset, no two with the same offset.
    var steps: [PackedStep]

    var startMilliseconds: Int64 { minute * Self.millisecondsPerMinute }

    // MARK: Aggregates stored beside the packed steps

    var distanceMillimetres: Int64 { steps.reduce(0) { $0 + Int64($1.strideMillimetres) } }

    var activeMilliseconds: Int64 {
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
    func packed() -> Data {
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
    static func unpack(_ data: Data) -> [PackedStep]? {
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
    mutating func merge(_ newSteps: [PackedStep]) {
        var seen = Set(steps.map(\.offset))
        for step in newSteps where seen.insert(step.offset).inserted {
            steps.append(step)
        }
        steps.sort { $0.offset < $1.offset }
    }

    // MARK: Quantisation

    /// Milliseconds since 1970 of a date, rounded to the nearest millisecond.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func minute(ofMilliseconds ms: Int64) -> Int64 {
        floorDivide(ms, millisecondsPerMinute)
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

/// Integer division rounding toward −∞.
func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
    let q = a / b
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
}
