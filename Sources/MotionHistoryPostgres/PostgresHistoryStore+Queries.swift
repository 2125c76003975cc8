import Foundation
import MotionHistory
import MotionSamples
import PostgresNIO

extension PostgresHistoryStore {
    /// The devices a query reads: the source's device (none when it never wrote), or with `nil` every
    /// device of this store's prefix; id → source tag.
    func devices(for source: String?, operation: String) throws -> [Int64: String] {
        guard let source else { return try PostgresDevices.ids(session, prefix: devicePrefix, operation: operation) }
        if let id = deviceIDs.withLock({ $0[source] }) { return [id: source] }
        let name = devicePrefix + source
        guard let row = try session.query("SELECT id FROM coremotion.device WHERE name = \(name)", operation: operation).rows.first
        else { return [:] }
        let id = try row.decode(Int64.self)
        deviceIDs.withLock { $0[source] = id }
        return [id: source]
    }

    // MARK: - Pedometer

    /// Pedometer totals over `[start, end)`, exact to the step, as ``HistoryStore/pedometerSummary(from:to:source:)``
    /// computes them: steps by the millisecond, moving time from gaps of at most
    /// ``HistoryStore/maximumActiveStepGap`` between consecutive steps of one source (the part inside the
    /// span), floors by their date.
    public func pedometerSummary(from start: Date, to end: Date, source: String?) throws -> PedometerSummary {
        try HistoryValidation.validateSpan(start, end)
        let operation = "reading pedometer history"
        return try read(operation: operation) {
            var summary = PedometerSummary(start: start, end: end)
            let fromMs = StepMinute.milliseconds(start)
            let toMs = StepMinute.milliseconds(end)
            guard fromMs < toMs else { return summary }
            let devices = try devices(for: source, operation: operation)
            guard !devices.isEmpty else { return summary }
            let ids = Array(devices.keys)
            try sumSteps(ids, fromMs: fromMs, toMs: toMs, into: &summary, operation: operation)
            let from = PostgresTimestamp(start)
            let to = PostgresTimestamp(end)
            let rows = try session.query("""
                SELECT change, count(*) FROM coremotion.floor_change
                WHERE device = ANY(\(ids)) AND date >= \(from) AND date < \(to) GROUP BY change
                """, operation: operation).rows
            for row in rows {
                let (change, count) = try row.decode((Int64, Int64).self)
                if change > 0 { summary.floorsAscended += Int(count) } else { summary.floorsDescended += Int(count) }
            }
            return summary
        }
    }

