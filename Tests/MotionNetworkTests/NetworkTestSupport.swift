import Foundation
import Logging
import MotionNetwork
import MotionSamples

/// Collects what a device logs, so that a test can check that a skipped reply was reported.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    func append(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var logger: Logger {
        Logger(label: "test") { _ in CapturingHandler(capture: self) }
    }
}

struct CapturingHandler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        capture.append("\(event.level): \(event.message)")
    }
}

/// Collects a device's samples and events.
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [SensorSample] = []
    private var events: [DeviceEvent] = []

    var all: [SensorSample] {
        lock.lock()
        defer { lock.unlock() }
        return samples
    }

    var allEvents: [DeviceEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }

    func of(_ kind: SensorKind) -> [SensorSample] { all.filter { $0.sensor == kind } }

    func run(_ device: any MotionDevice, _ sensors: [SensorKind] = SensorKind.allCases) {
        device.run(
            Dictionary(uniqueKeysWithValues: sensors.map { ($0, 100.0) }),
            sink: { [self] s in
                lock.lock()
                samples.append(s)
                lock.unlock()
            },
            events: { [self] e in
                lock.lock()
                events.append(e)
                lock.unlock()
            })
    }
}

/// Waits until `condition` holds or `timeout` seconds pass; returns whether it held.
func eventually(_ timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.02)
    }
    return condition()
}

/// The synthetic source's sample index from its first component (0.001·(i mod 1000)), for gap checks.
func index(_ x: Double) -> Int { Int((x * 1000).rounded()) }

/// Whether consecutive indices step by exactly one (mod 1000): no repeat, no loss.
func contiguous(_ indices: [Int]) -> (ok: Bool, firstBreak: String?) {
    for (a, b) in zip(indices, indices.dropFirst()) where (a + 1) % 1000 != b {
        return (false, "\(a) → \(b)")
    }
    return (true, nil)
}

/// Settings that make the tests quick. The wait ends as soon as the first data arrive; 10 s only bounds a
/// start on a machine loaded by the parallel suites (4 s once was not enough for SensorServer's).
let quick = PhoneStreamSettings(wait: 10, silence: 0.6, delay: 0.1)
