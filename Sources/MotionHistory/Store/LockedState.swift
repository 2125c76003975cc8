import Foundation

/// A value guarded by a lock, with `Mutex`'s `withLock` shape.
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: the thread sanitizer
/// understands pthread locking, whereas the standard library's futex-based `Mutex` is not instrumented
/// and makes every guarded access look like a race in sanitized test runs.
final class LockedState<Value>: @unchecked Sendable {  // @unchecked: `value` is only reached through `withLock`, under `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
