import ArgumentParser
import Foundation
import MotionIIO

/// `coremotion devices`: the Linux IIO motion sensors of this machine (or of a fake tree).
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the Linux IIO motion sensors (driver, rates, mount matrix, scale, a live reading), or the phones pushing over the network.",
        discussion: """
            Reads /sys/bus/iio/devices (or --root, e.g. a tree made by `coremotion iio-emulate`).
            With --network sensorlogger:HOST:PORT it listens instead for --wait seconds (default 5) and lists
            the phones that pushed: deviceId, convention and why, sensors with their rates, messages and faults.
            With --capture SECONDS the sensors run for that long and the command reports the samples
            delivered, the achieved rate, the CPU time and the wake-ups of each capture thread; --latency
            lets buffered capture deliver in batches that late (the buffer's watermark).
            """
    )

    @Option(help: "IIO root to read instead of /sys/bus/iio/devices (a fake tree).")
    var root: String?

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @Option(help: "Run the sensors for this many seconds and report delivery and CPU use.")
    var capture: Double?

    @Option(help: "Rate to run at with --capture, Hz (default: each sensor's fastest offered rate).")
    var rate: Double?

    @Option(help: "Capture mode with --capture: auto, polled or buffered (default: COREMOTION_IIO_CAPTURE or auto).")
    var mode: String?

    @Option(help: "How late samples may arrive with --capture, seconds (default 0: each as soon as possible; the daemon's recorders use 1).")
    var latency: Double?

    @Option(help: "List the phones pushing to this receiver instead (sensorlogger:HOST:PORT[?token-file=PATH]; or COREMOTION_SENSORLOGGER_TOKEN).")
    var network: String?

    @Option(help: "Seconds to listen with --network (default 5).")
    var wait: Double = 5

    func validate() throws {
        if !(wait > 0 && wait.isFinite) { throw ValidationError("--wait must be a positive number of seconds") }
        if let capture, !(capture > 0 && capture.isFinite) { throw ValidationError("--capture must be a positive number of seconds") }
        if let rate, !(rate > 0 && rate.isFinite) { throw ValidationError("--rate must be a positive rate in Hz") }
        if let mode, IIODevice.CaptureMode(rawValue: mode) == nil { throw ValidationError("--mode must be auto, polled or buffered") }
        if let latency, !(latency >= 0 && latency.isFinite) { throw ValidationError("--latency must be a number of seconds ≥ 0") }
    }

    func run() throws {
        if let network {
            try NetworkListing.run(network, seconds: wait, json: json)
            return
        }
        var options = try IIODevice.Options.fromEnvironment()
        if let mode, let m = IIODevice.CaptureMode(rawValue: mode) { options.capture = m }
        let rootURL = root.map { URL(fileURLWithPath: $0) }
        guard let device = try IIODevice.discover(root: rootURL, options: options) else {
            let where_ = root ?? IIORoot.systemDevicesPath
            if json {
                try Output.json(DevicesReport(root: where_, sensors: [], problems: [], capture: nil))
            } else {
                print("No IIO motion sensors under \(where_).")
            }
            return
        }
        var report = DevicesReport(
            root: device.root.devicesDirectory,
            sensors: SensorKind.allCases.compactMap { device.sensorInfo[$0] }.map { SensorReport($0, device: device) },
            problems: device.discoveryProblems, capture: nil)
        if let capture {
            report.capture = runCapture(device, seconds: capture)
        }
        if json {
            try Output.json(report)
        } else {
            print(report.text)
        }
    }

    private func runCapture(_ device: IIODevice, seconds: Double) -> CaptureReport {
        let kinds = device.sensorInfo
        var rates: [SensorKind: Double] = [:]
        for (kind, info) in kinds { rates[kind] = rate ?? info.rate.rates.maximum }
        let counter = SampleCounter()
        let start = ProcessInfo.processInfo.systemUptime
        let latencies = rates.mapValues { _ in latency ?? 0 }
        device.run(rates, maximumLatency: latencies, sink: counter.sink, events: counter.eventSink)
        Thread.sleep(forTimeInterval: seconds)
        device.stopAndWait()
        let statistics = device.finalCaptureStatistics
        let elapsed = ProcessInfo.processInfo.systemUptime - start
        return CaptureReport(
            seconds: elapsed, requestedRates: Dictionary(uniqueKeysWithValues: rates.map { ($0.key.rawValue, $0.value) }),
            sensors: counter.summary(), threads: statistics, events: counter.events)
    }
}

