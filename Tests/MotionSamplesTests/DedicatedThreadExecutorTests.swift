import Foundation
import MotionSamples
import Testing

@Suite struct DedicatedThreadExecutorTests {
    /// Tasks that prefer the executor run on its thread, which carries its name; after `shutdown` the thread
    /// ends, and a task started later still runs (on Dispatch's global queue).
    @Test func runsOnItsThreadEndsOnShutdownAndNeverLosesALateJob() async throws {
        let executor = DedicatedThreadExecutor(name: "executor-test")
        let (onIt, name) = await Task(executorPreference: executor) { (executor.isCurrentThread, kernelThreadName()) }.value
        #expect(onIt)
        #expect(name == "executor-test")
        #expect(!executor.isCurrentThread)
        executor.shutdown()
        let deadline = Date().addingTimeInterval(5)
        while !executor.hasEnded && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(executor.hasEnded)
        let (late, lateOnIt) = await Task(executorPreference: executor) { (6 * 7, executor.isCurrentThread) }.value
        #expect(late == 42 && !lateOnIt)
    }

    /// Jobs queued before the shutdown still run on the thread.
    @Test func jobsQueuedBeforeTheShutdownRun() async throws {
        let executor = DedicatedThreadExecutor(name: "executor-test-2")
        let tasks = (0..<20).map { i in Task(executorPreference: executor) { i } }
        executor.shutdown()
        var sum = 0
        for t in tasks { sum += await t.value }
        #expect(sum == 190)
    }
}

/// The running thread's name as the kernel has it (what `top -H` shows).
private func kernelThreadName() -> String { KernelThreadName.current ?? "" }