    /// Adds the steps of `[fromMs, toMs)` to `summary`: the minutes wholly inside are summed by the server
    /// from their stored totals (an index-only scan of the primary key, which carries them); the minutes
    /// at each bound, and one gap's worth beyond, are walked here as the SQLite store walks them.
    private func sumSteps(_ ids: [Int64], fromMs: Int64, toMs: Int64, into summary: inout PedometerSummary, operation: String) throws {
        let gap = StepMinute.maximumActiveGapMilliseconds
        let perMinute = StepMinute.millisecondsPerMinute
        let firstMinute = StepMinute.minute(ofMilliseconds: fromMs - gap)
        let lastMinute = StepMinute.minute(ofMilliseconds: toMs + gap)
        let firstInterior = -floorDivide(-fromMs, perMinute)
        let lastInterior = floorDivide(toMs, perMinute) - 1
        let first = PostgresTimestamp(minute: firstMinute)
        let last = PostgresTimestamp(minute: lastMinute)
        let interiorStart = PostgresTimestamp(minute: firstInterior)
        let interiorEnd = PostgresTimestamp(minute: lastInterior)

        struct Whole {
            var count: Int
            var distance: Int64
            var active: Int64
            var firstStep: Int64
            var lastStep: Int64
        }
        var interior: [Int64: Whole] = [:]
        if firstInterior <= lastInterior {
            let rows = try session.query("""
                SELECT device, sum(step_count)::bigint, sum(distance_millimetres)::bigint,
                       (sum(active_milliseconds) + sum(CASE WHEN minute > \(interiorStart) THEN link_milliseconds ELSE 0 END))::bigint,
                       min(minute + first_offset_milliseconds * interval '1 millisecond'),
                       max(minute + last_offset_milliseconds * interval '1 millisecond')
                FROM coremotion.step_minute
                WHERE device = ANY(\(ids)) AND minute BETWEEN \(interiorStart) AND \(interiorEnd)
                GROUP BY device
                """, operation: operation).rows
            for row in rows {
                let (device, count, distance, active, firstStep, lastStep) =
                    try row.decode((Int64, Int64, Int64, Int64, PostgresTimestamp, PostgresTimestamp).self)
                interior[device] = Whole(
                    count: Int(count), distance: distance, active: active, firstStep: firstStep.milliseconds,
                    lastStep: lastStep.milliseconds)
            }
        }

        struct Edge {
            var minute: Int64
            var firstStep: Int64
            var lastStep: Int64
            var steps: [PackedStep]
        }
        var edges: [Int64: [Edge]] = [:]
        let edgeRows = try session.query("""
            SELECT device, minute, first_offset_milliseconds, last_offset_milliseconds, steps
            FROM coremotion.step_minute
            WHERE device = ANY(\(ids)) AND minute BETWEEN \(first) AND \(last)
              AND (minute < \(interiorStart) OR minute > \(interiorEnd))
            ORDER BY device, minute
            """, operation: operation).rows
        for row in edgeRows {
            let (device, minute, firstOffset, lastOffset, packed) =
                try row.decode((Int64, PostgresTimestamp, Int64, Int64, ByteBuffer).self)
            guard let steps = StepMinute.unpack(Data(packed.readableBytesView)) else {
                throw HistoryError.serverFailure(
                    location: locationDescription, operation: operation,
                    reason: "damaged step row (device \(device), minute \(minute.minute))")
            }
            let start = minute.minute * perMinute
            edges[device, default: []].append(
                Edge(minute: minute.minute, firstStep: start + firstOffset, lastStep: start + lastOffset, steps: steps))
        }

        func walk(_ minute: Edge, _ span: inout StepSpan) {
            let start = minute.minute * perMinute
            let end = start + perMinute
            if end <= fromMs {
                span.previous = minute.lastStep
            } else if start >= toMs {
                span.link(to: minute.firstStep)
                span.previous = minute.firstStep
            } else {
                for step in minute.steps {
                    span.addStep(at: start + Int64(step.offset), strideMillimetres: Int64(step.strideMillimetres))
                }
            }
        }

        for device in Set(interior.keys).union(edges.keys).sorted() {
            var span = StepSpan(from: fromMs, to: toMs)
            let deviceEdges = edges[device] ?? []
            for minute in deviceEdges where minute.minute < firstInterior { walk(minute, &span) }
            if let whole = interior[device] {
                span.addWholeMinute(
                    first: whole.firstStep, last: whole.lastStep, count: whole.count, distanceMillimetres: whole.distance,
                    activeMilliseconds: whole.active)
            }
            for minute in deviceEdges where minute.minute >= max(firstInterior, lastInterior + 1) { walk(minute, &span) }
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

    /// Pause/resume transitions in `[start, end)`, in date order.
    public func pedometerTransitions(from start: Date, to end: Date, source: String?) throws -> [PedometerTransitionRecord] {
        try HistoryValidation.validateSpan(start, end)
        let operation = "reading pedometer transitions"
        return try read(operation: operation) {
            let devices = try devices(for: source, operation: operation)
            guard !devices.isEmpty else { return [] }
            let ids = Array(devices.keys)
            let from = PostgresTimestamp(start)
            let to = PostgresTimestamp(end)
            return try session.query("""
                SELECT date, transition FROM coremotion.pedometer_transition
                WHERE device = ANY(\(ids)) AND date >= \(from) AND date < \(to) ORDER BY date, device
                """, operation: operation).rows.compactMap { row in
                let (date, value) = try row.decode((PostgresTimestamp, Int64).self)
                guard let transition = PedometerTransition(rawValue: Int(value)) else { return nil }
                return PedometerTransitionRecord(date: date.date, transition: transition)
            }
        }
    }

    /// The date of the newest record of any kind from `source`, or `nil` when it has none.
    public func latestRecordDate(source: String) throws -> Date? {
        let operation = "reading the latest record date"
        return try read(operation: operation) {
            guard let device = try devices(for: source, operation: operation).keys.first else { return nil }
            let row = try session.query("""
                SELECT max(t) FROM (
                    (SELECT minute + last_offset_milliseconds * interval '1 millisecond' AS t FROM coremotion.step_minute
                     WHERE device = \(device) ORDER BY minute DESC LIMIT 1)
                    UNION ALL SELECT max(date) FROM coremotion.floor_change WHERE device = \(device)
                    UNION ALL SELECT max(date) FROM coremotion.pedometer_transition WHERE device = \(device)
                    UNION ALL SELECT max(start) FROM coremotion.activity_segment WHERE device = \(device)
                    UNION ALL (SELECT end_time FROM coremotion.accelerometer_chunk
                               WHERE device = \(device) ORDER BY start_time DESC LIMIT 1)) AS latest
                """, operation: operation).rows.first
            return try row?.decode(PostgresTimestamp?.self)?.date
        }
    }

    /// The dates of the oldest and the newest record of any kind of this prefix's devices, or `nil` when
    /// they have none.
    public func recordSpan() throws -> ClosedRange<Date>? {
        let operation = "reading the history's span"
        return try read(operation: operation) {
            let devices = try devices(for: nil, operation: operation)
            guard !devices.isEmpty else { return nil }
            let ids = Array(devices.keys)
            let row = try session.query("""
                SELECT min(lo), max(hi) FROM (
                    SELECT min(minute + first_offset_milliseconds * interval '1 millisecond') AS lo,
                           max(minute + last_offset_milliseconds * interval '1 millisecond') AS hi
                    FROM coremotion.step_minute WHERE device = ANY(\(ids))
                    UNION ALL SELECT min(date), max(date) FROM coremotion.floor_change WHERE device = ANY(\(ids))
                    UNION ALL SELECT min(date), max(date) FROM coremotion.pedometer_transition WHERE device = ANY(\(ids))
                    UNION ALL SELECT min(start), max(start) FROM coremotion.activity_segment WHERE device = ANY(\(ids))
                    UNION ALL SELECT min(start_time), max(end_time) FROM coremotion.accelerometer_chunk WHERE device = ANY(\(ids))
                ) AS spans
                """, operation: operation).rows.first
            guard let row else { return nil }
            let (lo, hi) = try row.decode((PostgresTimestamp?, PostgresTimestamp?).self)
            guard let lo, let hi, lo <= hi else { return nil }
            return lo.date...hi.date
        }
    }

    /// Every device of this store's prefix (ids without the prefix), with the span of its records and raw
    /// readings, its stored readings per sensor (raw readings of phones and the sensor recorder's
    /// accelerometer samples) and its steps, sorted by id.
    public func devices() throws -> [HistoryDeviceSummary] {
        let operation = "listing the devices"
        let prefix = devicePrefix
        return try read(operation: operation) {
            let rows = try session.query("""
                SELECT d.name,
                    least((SELECT min(minute + first_offset_milliseconds * interval '1 millisecond') FROM coremotion.step_minute WHERE device = d.id),
                          (SELECT min(date) FROM coremotion.floor_change WHERE device = d.id),
                          (SELECT min(date) FROM coremotion.pedometer_transition WHERE device = d.id),
                          (SELECT min(start) FROM coremotion.activity_segment WHERE device = d.id),
                          (SELECT min(start_time) FROM coremotion.accelerometer_chunk WHERE device = d.id),
                          (SELECT min(first_time) FROM coremotion.device_sensor WHERE device = d.id)),
                    greatest((SELECT max(minute + last_offset_milliseconds * interval '1 millisecond') FROM coremotion.step_minute WHERE device = d.id),
                          (SELECT max(date) FROM coremotion.floor_change WHERE device = d.id),
                          (SELECT max(date) FROM coremotion.pedometer_transition WHERE device = d.id),
                          (SELECT max(start) FROM coremotion.activity_segment WHERE device = d.id),
                          (SELECT max(end_time) FROM coremotion.accelerometer_chunk WHERE device = d.id),
                          (SELECT max(last_time) FROM coremotion.device_sensor WHERE device = d.id)),
                    (SELECT coalesce(sum(step_count), 0)::bigint FROM coremotion.step_minute WHERE device = d.id),
                    (SELECT coalesce(sum(sample_count), 0)::bigint FROM coremotion.accelerometer_chunk WHERE device = d.id)
                FROM coremotion.device d WHERE starts_with(d.name, \(prefix)) ORDER BY d.name
                """, operation: operation).rows
            var summaries: [String: HistoryDeviceSummary] = [:]
            var order: [String] = []
            for row in rows {
                let (name, first, last, steps, recorded) = try row.decode((String, PostgresTimestamp?, PostgresTimestamp?, Int64, Int64).self)
                let id = String(name.dropFirst(prefix.count))
                summaries[id] = HistoryDeviceSummary(
                    id: id, first: first?.date, last: last?.date,
                    samples: recorded > 0 ? ["accelerometer": Int(recorded)] : [:], steps: Int(steps))
                order.append(id)
            }
            let sensorRows = try session.query("""
                SELECT d.name, s.name, sum(ds.sample_count)::bigint FROM coremotion.device_sensor ds
                JOIN coremotion.device d ON d.id = ds.device JOIN coremotion.sensor s ON s.id = ds.sensor
                WHERE starts_with(d.name, \(prefix)) GROUP BY d.name, s.name
                """, operation: operation).rows
            for row in sensorRows {
                let (name, sensor, count) = try row.decode((String, String, Int64).self)
                let id = String(name.dropFirst(prefix.count))
                summaries[id]?.samples[sensor, default: 0] += Int(count)
            }
            return order.compactMap { summaries[$0] }
        }
    }

    /// What this prefix's devices hold; the bytes are those of every table of the schema `coremotion`
    /// (all devices), as pages of 8 KiB.
    public func statistics() throws -> HistoryStatistics {
        let operation = "reading statistics"
        return try read(operation: operation) {
            var statistics = HistoryStatistics()
            let devices = try devices(for: nil, operation: operation)
            let ids = Array(devices.keys)
            statistics.sources = devices.count
            let row = try session.query("""
                SELECT (SELECT count(*) FROM coremotion.step_minute WHERE device = ANY(\(ids))),
                       (SELECT coalesce(sum(step_count), 0)::bigint FROM coremotion.step_minute WHERE device = ANY(\(ids))),
                       (SELECT count(*) FROM coremotion.floor_change WHERE device = ANY(\(ids))),
                       (SELECT count(*) FROM coremotion.pedometer_transition WHERE device = ANY(\(ids))),
                       (SELECT count(*) FROM coremotion.activity_segment WHERE device = ANY(\(ids))),
                       (SELECT count(*) FROM coremotion.accelerometer_chunk WHERE device = ANY(\(ids))),
                       (SELECT coalesce(sum(sample_count), 0)::bigint FROM coremotion.accelerometer_chunk WHERE device = ANY(\(ids))),
                       (SELECT count(*) FROM coremotion.recording_request WHERE device = ANY(\(ids))),
                       (SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class AS c
                        JOIN pg_namespace AS n ON n.oid = c.relnamespace
                        WHERE n.nspname = 'coremotion' AND c.relkind IN ('r', 'p'))
                """, operation: operation).rows.first
            guard let row else { return statistics }
            let (minutes, steps, floors, transitions, activities, chunks, samples, requests, bytes) =
                try row.decode((Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64, Int64).self)
            statistics.stepMinutes = Int(minutes)
            statistics.steps = Int(steps)
            statistics.floorChanges = Int(floors)
            statistics.pedometerTransitions = Int(transitions)
            statistics.activitySegments = Int(activities)
            statistics.accelerometerChunks = Int(chunks)
            statistics.accelerometerSamples = Int(samples)
            statistics.recordingRequests = Int(requests)
            statistics.pageSize = 8192
            statistics.pageCount = Int((bytes + 8191) / 8192)
            return statistics
        }
    }

    // MARK: - Activity

    /// The activity segments overlapping `[start, end)`, in date order, as
    /// ``HistoryStore/activities(from:to:source:)``: the first of each source may start before `start`
    /// (the state in force then); consecutive segments of one source with the same state are one.
    public func activities(from start: Date, to end: Date, source: String?) throws -> [ActivitySegment] {
        try HistoryValidation.validateSpan(start, end)
        guard start < end else {
            try checkOpen()
            return []
        }
        let operation = "reading activity history"
        return try read(operation: operation) {
            let devices = try devices(for: source, operation: operation)
            guard !devices.isEmpty else { return [] }
            let ids = Array(devices.keys)
            let from = PostgresTimestamp(start)
            let to = PostgresTimestamp(end)
            let rows = try session.query("""
                SELECT d.id, a.start, a.flags, a.confidence FROM unnest(\(ids)::bigint[]) AS d(id)
                CROSS JOIN LATERAL (
                    SELECT start, flags, confidence FROM coremotion.activity_segment
                    WHERE device = d.id AND start <= \(from) ORDER BY start DESC LIMIT 1) AS a
                UNION ALL
                SELECT device, start, flags, confidence FROM coremotion.activity_segment
                WHERE device = ANY(\(ids)) AND start > \(from) AND start < \(to)
                ORDER BY 2, 1
                """, operation: operation).rows
            var segments: [ActivitySegment] = []
            var lastState: [Int64: (ActivityFlags, ActivityConfidence)] = [:]
            for row in rows {
                let (device, startDate, rawFlags, rawConfidence) = try row.decode((Int64, PostgresTimestamp, Int64, Int64).self)
                let flags = ActivityFlags(rawValue: UInt8(truncatingIfNeeded: rawFlags)).intersection(.all)
                let confidence = ActivityConfidence(rawValue: Int(rawConfidence)) ?? .low
                if let last = lastState[device], last == (flags, confidence) { continue }
                lastState[device] = (flags, confidence)
                segments.append(ActivitySegment(startDate: startDate.date, flags: flags, confidence: confidence, source: devices[device] ?? ""))
            }
            return segments
        }
    }

    // MARK: - Accelerometer

    /// The recorded accelerometer samples with dates in `(start, end]`, in date order (Apple's bounds for
    /// `accelerometerData(from:to:)`), with their identifiers.
    ///
    /// - Throws: ``HistoryError/spanTooLong(seconds:limit:)`` for more than 12 h, ``HistoryError/invalidSpan(start:end:)``.
    public func accelerometerSamples(from start: Date, to end: Date, source: String?) throws -> [RecordedAccelerometerSample] {
        try HistoryValidation.validateAccelerometerSpan(start, end)
        let operation = "reading accelerometer history"
        return try read(operation: operation) {
            let fromMicros = AccelerometerChunk.microseconds(start)
            let toMicros = AccelerometerChunk.microseconds(end)
            guard fromMicros < toMicros else { return [] }
            let devices = try devices(for: source, operation: operation)
            guard !devices.isEmpty else { return [] }
            let ids = Array(devices.keys)
            let lookBack = PostgresTimestamp(microseconds: fromMicros - AccelerometerChunk.maximumSpanMicroseconds)
            let to = PostgresTimestamp(microseconds: toMicros)
            let rows = try session.query("""
                SELECT first_identifier, sample_count, start_time, samples FROM coremotion.accelerometer_chunk
                WHERE device = ANY(\(ids)) AND start_time > \(lookBack) AND start_time <= \(to)
                ORDER BY start_time, first_identifier
                """, operation: operation).rows
            var samples: [RecordedAccelerometerSample] = []
            var sorted = true
            for row in rows {
                let (firstIdentifier, count, chunkStart, packed) = try row.decode((Int64, Int64, PostgresTimestamp, ByteBuffer).self)
                let valid = AccelerometerChunk.unpack(
                    Data(packed.readableBytesView), count: Int(count), startMicroseconds: chunkStart.microseconds
                ) { index, sample in
                    guard sample.microseconds > fromMicros, sample.microseconds <= toMicros else { return }
                    let date = AccelerometerChunk.date(microseconds: sample.microseconds)
                    if let last = samples.last, last.date > date { sorted = false }
                    samples.append(RecordedAccelerometerSample(
                        identifier: UInt64(firstIdentifier + Int64(index)), date: date,
                        acceleration: Vector3(Double(sample.x), Double(sample.y), Double(sample.z))))
                }
                guard valid else {
                    throw HistoryError.serverFailure(
                        location: locationDescription, operation: operation,
                        reason: "damaged accelerometer chunk (first identifier \(firstIdentifier))")
                }
            }
            if !sorted { samples.sort { ($0.date, $0.identifier) < ($1.date, $1.identifier) } }
            return samples
        }
    }

    /// Records a request to record the accelerometer from `start` for `duration` seconds, at once (not
    /// batched), so that recording resumes after a restart until the request ends.
    ///
    /// - Throws: ``HistoryError/spanTooLong(seconds:limit:)`` for more than 12 h;
    ///   ``HistoryError/invalidRecord(kind:index:field:value:)`` for a duration that is not positive and finite.
    @discardableResult
    public func addAccelerometerRecording(from start: Date, duration: TimeInterval, source: String) throws -> AccelerometerRecordingRequest {
        try HistoryValidation.validateRecording(from: start, duration: duration, source: source)
        let request = AccelerometerRecordingRequest(start: start, end: start.addingTimeInterval(duration), source: source)
        let operation = "writing a recording request"
        try write(operation: operation) {
            let known = deviceIDs.withLock { $0 }
            let ids = try session.transaction(operation: operation) { () throws -> [String: Int64] in
                var writing = PostgresWriting(session: session, devicePrefix: devicePrefix, deviceIDs: known)
                let device = try writing.deviceID(source, operation: operation)
                let from = PostgresTimestamp(request.start)
                let to = PostgresTimestamp(request.end)
                try session.query(
                    "INSERT INTO coremotion.recording_request (device, start, \"end\") VALUES (\(device), \(from), \(to))",
                    operation: operation)
                return writing.deviceIDs
            }
            deviceIDs.withLock { $0.merge(ids) { a, _ in a } }
        }
        return request
    }

    /// The recording requests in force at `date` (`start <= date < end`), by start.
    public func accelerometerRecordingRequests(activeAt date: Date, source: String?) throws -> [AccelerometerRecordingRequest] {
        try HistoryValidation.validate(date: date, kind: "query", index: 0, field: "date")
        let operation = "reading recording requests"
        return try read(operation: operation, flushFirst: false) {
            let devices = try devices(for: source, operation: operation)
            guard !devices.isEmpty else { return [] }
            let ids = Array(devices.keys)
            let at = PostgresTimestamp(date)
            return try session.query("""
                SELECT start, "end", device FROM coremotion.recording_request
                WHERE device = ANY(\(ids)) AND start <= \(at) AND "end" > \(at) ORDER BY start, id
                """, operation: operation).rows.map { row in
                let (start, end, device) = try row.decode((PostgresTimestamp, PostgresTimestamp, Int64).self)
                return AccelerometerRecordingRequest(start: start.date, end: end.date, source: devices[device] ?? "")
            }
        }
    }

    /// When recording should stop if it is running at `date`: the latest end of the requests in force, or
    /// `nil` when none is.
    public func accelerometerRecordingEnd(activeAt date: Date, source: String?) throws -> Date? {
        try accelerometerRecordingRequests(activeAt: date, source: source).map(\.end).max()
    }
}
