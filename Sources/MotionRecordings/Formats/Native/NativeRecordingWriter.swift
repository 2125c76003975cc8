import Foundation

/// Writes a recording in the project's own format (`.cmrec`), sample by sample as they come.
///
/// ```swift
/// let writer = try NativeRecordingWriter(url: url, metadata: RecordingMetadata(format: "IIO", source: "iio:device0"),
///                                        timeOrigin: clock.now)
/// device.run([.accelerometer: 100], sink: { try? writer.append($0) }, events: { _ in })
/// …
/// try writer.close()
/// ```
///
/// Numbers are written in Swift's shortest round-trip form, so reading the file back gives the
/// same `Double` bit for bit. Rows are written in the order they are appended; the reader applies
/// the bad-input policy per sensor. The writer buffers about 64 KiB; ``flush()`` pushes the buffer
/// to the file, ``close()`` flushes and closes (also done when the writer is released).
/// It is safe to append from several threads (appends are serialised).
public final class NativeRecordingWriter: @unchecked Sendable {  // @unchecked: `handle`, `buffer`, `rows` under `lock` (held across writes)
    /// The file being written.
    public let url: URL
    /// Subtracted from every appended sample's time, seconds (e.g. the clock time when recording began).
    public let timeOrigin: Double

    private let lock = NSLock()
    private var handle: FileHandle?
    private var buffer: [UInt8] = []
    private let flushThreshold = 1 << 16
    private var rows = 0
    /// Number of sample rows written so far.
    public var rowCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return rows
    }

    /// Creates (or truncates) `url` and writes the header.
    ///
    /// - Parameters:
    ///   - metadata: device, start date (wall clock of `timeOrigin`), source, licence and properties.
    ///   - timeOrigin: seconds subtracted from appended samples' times so that the file's times are
    ///     seconds from the start.
    ///   - stepTotal: a ground-truth step total to record in the header, if any.
    public init(url: URL, metadata: RecordingMetadata, timeOrigin: Double = 0, stepTotal: Int? = nil) throws {
        self.url = url
        self.timeOrigin = timeOrigin
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw RecordingError(file: url.path, expected: "a writable file", found: "cannot create it")
        }
        do {
            handle = try FileHandle(forWritingTo: url)
        } catch {
            throw RecordingError(file: url.path, expected: "a writable file", found: error.localizedDescription)
        }
        buffer.reserveCapacity(flushThreshold + 4096)
        var header = NativeFormat.magic + "\n"
        if let device = metadata.deviceName { header += "# device: \(NativeFormat.escape(device))\n" }
        if let start = metadata.startDate {
            header += "# start: \(NativeFormat.number(start.timeIntervalSince1970)) (\(Self.iso(start)))\n"
        }
        // A recording read from this format keeps where it was first recorded from.
        let source = metadata.properties[NativeFormat.recordedSourceKey] ?? metadata.source
        let format = metadata.properties[NativeFormat.recordedFormatKey] ?? metadata.format
        header += "# source: \(NativeFormat.escape(source))\n"
        header += "# format: \(NativeFormat.escape(format))\n"
        if let licence = metadata.licence { header += "# licence: \(NativeFormat.escape(licence))\n" }
        let recorded = [NativeFormat.recordedSourceKey, NativeFormat.recordedFormatKey]
        for (key, value) in metadata.properties.sorted(by: { $0.key < $1.key }) where !recorded.contains(key) {
            let k = NativeFormat.escape(key).replacingOccurrences(of: "=", with: "\\=")
            header += "# property: \(k) = \(NativeFormat.escape(value))\n"
        }
        if let stepTotal { header += "# step-total: \(stepTotal)\n" }
        header += "# units: \(NativeFormat.units)\n"
        header += NativeFormat.columnsLine + "\n"
        buffer.append(contentsOf: header.utf8)
    }

    deinit { try? close() }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Appends one raw sample (its time minus ``timeOrigin``).
    public func append(_ sample: SensorSample) throws {
        lock.lock()
        defer { lock.unlock() }
        try requireOpen()
        switch sample {
        case .accelerometer(let v): row(.accelerometer, v.time - timeOrigin, [v.value.x, v.value.y, v.value.z])
        case .gyroscope(let v): row(.gyroscope, v.time - timeOrigin, [v.value.x, v.value.y, v.value.z])
        case .magnetometer(let v): row(.magnetometer, v.time - timeOrigin, [v.value.x, v.value.y, v.value.z])
        case .barometer(let p):
            row(.barometer, p.time - timeOrigin, [p.kilopascals], trailing: p.celsius.map { "," + NativeFormat.number($0) } ?? ",")
        }
        try flushIfNeeded()
    }

    /// Appends samples in order.
    public func append(_ samples: some Sequence<SensorSample>) throws {
        for s in samples { try append(s) }
    }

    /// Appends the reference data (Apple's outputs, ground truth) of a recording, stream by stream.
    /// Times are taken as they are (already relative to the recording's origin).
    public func append(reference: ReferenceData) throws {
        lock.lock()
        defer { lock.unlock() }
        try requireOpen()
        for row in Self.referenceRows(reference) {
            buffer.append(contentsOf: row.utf8)
            buffer.append(0x0A)
            rows += 1
            if buffer.count >= flushThreshold { try writeBuffer() }
        }
    }

    /// Appends location fixes (``MotionSamples/Recording/location``), times taken as they are.
    public func append(locations: [TimedLocation]) throws {
        lock.lock()
        defer { lock.unlock() }
        try requireOpen()
        for row in Self.locationRows(locations) {
            buffer.append(contentsOf: row.utf8)
            buffer.append(0x0A)
            rows += 1
            if buffer.count >= flushThreshold { try writeBuffer() }
        }
    }

    /// Appends one headphone motion sample (its time minus ``timeOrigin``) as an `x-headphone` row:
    /// `time,x-headphone,qw,qx,qy,qz,rx,ry,rz,ux,uy,uz,gx,gy,gz,location` (attitude, rotation rate rad/s, user
    /// acceleration g, gravity g, in the bud's axes, before any start anchor; location 0 default, 1 left, 2 right).
    /// Readers of phone recordings skip these rows; ``HeadphoneRecordingReader`` reads them, value for value.
    public func append(headphone sample: HeadphoneMotionSample) throws {
        lock.lock()
        defer { lock.unlock() }
        try requireOpen()
        let values = [
            sample.attitude.w, sample.attitude.x, sample.attitude.y, sample.attitude.z,
            sample.rotationRate.x, sample.rotationRate.y, sample.rotationRate.z,
            sample.userAcceleration.x, sample.userAcceleration.y, sample.userAcceleration.z,
            sample.gravity.x, sample.gravity.y, sample.gravity.z,
        ]
        buffer.append(contentsOf: NativeFormat.number(sample.time - timeOrigin).utf8)
        buffer.append(contentsOf: ",\(NativeFormat.headphoneStream)".utf8)
        for v in values {
            buffer.append(0x2C)
            buffer.append(contentsOf: NativeFormat.number(v).utf8)
        }
        buffer.append(contentsOf: ",\(sample.location.rawValue)\n".utf8)
        rows += 1
        try flushIfNeeded()
    }

    /// Writes the buffered rows to the file.
    public func flush() throws {
        lock.lock()
        defer { lock.unlock() }
        try writeBuffer()
    }

    /// Flushes and closes the file; later appends throw.
    public func close() throws {
        lock.lock()
        defer { lock.unlock() }
        guard let handle else { return }
        try writeBuffer()
        do {
            try handle.close()
        } catch {
            throw RecordingError(file: url.path, expected: "the file to close", found: error.localizedDescription)
        }
        self.handle = nil
    }

    // MARK: internals (caller holds the lock)

    private func row(_ kind: NativeFormat.Kind, _ time: Double, _ values: [Double], trailing: String = "") {
        buffer.append(contentsOf: NativeFormat.number(time).utf8)
        buffer.append(0x2C)
        buffer.append(contentsOf: kind.rawValue.utf8)
        for v in values {
            buffer.append(0x2C)
            buffer.append(contentsOf: NativeFormat.number(v).utf8)
        }
        buffer.append(contentsOf: trailing.utf8)
        buffer.append(0x0A)
        rows += 1
    }

    private func requireOpen() throws {
        guard handle != nil else {
            throw RecordingError(file: url.path, expected: "an open writer", found: "the writer is closed")
        }
    }

    private func flushIfNeeded() throws {
        if buffer.count >= flushThreshold { try writeBuffer() }
    }

    private func writeBuffer() throws {
        guard !buffer.isEmpty else { return }
        guard let handle else {
            throw RecordingError(file: url.path, expected: "an open writer", found: "the writer is closed")
        }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw RecordingError(file: url.path, expected: "to write the recording", found: error.localizedDescription)
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// The reference rows of `reference`, stream after stream.
    static func referenceRows(_ reference: ReferenceData) -> [String] {
        let n = NativeFormat.number
        var rows: [String] = []
        func vectors(_ kind: NativeFormat.Kind, _ list: [TimedVector]) {
            for v in list { rows.append("\(n(v.time)),\(kind.rawValue),\(n(v.value.x)),\(n(v.value.y)),\(n(v.value.z))") }
        }
        func scalars(_ kind: NativeFormat.Kind, _ list: [TimedScalar]) {
            for s in list { rows.append("\(n(s.time)),\(kind.rawValue),\(n(s.value))") }
        }
        for q in reference.attitude {
            rows.append("\(n(q.time)),\(NativeFormat.Kind.attitude.rawValue),\(n(q.value.w)),\(n(q.value.x)),\(n(q.value.y)),\(n(q.value.z))")
        }
        vectors(.gravity, reference.gravity)
        vectors(.userAcceleration, reference.userAcceleration)
        vectors(.rotationRate, reference.rotationRate)
        vectors(.calibratedMagneticField, reference.calibratedMagneticField)
        scalars(.heading, reference.heading)
        scalars(.steps, reference.cumulativeSteps)
        scalars(.relativeAltitude, reference.relativeAltitude)
        for a in reference.activity { rows.append("\(n(a.time)),\(NativeFormat.Kind.activity.rawValue),\(NativeFormat.field(a.label))") }
        for (i, q) in reference.truthAttitude.enumerated() {
            let scored = i < reference.truthScored.count && reference.truthScored[i] ? "1" : "0"
            rows.append("\(n(q.time)),\(NativeFormat.Kind.truth.rawValue),\(n(q.value.w)),\(n(q.value.x)),\(n(q.value.y)),\(n(q.value.z)),\(scored)")
        }
        for t in reference.stepTimes { rows.append("\(n(t)),\(NativeFormat.Kind.step.rawValue)") }
        return rows
    }

    /// The rows of location fixes: latitude, longitude, then altitude, vertical accuracy and
    /// ellipsoidal altitude, each empty when unknown (trailing empty fields left out).
    static func locationRows(_ fixes: [TimedLocation]) -> [String] {
        let n = NativeFormat.number
        return fixes.map { l in
            var fields = [l.altitude, l.verticalAccuracy, l.ellipsoidalAltitude].map { $0.map(n) ?? "" }
            while fields.last == "" { fields.removeLast() }
            return "\(n(l.time)),\(NativeFormat.Kind.location.rawValue),\(n(l.latitude)),\(n(l.longitude))"
                + fields.map { "," + $0 }.joined()
        }
    }
}

extension Recording {
    /// Writes the recording (raw samples merged in time order, then its reference data) in the
    /// project's own format. Reading the file back gives the same samples bit for bit, the same
    /// metadata and reference data; notices are not written (reading produces its own).
    public func write(to url: URL) throws {
        let writer = try NativeRecordingWriter(url: url, metadata: metadata, stepTotal: reference.stepTotal)
        var source = RecordingSource(self)
        while let sample = source.next() { try writer.append(sample) }
        try writer.append(locations: location)
        try writer.append(reference: reference)
        try writer.close()
    }
}
