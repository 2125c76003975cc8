import Foundation

/// A value guarded by a lock (an `NSLock`, a pthread mutex the thread sanitizer understands).
final class Locked<Value>: @unchecked Sendable {  // @unchecked: `value` is only reached through `withLock`, under `lock`
    // NSLock, not Mutex: the thread sanitizer CI runs cannot see Mutex's contended (futex) path.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
