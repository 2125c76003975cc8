import CoreMotion

// A command-line tool's shape: start updates to `.main`, then `dispatchMain()`, and exit from a handler after
// N samples. `dispatchMain()` parks the main thread and turns the main queue into an ordinary serial queue
// drained by a worker thread (libdispatch's `_dispatch_queue_cleanup2`; its maintainer: "if you call
// dispatch_main(), then the main queue becomes detached", swiftlang/swift-corelibs-libdispatch#299), on
// Apple's platforms as on Linux. What holds: handlers run on the main queue, one at a time, in order, on the
// main actor, and nothing is lost; `Thread.isMainThread` is false there, as on Apple's platforms.
func mainQueueDispatchMain(_ e: Expectations) {
    let wanted = 50
    let motion = CMMotionManager()
    guard motion.isAccelerometerAvailable else {
        e.check(false, "accelerometer not available")
        e.finish("main-queue-dispatch-main")
    }
    var timestamps: [TimeInterval] = []
    var onMainQueue = 0
    var onMainActor = 0
    var onMainThread = 0
    var running = false
    var overlapped = false
    let started = Date()
    motion.accelerometerUpdateInterval = 1.0 / 100.0
    motion.startAccelerometerUpdates(to: .main) { data, error in
        if running { overlapped = true }
        running = true
        defer { running = false }
        guard let data, error == nil else { return }
        timestamps.append(data.timestamp)
        if OperationQueue.current === OperationQueue.main { onMainQueue += 1 }
        if Thread.isMainThread { onMainThread += 1 }
        if MainActor.assumeIsolated({ true }) { onMainActor += 1 }  // traps off the main actor
        guard timestamps.count == wanted else { return }
        motion.stopAccelerometerUpdates()
        let seconds = Date().timeIntervalSince(started)
        e.check(onMainQueue == wanted, "\(wanted - onMainQueue) handler calls off OperationQueue.main")
        e.check(onMainActor == wanted, "\(wanted - onMainActor) handler calls off the main actor")
        e.check(!overlapped, "two handler calls overlapped")
        e.check(zip(timestamps.dropFirst(), timestamps).allSatisfy { $0 > $1 }, "timestamps not strictly increasing")
        e.check(seconds < 5, "\(wanted) samples at 100 Hz took \(seconds) s")
        e.note("\(wanted) samples in \(String(format: "%.2f", seconds)) s on the main queue; on the main thread: \(onMainThread)")
        e.finish("main-queue-dispatch-main")
    }
    DispatchQueue.global().asyncAfter(deadline: .now() + 15) {
        print("FAIL main-queue-dispatch-main: no \(wanted) handler calls within 15 s of dispatchMain()")
        exit(1)
    }
    dispatchMain()
}
