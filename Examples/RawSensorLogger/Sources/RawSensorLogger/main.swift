// A raw-sensor logger: the accelerometer, the gyroscope and the magnetometer at a chosen rate, written as CSV
// (`time,sensor,x,y,z`) to standard output for a number of seconds. Notes (a sensor this device lacks, the
// counts at the end) go to standard error, so that standard output stays a CSV file.
//
//   COREMOTION_DEVICE=sim:walking-in-hand swift run --package-path Examples/RawSensorLogger RawSensorLogger --seconds 5 --hz 100 > walk.csv
//   swift run --package-path Examples/RawSensorLogger        # this machine's sensors (or coremotiond), 10 s at 50 Hz
//
// Written as on iOS: one CMMotionManager, start…Updates(to:withHandler:) on one serial operation queue.
import CoreMotion

let options: Options
do {
    options = try Options(CommandLine.arguments.dropFirst())
} catch {
    FileHandle.standardError.write(Data("RawSensorLogger: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
}

/// A line on standard error.
func note(_ text: String) {
    FileHandle.standardError.write(Data("RawSensorLogger: \(text)\n".utf8))
}

let log = SensorLog()
for sensor in RawSensor.allCases where !log.isAvailable(sensor) {
    note("no \(sensor.rawValue) on this device: it is not logged")
}
guard RawSensor.allCases.contains(where: log.isAvailable) else {
    note("this device has none of the three sensors (choose a device with COREMOTION_DEVICE, e.g. sim:walking-in-hand)")
    exit(1)
}

print("time,sensor,x,y,z")
let started = log.start(hz: options.hz) { sensor, error in
    note("\(sensor.rawValue): \(error.localizedDescription)")
    exit(1)
}
note("logging " + started.map { "\($0.rawValue) (\($0.unit))" }.joined(separator: ", ")
    + " at \(options.hz.formatted()) Hz for \(options.seconds.formatted()) s")

// The main run loop keeps the app alive while the queue writes (UIApplicationMain does this on iOS).
let deadline = Date(timeIntervalSinceNow: options.seconds)
while Date() < deadline {
    RunLoop.main.run(until: min(deadline, Date(timeIntervalSinceNow: 0.25)))
}
log.stop()
note("wrote " + started.map { "\(log.counts[$0, default: 0]) \($0.rawValue)" }.joined(separator: ", ") + " lines")
