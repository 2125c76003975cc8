import Foundation
import MotionSamples

/// Records waiting for the next flush, by source (both stores batch their writes this way).
package struct PendingRecords {
    package init() {}
    package var steps: [String: [StepRecord]] = [:]
    package var floors: [String: [FloorRecord]] = [:]
    package var transitions: [String: [PedometerTransitionRecord]] = [:]
    package var activities: [String: [ActivityRecord]] = [:]
    package var accelerometer: [String: [AccelerometerRecord]] = [:]
    package var count = 0

    /// Every source with records in the batch.
    package var sources: Set<String> {
        Set(steps.keys).union(floors.keys).union(transitions.keys).union(activities.keys).union(accelerometer.keys)
    }

    /// Puts an older batch (that failed to be written) before these records.
    package mutating func prepend(_ older: PendingRecords) {
        func join<T>(_ old: [String: [T]], _ new: inout [String: [T]]) {
            for (source, records) in old { new[source] = records + (new[source] ?? []) }
        }
        join(older.steps, &steps)
        join(older.floors, &floors)
        join(older.transitions, &transitions)
        join(older.activities, &activities)
        join(older.accelerometer, &accelerometer)
        count += older.count
    }
}
