import CoreMotion
import CoreMotionTesting
import Foundation
import Testing
import TestSupport

@Suite("Sensor recorder and batched manager on a virtual clock")
struct ServicesOnVirtualClockTests {
    @Test("recordAccelerometer records at 50 Hz for the duration; samples come back in order with unique ids")
    func sensorRecorder() {
        let h = syntheticHarness([.accelerometer: 100])
        h.run {
            #expect(CMSensorRecorder.isAccelerometerRecordingAvailable())
            let recorder = CMSensorRecorder()
            let start = h.date
            recorder.recordAccelerometer(forDuration: 3)
            h.advance(by: 5)
            let list = recorder.accelerometerData(from: start, to: h.date)
            var samples: [CMRecordedAccelerometerData] = []
            for case let s as CMRecordedAccelerometerData in list ?? CMSensorDataList() { samples.append(s) }
            #expect(samples.count >= 149 && samples.count <= 151)  // 3 s at 50 Hz
            #expect(Set(samples.map(\.identifier)).count == samples.count)
            #expect(zip(samples.dropFirst(), samples).allSatisfy { $0.startDate > $1.startDate && $0.identifier > $1.identifier })
            #expect(samples.allSatisfy { $0.startDate < start.addingTimeInterval(3) })
            // Spans longer than 12 hours are refused.
            #expect(recorder.accelerometerData(from: start, to: start.addingTimeInterval(43_201)) == nil)
        }
    }

    @Test("batched accelerometer: one-second batches, in order, at the device rate")
    func batchedAccelerometer() async throws {
        let h = syntheticHarness([.accelerometer: 200])
        try await h.run {
            #expect(CMBatchedSensorManager.isAccelerometerSupported)
            let manager = CMBatchedSensorManager()
            #expect(manager.accelerometerDataFrequency == 200)
            var iterator = manager.accelerometerUpdates().makeAsyncIterator()
            h.advance(by: 3.05)
            var batches: [[CMAccelerometerData]] = []
            for _ in 0..<3 {
                if let batch = try await iterator.next() { batches.append(batch) }
            }
            #expect(batches.count == 3)
            #expect(batches.allSatisfy { $0.count == 201 || $0.count == 200 })
            let t = batches.flatMap { $0.map(\.timestamp) }
            #expect(zip(t.dropFirst(), t).allSatisfy { $0 > $1 })
        }
    }

    @Test("batched accelerometer with a handler and the pull property")
    func batchedHandler() {
        let h = syntheticHarness([.accelerometer: 100])
        h.run {
            let manager = CMBatchedSensorManager()
            let batches = Recorder<Int>()
            #expect(manager.accelerometerBatch == nil)
            manager.startAccelerometerUpdates { batch, error in
                #expect(error == nil)
                batches.append(batch?.count ?? -1)
            }
            #expect(manager.isAccelerometerActive)
            h.advance(by: 2.5)
            manager.stopAccelerometerUpdates()
            #expect(!manager.isAccelerometerActive)
            #expect(batches.all.count == 2)
            #expect(manager.accelerometerBatch?.count == batches.all.last)
        }
    }
}
