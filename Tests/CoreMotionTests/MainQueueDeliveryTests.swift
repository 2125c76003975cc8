import CoreMotion
import CoreMotionTesting
import Foundation
import Testing

/// Handlers given `OperationQueue.main`. The test process drains the main queue the way `dispatchMain()`
/// does (its main thread does not run a run loop), so this is the command-line-tool case: handlers run on the
/// main queue and the main actor, one at a time, in order. The run-loop case (on the main thread) needs a
/// process whose main thread spins `RunLoop.main`: the compatibility client `main-queue-run-loop` checks it,
/// and `main-queue-dispatch-main` checks an explicit `dispatchMain()`.
@Suite("handlers on OperationQueue.main")
struct MainQueueDeliveryTests {
    @Test("run on the main queue and the main actor, one at a time, in order, losing nothing")
    func mainQueueDelivery() {
        let h = syntheticHarness()
        h.run {
            let m = CMMotionManager()
            let calls = Recorder<(time: Double, onMainQueue: Bool, index: Double)>()
            m.accelerometerUpdateInterval = 0.01
            m.startAccelerometerUpdates(to: .main) { data, _ in
                guard let data else { return }
                let onMainActor = MainActor.assumeIsolated { true }  // traps off the main actor
                calls.append((data.timestamp, onMainActor && OperationQueue.current === OperationQueue.main, data.acceleration.x))
            }
            h.advance(by: 1)
            m.stopAccelerometerUpdates()
            let all = calls.all
            #expect(all.count >= 99 && all.count <= 101)  // 100 Hz for 1 s
            #expect(all.allSatisfy { $0.onMainQueue })
            #expect(zip(all.dropFirst(), all).allSatisfy { $0.time > $1.time })
            #expect(zip(all.dropFirst(), all).allSatisfy { $0.index == $1.index + 1 })  // nothing lost
        }
    }
}
