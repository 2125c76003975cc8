import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A self-pipe that lets another thread interrupt a capture thread's waits at once: the capture
/// thread sleeps in `poll` with the pipe's read end in the set (beside the buffer node, if any), and
/// ``wake()`` makes it readable. So a capture can wait seconds when nothing is due and still stop or
/// be replaced within microseconds.
///
/// Without a pipe (descriptors exhausted) waits fall back to slices of at most 20 ms.
///
/// The capture thread closes it when it finishes (``close()``): a session object may outlive its thread,
/// and must not hold two descriptors for nothing.
final class IIOWakePipe: @unchecked Sendable {  // @unchecked: `closed` is guarded by `lock`, which keeps `wake()`'s write(2) from `close()`; fds are `let`s
    // NSLock, not Mutex: the thread sanitizer CI runs cannot see Mutex's contended (futex) path.
    /// The read end, to put in a `poll` set (`-1` when there is no pipe: `poll` ignores it). Only the
    /// capture thread uses it, and only before it calls ``close()``.
    let readDescriptor: Int32
    private let writeDescriptor: Int32
    private let lock = NSLock()
    private var closed = false

    /// The longest single wait without a pipe, seconds.
    static let fallbackSlice = 0.02

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            readDescriptor = fds[0]
            writeDescriptor = fds[1]
        } else {
            readDescriptor = -1
            writeDescriptor = -1
        }
    }

    deinit { close() }

    /// Closes both ends (idempotent); later ``wake()`` calls do nothing. Called by the thread that waits.
    func close() {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return }
        closed = true
        if readDescriptor >= 0 { closeDescriptor(readDescriptor) }
        if writeDescriptor >= 0 { closeDescriptor(writeDescriptor) }
    }

    /// Whether waits can be interrupted (the pipe exists).
    var isAvailable: Bool { readDescriptor >= 0 }

    /// Makes the read end readable for good: every later wait returns at once (it is used to stop a
    /// capture, which is final). Safe from any thread, never blocks.
    func wake() {
        lock.lock()
        defer { lock.unlock() }
        guard writeDescriptor >= 0, !closed else { return }
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)  // EAGAIN: the pipe is full, hence readable already
    }

    /// A `poll` timeout in milliseconds for a wait of `seconds`: rounded up, so that a deadline is
    /// never woken for early (which would cost a second wake-up); at most 20 ms without a pipe.
    func pollTimeout(_ seconds: Double) -> Int32 {
        guard seconds > 0 else { return 0 }
        let bounded = isAvailable ? min(seconds, 3600) : min(seconds, Self.fallbackSlice)
        return Int32((bounded * 1000).rounded(.up))
    }

    /// Sleeps `seconds` or until ``wake()``, whichever comes first.
    ///
    /// Waits shorter than 20 ms sleep with `nanosleep` (to the microsecond, as polled capture needs at
    /// high rates; a stop waits for them as it always did); longer ones in `poll` on the pipe, to the
    /// millisecond, rounded up.
    func wait(_ seconds: Double) {
        guard seconds > 0 else { return }
        guard isAvailable, seconds >= Self.fallbackSlice else {
            IIOCaptureSession.sleep(min(seconds, Self.fallbackSlice))
            return
        }
        var pfd = pollfd(fd: readDescriptor, events: Int16(POLLIN), revents: 0)
        _ = poll(&pfd, 1, pollTimeout(seconds))
    }
}

/// `close(2)` (inside the class `close` is the method).
private func closeDescriptor(_ fd: Int32) {
    _ = close(fd)
}
