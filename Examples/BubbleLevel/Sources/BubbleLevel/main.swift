// A bubble level: device motion's gravity vector gives the tilt; the bubble floats to the high side.
//
//   swift run --package-path Examples/BubbleLevel                     # this machine's sensors (or coremotiond)
//   COREMOTION_DEVICE=sim:rotate-x swift run --package-path Examples/BubbleLevel BubbleLevel --seconds 10
//
// Written as on iOS: one CMMotionManager, updates delivered to the main queue, the "view" redrawn in the
// handler. On a terminal it draws ~30 times a second; otherwise (a pipe, a log) it prints one line a second.
import CoreMotion

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("BubbleLevel: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

let motion = CMMotionManager()
guard motion.isDeviceMotionAvailable else {
    FileHandle.standardError.write(Data("BubbleLevel: device motion is not available on this device (it needs an accelerometer and a gyroscope; try COREMOTION_DEVICE=sim:rotate-x)\n".utf8))
    exit(1)
}

let display: any LevelDisplay = isatty(STDOUT_FILENO) != 0 ? TerminalDisplay() : LineDisplay()
display.begin()

motion.deviceMotionUpdateInterval = 1.0 / 30.0
motion.startDeviceMotionUpdates(to: .main) { deviceMotion, error in
    if let error {
        display.end()
        FileHandle.standardError.write(Data("BubbleLevel: \(error.localizedDescription)\n".utf8))
        exit(1)
    }
    guard let deviceMotion else { return }
    display.show(Tilt(gravity: deviceMotion.gravity), at: deviceMotion.timestamp)
}

// The main run loop delivers the handlers (UIApplicationMain does this on iOS).
let deadline = options.seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
motion.stopDeviceMotionUpdates()
display.end()
