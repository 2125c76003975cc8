import Foundation

/// A value guarded by a lock, with `Mutex`'s `withLock` shape (`package`: the PostgreSQL store uses it too).
///
/// Built on `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`: the thread sanitizer
/// understands pthread locking, whereas the standard library's futex-based `Mutex` is not instrumented
/// and makes every guarded access look like a race in sanitized test runs.
package final class LockedState<Value>: @unchecked Sendable {  // @unchecked: `value` is only reached through `withLock`, under `lock`
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with exclusive access to the value.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
