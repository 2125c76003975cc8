/// Decodes buffered scans into samples in Apple's axes and units.
///
/// Built once per capture from the scan layout and the sensors captured; decoding a scan does no
/// allocation and no lookup: for each sensor it loads its elements at fixed offsets, applies the
/// precomputed affine conversion, and stamps the sample with the scan's timestamp mapped to
/// CLOCK_MONOTONIC seconds.
public struct IIOScanDecoder: Sendable {
    @usableFromInline
    struct VectorPlan: Sendable {
        @usableFromInline let kind: SensorKind
        @usableFromInline let x: (offset: Int, type: IIOScanType)
        @usableFromInline let y: (offset: Int, type: IIOScanType)
        @usableFromInline let z: (offset: Int, type: IIOScanType)
        @usableFromInline let conversion: IIOVectorConversion
    }

    @usableFromInline
    struct PressurePlan: Sendable {
        @usableFromInline let pressure: (offset: Int, type: IIOScanType)
        @usableFromInline let conversion: IIOScalarConversion
        @usableFromInline let temperature: (offset: Int, type: IIOScanType, conversion: IIOScalarConversion)?
    }

    /// The layout of the scans decoded.
    public let layout: IIOScanLayout
    @usableFromInline let vectors: [VectorPlan]
    @usableFromInline let pressure: PressurePlan?
    @usableFromInline let timestamp: (offset: Int, type: IIOScanType)?

    /// The sensors this decoder produces.
    public var kinds: [SensorKind] { vectors.map(\.kind) + (pressure == nil ? [] : [.barometer]) }
    /// True when scans carry their own timestamp.
    public var hasTimestamp: Bool { timestamp != nil }

    /// A decoder for `sensors` in scans laid out as `layout`; throws when a channel of a sensor is
    /// not enabled in the layout.
    public init(layout: IIOScanLayout, sensors: [IIOSensorInfo]) throws(IIOError) {
        self.layout = layout
        func element(_ c: IIOChannelInfo) throws(IIOError) -> (offset: Int, type: IIOScanType) {
            guard let e = layout.element(c.name) else {
                throw IIOError.malformedAttribute(path: c.valuePath, value: c.name, expected: "an enabled scan element for \(c.name)")
            }
            return (e.offset, e.type)
        }
        var vectors: [VectorPlan] = []
        var pressure: PressurePlan?
        for s in sensors {
            if s.kind == .barometer {
                guard let p = s.channels.first, let conversion = s.pressureConversion else { continue }
                var temperature: (offset: Int, type: IIOScanType, conversion: IIOScalarConversion)?
                if let t = s.temperature, let e = layout.element(t.name), let tc = s.temperatureConversion {
                    temperature = (e.offset, e.type, tc)
                }
                pressure = PressurePlan(pressure: try element(p), conversion: conversion, temperature: temperature)
            } else if let conversion = s.vectorConversion {
                vectors.append(VectorPlan(
                    kind: s.kind, x: try element(s.channels[0]), y: try element(s.channels[1]), z: try element(s.channels[2]),
                    conversion: conversion))
            }
        }
        self.vectors = vectors
        self.pressure = pressure
        self.timestamp = layout.element("in_timestamp").map { ($0.offset, $0.type) }
    }

    /// The scan's own timestamp in CLOCK_MONOTONIC seconds, given the offset (ns) from the device's
    /// timestamp clock to CLOCK_MONOTONIC; `nil` when scans have no timestamp.
    @inlinable
    public func time(ofScan scan: UnsafeRawPointer, clockOffset: Int64) -> Double? {
        guard let ts = timestamp else { return nil }
        let ns = ts.type.integer(at: scan + ts.offset)
        return Double(ns &+ clockOffset) * 1e-9
    }

    /// Decodes one scan at `scan` (``IIOScanLayout/scanBytes`` bytes), stamping its samples with
    /// `time` (seconds on CLOCK_MONOTONIC), and hands each sample to `body`.
    @inlinable
    public func decode(scan: UnsafeRawPointer, time: Double, _ body: (SensorSample) -> Void) {
        for v in vectors {
            let raw = Vector3(
                v.x.type.value(at: scan + v.x.offset),
                v.y.type.value(at: scan + v.y.offset),
                v.z.type.value(at: scan + v.z.offset))
            let value = TimedVector(time: time, value: v.conversion.convert(raw))
            switch v.kind {
            case .accelerometer: body(.accelerometer(value))
            case .gyroscope: body(.gyroscope(value))
            case .magnetometer: body(.magnetometer(value))
            case .barometer: break
            }
        }
        if let p = pressure {
            let kPa = p.conversion.convert(p.pressure.type.value(at: scan + p.pressure.offset))
            let celsius = p.temperature.map { $0.conversion.convert($0.type.value(at: scan + $0.offset)) }
            body(.barometer(PressureReading(time: time, kilopascals: kPa, celsius: celsius)))
        }
    }

    /// Decodes `count` consecutive scans from `buffer`. Scans without a timestamp are spaced by
    /// `period` seconds ending at `fallbackEnd` (the time of the read).
    @inlinable
    public func decode(
        scans buffer: UnsafeRawPointer, count: Int, clockOffset: Int64, fallbackEnd: Double, period: Double,
        _ body: (SensorSample) -> Void
    ) {
        let size = layout.scanBytes
        for i in 0..<count {
            let scan = buffer + i * size
            let t = time(ofScan: scan, clockOffset: clockOffset) ?? (fallbackEnd - Double(count - 1 - i) * period)
            decode(scan: scan, time: t, body)
        }
    }
}
