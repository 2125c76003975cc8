import Foundation
import NIOConcurrencyHelpers

/// Which provider the API uses instead of the process's default: a test's virtual-clock harness installs
/// one for a task or for the whole process. Apps never touch it; the default comes from `COREMOTION_DEVICE`.
public enum MotionProviderOverride {
    @TaskLocal private static var taskOverride: (any MotionProvider)?
    private static let processOverride = NIOLockedValueBox<(any MotionProvider)?>(nil)

    /// The task's override, else the process's, else `nil`.
    public static var current: (any MotionProvider)? {
        if let task = taskOverride { return task }
        return processOverride.withLockedValue { $0 }
    }

    /// Runs `operation` with `provider` as the API's provider for the task (and its child tasks).
    public static func with<R>(_ provider: any MotionProvider, operation: () throws -> R) rethrows -> R {
        try $taskOverride.withValue(provider, operation: operation)
    }

    /// Runs `operation` with `provider` as the API's provider for the task (and its child tasks).
    public static func with<R>(
        _ provider: any MotionProvider, isolation: isolated (any Actor)? = #isolation, operation: () async throws -> R
    ) async rethrows -> R {
        try await $taskOverride.withValue(provider, operation: operation, isolation: isolation)
    }

    /// Installs `provider` for the whole process (all threads) until removed with `nil`.
    public static func installForProcess(_ provider: (any MotionProvider)?) {
        processOverride.withLockedValue { $0 = provider }
    }
}
