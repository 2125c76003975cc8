import Foundation
import Logging
import MotionNetwork
import MotionSamples
import TestSupport

extension Collector {
    /// Runs every sensor of `sensors` on `device` at 100 Hz into this collector.
    func run(_ device: any MotionDevice, _ sensors: [SensorKind] = SensorKind.allCases) {
        device.run(Dictionary(uniqueKeysWithValues: sensors.map { ($0, 100.0) }), sink: sink, events: eventSink)
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