/// Counts samples per sensor without keeping them.
private final class SampleCounter: @unchecked Sendable {  // @unchecked: every stored var is guarded by `lock`
    private let lock = NSLock()
    private var counts: [SensorKind: Int] = [:]
    private var first: [SensorKind: Double] = [:]
    private var last: [SensorKind: Double] = [:]
    private var gaps: [SensorKind: [Double]] = [:]
    private var eventLines: [String] = []

    /// The device events seen, as text.
    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return eventLines
    }

    var sink: SampleSink {
        { [self] s in
            lock.lock()
            let k = s.sensor
            counts[k, default: 0] += 1
            if let previous = last[k] { gaps[k, default: []].append(s.time - previous) }
            if first[k] == nil { first[k] = s.time }
            last[k] = s.time
            lock.unlock()
        }
    }

    var eventSink: DeviceEventSink {
        { [self] e in
            lock.lock()
            eventLines.append("\(e)")
            lock.unlock()
        }
    }

    func summary() -> [CaptureReport.Sensor] {
        lock.lock()
        defer { lock.unlock() }
        return counts.keys.sorted { $0.rawValue < $1.rawValue }.map { k in
            let g = (gaps[k] ?? []).sorted()
            let span = (last[k] ?? 0) - (first[k] ?? 0)
            return CaptureReport.Sensor(
                kind: k.rawValue, samples: counts[k] ?? 0,
                rate: span > 0 ? Double((counts[k] ?? 1) - 1) / span : 0,
                medianInterval: g.isEmpty ? 0 : g[g.count / 2])
        }
    }
}

struct DevicesReport: Encodable {
    var root: String
    var sensors: [SensorReport]
    var problems: [String]
    var capture: CaptureReport?

    var text: String {
        var lines: [String] = ["IIO root: \(root)"]
        for s in sensors {
            lines.append("")
            lines.append("\(s.kind): \(s.driver) (\(s.device)\(s.label.map { ", label \($0)" } ?? ""))")
            lines.append("  capture:      \(s.buffered ? "buffered (/dev node and scan elements) or polled" : "polled")")
            lines.append("  rates:        \(s.rates)\(s.currentRate.map { ", now \(Output.fixed($0, 3)) Hz" } ?? "")")
            lines.append("  mount matrix: \(s.mountMatrixText) (\(s.mountMatrixSource)\(s.mountMatrixPath.map { ": " + $0 } ?? ""))")
            for c in s.channels {
                lines.append("  \(c.name): scale \(c.scale) \(c.unit)/count, offset \(c.offset)\(c.scan.map { ", scan \($0)" } ?? "")")
            }
            if let r = s.reading {
                lines.append("  reading:      \(r)")
            } else if let e = s.readingError {
                lines.append("  reading:      failed: \(e)")
            }
        }
        if !problems.isEmpty {
            lines.append("")
            lines.append("Skipped:")
            lines += problems.map { "  " + $0 }
        }
        if let c = capture {
            lines.append("")
            lines.append("Capture for \(Output.fixed(c.seconds, 2)) s:")
            lines.append(Output.table(
                ["sensor", "samples", "rate Hz", "median step ms"],
                c.sensors.map { [$0.kind, String($0.samples), Output.fixed($0.rate, 1), Output.fixed($0.medianInterval * 1000, 3)] }))
            lines.append(Output.table(
                ["thread", "mode", "watermark", "samples", "errors", "wake-ups/s", "CPU s", "CPU %", "µs/sample"],
                c.threads.map {
                    [$0.device, $0.mode, $0.mode == "buffered" ? String($0.watermark) : "-", String($0.samples), String($0.readErrors),
                     Output.fixed($0.wallSeconds > 0 ? Double($0.wakeups) / $0.wallSeconds : 0, 1), Output.fixed($0.threadCPUSeconds, 3),
                     Output.fixed($0.cpuPercent, 2), Output.fixed($0.cpuMicrosecondsPerSample, 2)]
                }))
            if !c.events.isEmpty { lines.append("events: " + c.events.joined(separator: "; ")) }
        }
        return lines.joined(separator: "\n")
    }
}

