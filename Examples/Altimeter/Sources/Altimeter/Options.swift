import CoreMotion

/// The command line: `Altimeter [--seconds N]`.
struct Options {
    static let usage = "usage: Altimeter [--seconds N]   (N > 0: stop after N seconds; default: run until Ctrl-C)"

    /// How long to run, or `nil` to run until interrupted.
    var seconds: TimeInterval?

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
            case "-h", "--help":
                print(Options.usage)
                exit(0)
            default:
                throw UsageError(description: "unknown argument \(argument)")
            }
        }
    }
}
