import Foundation
import MotionEngine
import MotionRecordings
import Testing
import TestSupport

@Suite("activity from headphone motion")
struct HeadActivityTests {
    @Test(
        "real AirPods shaking the head: never walking or running",
        .enabled(if: TestData.has("airpods-head-shake"), Comment(rawValue: TestData.skipNotice("airpods-head-shake"))))
    func headShakeIsNoWalk() throws {
        let recording = try HeadphoneRecordingReader.read(TestData.url("airpods-head-shake/head-shake.jsonl"))
        var classifier = HeadActivityClassifier()
        var reports: [HeadActivityClassifier.Report] = []
        for sample in recording.samples {
            if let r = classifier.add(sample) { reports.append(r) }
        }
        #expect(!reports.isEmpty)
        #expect(!reports.contains { $0.flags.contains(.walking) || $0.flags.contains(.running) })
    }

    @Test("a synthetic head bobbing at 1.9 and 2.8 steps/s: walking, then running; a still head: stationary")
    func rhythm() {
        func classify(cadence: Double, amplitude: Double) -> [ActivityFlags] {
            var classifier = HeadActivityClassifier()
            var out: [ActivityFlags] = []
            for k in 0..<500 {
                let t = Double(k) / 50
                let up = amplitude * sin(2 * .pi * cadence * t)
                let s = HeadphoneMotionSample(
                    time: t, attitude: .identity, rotationRate: Vector3(0, 0, 0.01), userAcceleration: Vector3(0, 0, up),
                    gravity: Vector3(0, 0, -1))
                if let r = classifier.add(s) { out.append(r.flags) }
            }
            return out
        }
        #expect(classify(cadence: 1.9, amplitude: 0.2) == [.walking])
        #expect(classify(cadence: 2.8, amplitude: 0.5) == [.running])
        #expect(classify(cadence: 1.9, amplitude: 0) == [.stationary])
    }
}