struct SensorReport: Encodable {
    struct Channel: Encodable {
        var name: String
        var path: String
        var scale: Double
        var offset: Double
        var unit: String
        var scan: String?
    }

    var kind: String
    var driver: String
    var device: String
    var label: String?
    var buffered: Bool
    var rates: String
    var minimumRate: Double
    var maximumRate: Double
    var availableRates: [Double]?
    var rateAttribute: String?
    var currentRate: Double?
    var mountMatrix: [[Double]]
    var mountMatrixSource: String
    var mountMatrixPath: String?
    var channels: [Channel]
    var reading: String?
    var readingValues: [Double]?
    var readingUnit: String
    var readingError: String?

    var mountMatrixText: String {
        mountMatrix.map { $0.map { SysfsNumber.format($0) }.joined(separator: ", ") }.joined(separator: "; ")
    }

    init(_ s: IIOSensorInfo, device: IIODevice) {
        kind = s.kind.rawValue
        driver = s.driverName
        self.device = s.deviceDirectory
        label = s.label
        let d = device.deviceInfo.first { $0.directoryName == s.deviceDirectory }
        buffered = d?.buffer != nil && s.isBufferCapable
        rates = s.rate.rates.description
        minimumRate = s.rate.rates.minimum
        maximumRate = s.rate.rates.maximum
        availableRates = s.rate.rates.availableRates
        rateAttribute = s.rate.attributePath
        currentRate = s.rate.currentRate
        let m = s.mountMatrix
        mountMatrix = [[m.m11, m.m12, m.m13], [m.m21, m.m22, m.m23], [m.m31, m.m32, m.m33]]
        mountMatrixSource = s.mountMatrixSource.rawValue
        mountMatrixPath = s.mountMatrixPath
        let unit = IIOUnits.iioUnit(of: s.kind)
        channels = s.channels.map {
            Channel(name: $0.name, path: $0.valuePath, scale: $0.scale, offset: $0.offset, unit: $0.isProcessed ? unit + " (processed)" : unit,
                    scan: $0.scan?.type.description)
        }
        readingUnit = s.kind.unit
        do {
            let sample = try s.readNow()
            switch sample {
            case .barometer(let p):
                readingValues = [p.kilopascals] + (p.celsius.map { [$0] } ?? [])
                reading = "\(Output.fixed(p.kilopascals, 4)) kPa" + (p.celsius.map { ", \(Output.fixed($0, 2)) °C" } ?? "")
            default:
                let v = sample.vector ?? .zero
                readingValues = [v.x, v.y, v.z]
                reading = "(\(Output.fixed(v.x, 4)), \(Output.fixed(v.y, 4)), \(Output.fixed(v.z, 4))) \(s.kind.unit), |v| \(Output.fixed(v.norm, 4))"
            }
        } catch {
            readingError = "\(error)"
        }
    }
}

struct CaptureReport: Encodable {
    struct Sensor: Encodable {
        var kind: String
        var samples: Int
        /// Achieved rate from first to last sample time, Hz.
        var rate: Double
        /// Median interval between sample times, seconds.
        var medianInterval: Double
    }

    var seconds: Double
    var requestedRates: [String: Double]
    var sensors: [Sensor]
    var threads: [IIOCaptureStatistics]
    var events: [String]
}
