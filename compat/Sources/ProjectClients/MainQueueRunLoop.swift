import CoreMotion

// An app's shape: the main run loop runs (`UIApplicationMain` does this on iOS), handlers given `.main` run on
// the main thread.
func mainQueueRunLoop(_ e: Expectations) {
    let wanted = 50
    let motion = CMMotionManager()
    guard motion.isAccelerometerAvailable else { return e.check(false, "accelerometer not available") }
    var calls = 0
    var offMainThread = 0
    var offMainQueue = 0
    var done = false
    motion.accelerometerUpdateInterval = 1.0 / 100.0
    motion.startAccelerometerUpdates(to: .main) { data, _ in
        guard data != nil, !done else { return }
        calls += 1
        if !Thread.isMainThread { offMainThread += 1 }
        if OperationQueue.current !== OperationQueue.main { offMainQueue += 1 }
        if calls == wanted { done = true }
    }
    let deadline = Date().addingTimeInterval(10)
    while !done && Date() < deadline {
        RunLoop.main.run(until: Date().addingTimeInterval(0.05))
    }
    motion.stopAccelerometerUpdates()
    e.check(done, "only \(calls) handler calls in 10 s")
    e.check(offMainThread == 0, "\(offMainThread) handler calls off the main thread")
    e.check(offMainQueue == 0, "\(offMainQueue) handler calls off OperationQueue.main")
    e.note("\(calls) calls on the main thread")
}
