import CoreMotion

// Only `import CoreMotion`, as in real apps: Date, OperationQueue, Timer, RunLoop come with it, as Apple's
// module's headers import Foundation.
func foundationThroughCoreMotion(_ e: Expectations) {
    let start = Date()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let motion = CMMotionManager()
    var ticks = 0
    let timer = Timer(timeInterval: 0.05, repeats: true) { _ in ticks += 1 }
    RunLoop.current.add(timer, forMode: .default)
    motion.startAccelerometerUpdates(to: queue) { _, _ in }
    RunLoop.current.run(until: Date().addingTimeInterval(0.5))
    timer.invalidate()
    motion.stopAccelerometerUpdates()
    e.check(ticks >= 5, "timer fired \(ticks) times in 0.5 s")
    e.check(Date().timeIntervalSince(start) >= 0.5, "Date arithmetic")
    e.note("\(ticks) timer ticks")
}
