import Foundation

/// A run of accelerometer samples of one source, as stored in an `accelerometer_chunk` row (SQLite and
/// PostgreSQL alike; `package`: the PostgreSQL store packs its chunks with the same code).
package struct AccelerometerChunk {
    /// Chunks hold at most this many samples…
    package static let maximumSamples = 1024
    /// …spanning at most this long, microseconds (queries look back this far for chunks that started before
    /// their start).
    package static let maximumSpanMicroseconds: Int64 = 60_000_000
    package static let bytesPerSample = 16

    package struct Sample {
        package var microseconds: Int64
        package var x: Float
        package var y: Float
        package var z: Float

        package init(microseconds: Int64, x: Float, y: Float, z: Float) {
            self.microseconds = microseconds
            self.x = x
            self.y = y
            self.z = z
        }
    }

    package var samples: [Sample]

    package init(samples: [Sample]) {
        self.samples = samples
    }

    package var startMicroseconds: Int64 { samples.first?.microseconds ?? 0 }
    package var endMicroseconds: Int64 { samples.last?.microseconds ?? 0 }

    /// Splits samples (sorted by date) into chunks within the size and span limits.
    package static func chunks(of samples: [Sample]) -> [AccelerometerChunk] {
        var result = [AccelerometerChunk]()
        var current = [Sample]()
        for sample in samples {
            if let first = current.first,
               current.count == maximumSamples || sample.microseconds - first.microseconds > maximumSpanMicroseconds {
                result.append(AccelerometerChunk(samples: current))
                current.removeAll(keepingCapacity: true)
            }
            current.append(sample)
        }
        if !current.isEmpty { result.append(AccelerometerChunk(samples: current)) }
        return result
    }

    /// 16 bytes per sample, little-endian: UInt32 µs since the chunk start, Float32 x, y, z (g).
    package func packed() -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(samples.count * Self.bytesPerSample)
        let start = startMicroseconds
        func append(_ value: UInt32) {
            bytes.append(UInt8(truncatingIfNeeded: value))
            bytes.append(UInt8(truncatingIfNeeded: value >> 8))
            bytes.append(UInt8(truncatingIfNeeded: value >> 16))
            bytes.append(UInt8(truncatingIfNeeded: value >> 24))
        }
        for sample in samples {
            append(UInt32(sample.microseconds - start))
            append(sample.x.bitPattern)
            append(sample.y.bitPattern)
            append(sample.z.bitPattern)
        }
        return Data(bytes)
    }

    /// Calls `body` with each sample of a packed blob; returns false when the blob does not hold `count`
    /// samples (a damaged row).
    package static func unpack(
        _ data: Data, count: Int, startMicroseconds: Int64, _ body: (_ index: Int, _ sample: Sample) -> Void
    ) -> Bool {
        guard count >= 0, data.count == count * bytesPerSample else { return false }
        data.withUnsafeBytes { raw in
            for index in 0..<count {
                let base = index * bytesPerSample
                let offset = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base, as: UInt32.self))
                let x = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 4, as: UInt32.self)))
                let y = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 8, as: UInt32.self)))
                let z = Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: base + 12, as: UInt32.self)))
                body(index, Sample(microseconds: startMicroseconds + Int64(offset), x: x, y: y, z: z))
            }
        }
        return true
    }

    /// Microseconds since 1970 of a date, rounded.
    package static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
    }

    package static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}
