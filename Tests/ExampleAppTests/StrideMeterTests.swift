import CoreMotion
import CoreMotionTesting
import Foundation
import Testing

/// What an app's test target looks like with `CoreMotionTesting`: the app's unchanged Core Motion code
/// runs against a real recording on a virtual clock — 20 seconds of walking in a few milliseconds,
/// identical every run.
@Suite("Example: an app's motion code tested against a real recording")
struct StrideMeterTests {
    /// 20 s of a MotionSense walk (iPhone 6s in a front pocket, 50 Hz; MIT licence), committed as a fixture.
    static let walk = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/recordings/motionsense/motionsense-excerpt.zip#A_DeviceMotion_data_subset/wlk_7/sub_1.csv")

    @Test("the stride meter sees every sample of the walk, in order, and counts its strides")
    func countsStrides() throws {
        let harness = try MotionTestHarness(recording: Self.walk)
        let strides = harness.run {
            let meter = StrideMeter()
            #expect(meter.isAvailable)
            meter.start()
            harness.advance(by: 25)  // past the end of the 20 s excerpt
            meter.stop()
            // 1,000 samples at 50 Hz: every one delivered, once, in order.
            #expect(meter.samples == 1000)
            #expect(zip(meter.timestamps.dropFirst(), meter.timestamps).allSatisfy { $0 > $1 })
            let span = (meter.timestamps.last ?? 0) - (meter.timestamps.first ?? 0)
            #expect(abs(span - 19.98) < 1e-6)
            // A walk at about 1.8 strides per second; bounds from the recording (31 counted here).
            #expect(meter.strides >= 28 && meter.strides <= 40)
            #expect(meter.peakMagnitude > 1.3 && meter.peakMagnitude < 4)
            return meter.strides
        }
        #expect(try Self.deterministic(strides))
    }

    @Test("nothing arrives after stop, and time that passes unobserved is not replayed")
    func stopsCleanly() throws {
        let harness = try MotionTestHarness(recording: Self.walk)
        harness.run {
            let meter = StrideMeter()
            meter.start()
            harness.advance(by: 4)
            meter.stop()
            let seen = meter.samples
            harness.advance(by: 4)
            #expect(seen >= 199 && seen <= 201)
            #expect(meter.samples == seen)
        }
    }

    /// Runs the same replay again and returns whether it gives the same stride count.
    static func deterministic(_ strides: Int) throws -> Bool {
        let again = try MotionTestHarness(recording: walk)
        return again.run {
            let meter = StrideMeter()
            meter.start()
            again.advance(by: 25)
            meter.stop()
            return meter.strides == strides
        }
    }
}
