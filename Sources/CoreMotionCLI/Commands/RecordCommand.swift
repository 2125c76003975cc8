import ArgumentParser
import Dispatch
import Foundation
import MotionDevices
import MotionNetwork
import MotionRecordings
import MotionService

/// `coremotion record`: records the raw sensors of a device, and the headphones' motion when there are
/// headphones, into the project's own format.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a device's raw sensors to a .cmrec file (the project's own format, read back losslessly).",
        discussion: """
            The device is COREMOTION_DEVICE's (this machine's IIO sensors by default), or --device. Headphones \
            (COREMOTION_HEADPHONE_DEVICE, e.g. sensorlogger:HOST:PORT beside a Sensor Logger phone on the same \
            address) are recorded too, as x-headphone rows: replay them with COREMOTION_HEADPHONE_DEVICE=replay:FILE.cmrec. \
            Recording stops after --duration seconds, at the end of a replayed recording, or on Ctrl-C; the file is \
            always closed cleanly.
            """
    )

    @Option(name: .shortAndLong, help: "The file to write (.cmrec).")
    var output: String

    @Option(help: "Seconds to record (default: until Ctrl-C or the end of the data).")
    var duration: Double?

    @Option(help: "A COREMOTION_DEVICE value to record from instead of the environment's.")
    var device: String?

    @Option(help: "Sensors to record, comma-separated (accelerometer, gyroscope, magnetometer, barometer; default: all).")
    var sensors: String?

    @Option(help: "Rate to ask the device for, Hz (default: each sensor's fastest).")
    var rate: Double?

    @Flag(help: "Print a JSON summary.")
    var json = false

    func validate() throws {
        if let duration, !(duration.isFinite && duration > 0) { throw ValidationError("--duration must be a positive number of seconds") }
        if let rate, !(rate.isFinite && rate > 0) { throw ValidationError("--rate must be a positive number of Hz") }
        _ = try wantedSensors()
    }

    func wantedSensors() throws -> [SensorKind]? {
        guard let sensors else { return nil }
        do {
            return try Names.sensors(sensors)
        } catch {
            throw ValidationError("--sensors: \(error)")
        }
    }

    func run() throws {
        let service: MotionService
        do {
            if let device {
                let selection = try DeviceSelection(DeviceSpecification.parse(device), headphones: HeadphoneDeviceSpecification.fromEnvironment())
                service = MotionService(device: selection.device, history: .inMemory, headphones: selection.headphones)
            } else {
                let selection = try DeviceSelection.fromEnvironment()
                service = MotionService(device: selection.device, keepsCalibration: selection.isMachineHardware, headphones: selection.headphones)
                service.takeLocation()
            }
        } catch {
            throw ValidationError("\(error)")
        }
        let kinds = try wantedSensors() ?? SensorKind.allCases
        let available = kinds.filter { service.has($0) }
        let headphones = service.isHeadphoneMotionAvailable
        guard !available.isEmpty || headphones else {
            throw ValidationError("\(service.device.name) has none of the sensors asked for (\(kinds.map(\.rawValue).joined(separator: ", ")))")
        }
        let clock = service.clock
        let start = clock.now
        var metadata = RecordingMetadata(
            format: "coremotion record", source: service.device.name, startDate: clock.date(at: start),
            properties: ["recordedWith": "coremotion record"]
        )
        // A live phone: who it is and in which convention it pushed.
        let phone = (service.device as? SensorLoggerDevice)?.phone
        if let phone {
            metadata.properties["sensorLoggerDeviceId"] = phone.deviceId
            if let decision = phone.decision { metadata.properties["sensorLoggerConvention"] = decision.description }
        }
        let writer = try NativeRecordingWriter(url: URL(fileURLWithPath: output), metadata: metadata, timeOrigin: start)
        let counter = RecordCounter()
        var subscriptions: [any MotionSubscription] = []
        for kind in available {
            let interval = rate.map { 1 / $0 } ?? 0
            if let s = service.subscribe(to: kind, interval: interval, receive: { sample in
                do { try writer.append(sample) } catch { counter.fail("\(error)") }
                counter.count(kind)
            }) {
                subscriptions.append(s)
            }
        }
        // The headphones' samples as a client gets them (attitude relative to the start of the recording).
        let headphoneSubscription = headphones ? service.subscribeHeadphoneMotion { sample in
            do { try writer.append(headphone: sample) } catch { counter.fail("\(error)") }
            counter.count("headphone")
        } : nil
        // Ctrl-C ends the recording cleanly.
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler { counter.stop() }
        interrupt.resume()
        let progress = ProgressLine("record", total: duration ?? 1, always: !json)
        if !json {
            Output.note("Recording \((available.map(\.rawValue) + (headphones ? ["headphone motion"] : [])).joined(separator: ", ")) from \(service.device.name) to \(output)\(duration.map { " for \($0) s" } ?? "; Ctrl-C stops").")
        }
        while !counter.stopped {
            Thread.sleep(forTimeInterval: 0.1)
            let elapsed = clock.now - start
            if let duration, elapsed >= duration { break }
            if service.hasReachedEnd { break }
            if counter.failure != nil { break }
            if !json && duration != nil { progress.update(elapsed, detail: counter.line) }
        }
        for s in subscriptions { s.cancel() }
        headphoneSubscription?.cancel()
        // Apple's outputs the phone sent during the recording: reference data, as the readers keep them.
        if let phone {
            try writer.append(reference: phone.referenceData(from: start, to: clock.now).shifted(by: -start))
        }
        interrupt.cancel()
        signal(SIGINT, SIG_DFL)
        try writer.close()
        if let failure = counter.failure { throw ValidationError("writing \(output) failed: \(failure)") }
        if !json && duration != nil { progress.finish(counter.line) }
        let summary = RecordSummary(file: output, device: service.device.name, seconds: clock.now - start, samples: counter.counts)
        if json { try Output.json(summary) } else { print(summary.text) }
    }
}

/// Counts what was recorded; thread-safe.
final class RecordCounter: @unchecked Sendable {  // @unchecked: every var is read and written only under `lock`
    private let lock = NSLock()
    private var values: [String: Int] = [:]
    private var isStopped = false
    private var error: String?

    func count(_ kind: SensorKind) { count(kind.rawValue) }

    func count(_ stream: String) {
        lock.lock(); values[stream, default: 0] += 1; lock.unlock()
    }

    func fail(_ text: String) {
        lock.lock(); if error == nil { error = text }; lock.unlock()
    }

    func stop() {
        lock.lock(); isStopped = true; lock.unlock()
    }

    var stopped: Bool { lock.lock(); defer { lock.unlock() }; return isStopped }
    var failure: String? { lock.lock(); defer { lock.unlock() }; return error }
    var counts: [String: Int] { lock.lock(); defer { lock.unlock() }; return values }
    var line: String { counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") }
}

/// What `coremotion record` wrote.
struct RecordSummary: Codable, Equatable {
    var file: String
    var device: String
    var seconds: Double
    var samples: [String: Int]

    var text: String {
        "Wrote \(samples.values.reduce(0, +)) samples (\(samples.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))) "
            + "from \(device) in \(String(format: "%.1f", seconds)) s to \(file)."
    }
}
