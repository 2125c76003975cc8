import Foundation

/// The calling thread's timer slack: how late the kernel may end its timed waits (a condition wait with a
/// deadline, `usleep`) to group wake-ups. Linux gives a thread 50 µs; a thread that delivers samples at their
/// due times (``DueTimeDriver``) asks for 1 µs, so that a 1 kHz device's samples leave about 50 µs sooner.
/// Waits that end on an event (a socket, a signal) are not affected.
public enum TimerSlack {
    /// `prctl(2)`'s options (linux/prctl.h).
    private static let setOption: Int32 = 29   // PR_SET_TIMERSLACK
    private static let getOption: Int32 = 30   // PR_GET_TIMERSLACK

    /// `prctl` looked up once: C's variadic functions are not imported into Swift, so it is called through a
    /// pointer with its five integer arguments, which is how the Linux ABIs pass them to a variadic function.
    private typealias Prctl = @convention(c) (Int32, UInt, UInt, UInt, UInt) -> Int32
    private static let prctl: Prctl? = {
        #if os(Linux)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "prctl") else { return nil }
        return unsafeBitCast(symbol, to: Prctl.self)
        #else
        return nil
        #endif
    }()

    /// Sets the calling thread's slack to `nanoseconds` (≥ 1; 0 would mean the process default); returns
    /// whether the kernel took it.
    @discardableResult
    public static func setCurrent(nanoseconds: UInt) -> Bool {
        guard let prctl, nanoseconds > 0 else { return false }
        return prctl(setOption, nanoseconds, 0, 0, 0) == 0
    }

    /// The calling thread's slack in nanoseconds, or `nil` where it cannot be read.
    public static var current: UInt? {
        guard let prctl else { return nil }
        let value = prctl(getOption, 0, 0, 0, 0)
        return value >= 0 ? UInt(value) : nil
    }
}
