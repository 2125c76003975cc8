// A step counter with today's history: live steps since midnight (CMPedometer.startUpdates), steps per hour
// of today so far (queryPedometerData, one query per hour, drawn as bars) and today's activity
// (CMMotionActivityManager.queryActivityStarting), with the Motion & Fitness authorization handled as an app
// must.
//
//   COREMOTION_DEVICE=sim:walking-in-hand swift run --package-path Examples/StepCounter StepCounter --seconds 20
//   COREMOTION_DEVICE=service:/tmp/cm.sock swift run --package-path Examples/StepCounter    # through coremotiond
//
// Through the system service coremotiond, history is personal: the user grants it once with
// `coremotion permissions grant StepCounter`.
import CoreMotion

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("StepCounter: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

let screen = StepCounterScreen(interactive: isatty(STDOUT_FILENO) != 0)
screen.start()

// The main run loop delivers the work handlers send to the main queue (UIApplicationMain does this on iOS).
let deadline = options.seconds.map { Date(timeIntervalSinceNow: $0) } ?? .distantFuture
while Date() < deadline && !screen.isFinished {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
screen.stop()
exit(screen.exitStatus)
