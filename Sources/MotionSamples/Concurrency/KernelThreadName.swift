import Foundation

/// The calling thread's name as the kernel has it (`/proc/thread-self/comm`: what `top -H`, `ps -L` and
/// debuggers show). Foundation's `Thread.name` set before `start()` does not reach the kernel on Linux (a
/// new thread shows the name of the one that made it), and `pthread_setname_np` is not imported.
public enum KernelThreadName {
    /// Names the calling thread: the first 15 bytes of `name` (the kernel's limit).
    public static func setCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = name.utf8CString.withUnsafeBufferPointer { write(fd, $0.baseAddress, min($0.count - 1, 15)) }
        close(fd)
    }

    /// The calling thread's name, or `nil` when it cannot be read.
    public static var current: String? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}
