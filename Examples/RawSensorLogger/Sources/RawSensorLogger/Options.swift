import CoreMotion

/// The command line: `RawSensorLogger [--seconds N] [--hz RATE]`.
struct Options {
    static let usage = "usage: RawSensorLogger [--seconds N] [--hz RATE]   (default: 10 s at 50 Hz; RATE from 1 to 1000)"

    /// How long to log.
    var seconds: TimeInterval = 10
    /// The update rate asked of each sensor, in updates per second.
    var hz: Double = 50

    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    init<Arguments: Sequence<String>>(_ arguments: Arguments) throws {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--seconds":
                guard let value = iterator.next(), let seconds = TimeInterval(value), seconds > 0, seconds.isFinite else {
                    throw UsageError(description: "--seconds needs a number of seconds greater than 0")
                }
                self.seconds = seconds
            case "--hz":
                guard let value = iterator.next(), let hz = Double(value), hz >= 1, hz <= 1000 else {
                    throw UsageError(description: "--hz needs a rate from 1 to 1000 updates per second")
                }
                self.hz = hz
            case "-h", "--help":
                print(Options.usage)
                exit(0)
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
    }
}
