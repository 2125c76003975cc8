import CoreMotion

// Only `import CoreMotion`, as in real apps: Date, OperationQueue, Timer, RunLoop, NSLock come with it, as
// Apple's module's headers import Foundation.

/// Timer ticks. Timer's block is `@Sendable` (in Apple's Foundation as in swift-corelibs-foundation), so it
/// counts into a lock-protected box rather than a captured `var`, which Swift 6 rejects.
final class TickCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    func tick() {
        lock.lock()
        count += 1
        lock.unlock()
    }

    var ticks: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

func foundationThroughCoreMotion(_ e: Expectations) {
    let start = Date()
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let motion = CMMotionManager()
    let counter = TickCounter()
    let timer = Timer(timeInterval: 0.05, repeats: true) { _ in counter.tick() }
    RunLoop.current.add(timer, forMode: .default)
    motion.startAccelerometerUpdates(to: queue) { _, _ in }
    RunLoop.current.run(until: Date().addingTimeInterval(0.5))
    timer.invalidate()
    motion.stopAccelerometerUpdates()
    let ticks = counter.ticks
    e.check(ticks >= 5, "timer fired \(ticks) times in 0.5 s")
    e.check(Date().timeIntervalSince(start) >= 0.5, "Date arithmetic")
    e.note("\(ticks) timer ticks")
}
