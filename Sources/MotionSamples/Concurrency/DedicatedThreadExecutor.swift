import Foundation

/// A task executor that runs its jobs on one thread of its own, outside Swift's cooperative pool.
///
/// Servers started from synchronous code (`SensorLoggerServer.start()`, which returns once the socket is
/// bound) wait on the calling thread for their own async work. When that work runs on the cooperative pool
/// (as wide as the machine has cores: 2 here), a few such waits in async callers, tests or apps can take every
/// pool thread and the server never gets to run. A server whose tasks prefer this executor
/// (`Task(executorPreference:)`) needs no pool thread at all, so it starts and serves whoever waits.
///
/// The thread lives until ``shutdown()``: make one per long-lived server, not per request, and shut it
/// down when the server stops. A job enqueued after the thread has ended still runs, on a thread of
/// Dispatch's global queue, so a late continuation of a stopped server's task is never lost.
public final class DedicatedThreadExecutor: TaskExecutor, @unchecked Sendable {  // @unchecked: every var (`jobs`, `shuttingDown`, `ended`, `thread`) is guarded by `condition`
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var shuttingDown = false
    private var ended = false
    private var thread: pthread_t?

    /// Starts the executor's thread, named `name` (its first 15 bytes are what `top -H` and debuggers show).
    public init(name: String) {
        let thread = Thread { [self] in
            KernelThreadName.setCurrent(name)
            self.serve()
        }
        thread.name = name
        thread.start()
    }

    /// Whether the caller runs on the executor's thread.
    public var isCurrentThread: Bool {
        condition.lock()
        defer { condition.unlock() }
        return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
    }

    /// Queues `job` for the executor's thread (after that thread ended: for Dispatch's global queue).
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        condition.lock()
        if ended {
            condition.unlock()
            let executor = asUnownedTaskExecutor()
            DispatchQueue.global().async { unowned.runSynchronously(on: executor) }
            return
        }
        jobs.append(unowned)
        condition.signal()
        condition.unlock()
    }

    /// Lets the thread end once the jobs queued so far have run. Later jobs run on Dispatch's global queue.
    public func shutdown() {
        condition.lock()
        shuttingDown = true
        condition.signal()
        condition.unlock()
    }

    /// Whether the thread has ended (after ``shutdown()``, once its queue was empty).
    public var hasEnded: Bool {
        condition.lock()
        defer { condition.unlock() }
        return ended
    }

    private func serve() {
        condition.lock()
        thread = pthread_self()
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty && !shuttingDown { condition.wait() }
            if jobs.isEmpty {
                ended = true
                thread = nil  // a later thread may get the same id
                condition.unlock()
                return
            }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            condition.unlock()
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
