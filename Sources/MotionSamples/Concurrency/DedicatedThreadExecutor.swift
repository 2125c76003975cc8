import Foundation

/// A task executor that runs its jobs on one thread of its own, outside Swift's cooperative pool.
///
/// Servers started from synchronous code (`SensorLoggerServer.start()`, which returns once the socket is
/// bound) wait on the calling thread for their own async work. When that work runs on the cooperative pool
/// (as wide as the machine has cores: 2 here), a few such waits in async callers, tests or apps can take every
/// pool thread and the server never gets to run. A server whose tasks prefer this executor
/// (`Task(executorPreference:)`) needs no pool thread at all, so it starts and serves whoever waits.
///
/// The thread lives as long as the process; make one per long-lived server, not per request.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    /// Starts the executor's thread, named `name` (shown by `top -H` and debuggers).
    public init(name: String) {
        let thread = Thread { [self] in self.serve() }
        thread.name = name
        thread.start()
    }

    /// Queues `job` for the executor's thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
