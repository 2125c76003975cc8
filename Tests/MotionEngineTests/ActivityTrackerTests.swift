import Foundation
import MotionEngine
import Testing

private func estimate(_ time: Double, _ activity: ActivityClass, _ p: Double = 0.9) -> ActivityEstimate {
    var probabilities = ActivityProbabilities()
    let rest = (1 - p) / 4
    for c in ActivityClass.allCases { probabilities[c] = c == activity ? p : rest }
    return ActivityEstimate(time: time, windowDuration: ActivityFeatures.windowDuration, probabilities: probabilities)
}

/// Feeds `activity` every `hop` seconds over `range`; returns the states reported.
private func feed(_ tracker: inout ActivityTracker, _ activity: ActivityClass, from start: Double, to end: Double, hop: Double = 1.28, p: Double = 0.9)
    -> [ActivityState]
{
    feed(&tracker, estimate(0, activity, p).probabilities, from: start, to: end, hop: hop)
}

/// Feeds estimates with the given probabilities every `hop` seconds over `range`; returns the states reported.
private func feed(_ tracker: inout ActivityTracker, _ probabilities: ActivityProbabilities, from start: Double, to end: Double, hop: Double = 1.28)
    -> [ActivityState]
{
    var out: [ActivityState] = []
    var t = start
    while t < end {
        let e = ActivityEstimate(time: t, windowDuration: ActivityFeatures.windowDuration, probabilities: probabilities)
        if let s = tracker.update(e) { out.append(s) }
        t += hop
    }
    return out
}

/// The flags of successive states with consecutive repeats (confidence-only updates) removed.
private func flagChanges(_ states: [ActivityState]) -> [ActivityFlags] {
    var out: [ActivityFlags] = []
    for s in states where out.last != s.flags { out.append(s.flags) }
    return out
}

@Suite("Activity tracker")
struct ActivityTrackerTests {
    @Test("the first update is the current state, then only changes")
    func firstThenChanges() {
        var tracker = ActivityTracker()
        let first = tracker.update(estimate(5.12, .walking))
        #expect(first?.flags == .walking)
        #expect(first?.confidence == .high)
        #expect(first?.startTime == 5.12 - ActivityFeatures.windowDuration / 2)
        #expect(feed(&tracker, .walking, from: 6.4, to: 60).isEmpty)
    }

    @Test("a change needs three consecutive estimates; a single odd window does not flicker")
    func hysteresis() {
        var tracker = ActivityTracker()
        _ = feed(&tracker, .walking, from: 5, to: 30)
        // One running window among walking ones: no update.
        #expect(tracker.update(estimate(30, .running, 0.99)) == nil)
        #expect(feed(&tracker, .walking, from: 31.28, to: 40).isEmpty)
        // Sustained running: one update, after the smoothing and three confirmations.
        let changes = feed(&tracker, .running, from: 40, to: 60)
        // The change, then (as the smoothed probability settles) its confidence rising to high.
        #expect(flagChanges(changes) == [.running])
        #expect(changes.count <= 2)
        #expect(changes.last?.confidence == .high)
        // Starts within a few seconds of the switch (start = middle of the first window of the run).
        if let start = changes.first?.startTime { #expect(start > 35 && start < 46) }
        #expect(tracker.current?.running == true)
    }

    @Test("a trip starts after 20 s of automotive; a stop in it is stationary + automotive; walking ends it")
    func vehicle() {
        var tracker = ActivityTracker()
        _ = feed(&tracker, .stationary, from: 5, to: 20)
        #expect(tracker.current?.flags == .stationary)
        // 15 s of vehicle-like windows: not yet a trip.
        #expect(feed(&tracker, .automotive, from: 20, to: 35).isEmpty)
        let trip = feed(&tracker, .automotive, from: 35, to: 120)
        #expect(flagChanges(trip) == [.automotive])
        // The trip's start is dated back to the middle of the first window of the confirming run (once the
        // smoothed probability passed 0.75), not to when it was confirmed 20 s later. Measured: 23.8 s.
        if let start = trip.first?.startTime { #expect(start > 15 && start < 25) }
        // A red light.
        let stop = feed(&tracker, .stationary, from: 120, to: 160)
        #expect(flagChanges(stop) == [[.stationary, .automotive]])
        #expect(stop.first?.flags.primaryClass == .automotive)
        #expect(flagChanges(feed(&tracker, .automotive, from: 160, to: 200)) == [.automotive])
        // Parked and out of the car.
        #expect(flagChanges(feed(&tracker, .walking, from: 200, to: 230)) == [.walking])
        // Standing still afterwards is plain stationary.
        #expect(flagChanges(feed(&tracker, .stationary, from: 230, to: 260)) == [.stationary])
    }

    @Test("a bend on the way (weaker automotive, still moving) pauses the count towards a trip; a dip towards stationary or a long pause starts it over")
    func tripThroughABend() {
        let vehicle = ActivityProbabilities(stationary: 0.02, cycling: 0.02, automotive: 0.96)
        let bend = ActivityProbabilities(stationary: 0.03, walking: 0.05, cycling: 0.32, automotive: 0.6)
        let stillish = ActivityProbabilities(stationary: 0.45, automotive: 0.55)
        /// Standing 5 s, driving 12 s, `middle` until `resume`, driving on until `end`: the states reported
        /// from `resume` on (nothing may be reported before).
        func drive(through middle: ActivityProbabilities, until resume: Double, end: Double) -> [ActivityState] {
            var tracker = ActivityTracker()
            _ = feed(&tracker, .stationary, from: 0, to: 5)
            #expect(feed(&tracker, vehicle, from: 5, to: 17).isEmpty)
            #expect(feed(&tracker, middle, from: 17, to: resume).isEmpty)
            return feed(&tracker, vehicle, from: resume, to: end)
        }

        // An 8 s bend: the trip starts once 20 s of confident windows are in, dated from the first of them.
        var trip = drive(through: bend, until: 25, end: 60)
        #expect(flagChanges(trip) == [.automotive])
        if let start = trip.first?.startTime { #expect(start < 8, "dated \(start)") }

        // A dip towards stationary (a still phone the model half takes for a parked car) starts the
        // count over after it.
        trip = drive(through: stillish, until: 25, end: 80)
        #expect(flagChanges(trip) == [.automotive])
        if let start = trip.first?.startTime { #expect(start > 20, "dated \(start)") }

        // So does a weaker stretch longer than 10 s.
        trip = drive(through: bend, until: 37, end: 90)
        #expect(flagChanges(trip) == [.automotive])
        if let start = trip.first?.startTime { #expect(start > 30, "dated \(start)") }

        // Weaker windows alone never start a trip.
        var tracker = ActivityTracker()
        _ = feed(&tracker, .stationary, from: 0, to: 5)
        #expect(feed(&tracker, bend, from: 5, to: 120).isEmpty)
        #expect(tracker.current?.flags == .stationary)
    }

    @Test("a long stop loses the automotive flag after the hold")
    func longStop() {
        var tracker = ActivityTracker()
        _ = feed(&tracker, .automotive, from: 5, to: 100)
        let states = feed(&tracker, .stationary, from: 100, to: 400)
        #expect(flagChanges(states) == [[.stationary, .automotive], .stationary])
        // The hold is 3 minutes from the last automotive window.
        if let end = states.last?.startTime { #expect(end > 270 && end < 290) }
    }

    @Test("movement the model cannot name sets no flag; interrupt and gaps give unknown then an immediate state")
    func unclassifiedAndUnknown() {
        var tracker = ActivityTracker()
        let flat = ActivityProbabilities(stationary: 0.2, walking: 0.2, running: 0.2, cycling: 0.2, automotive: 0.2)
        let first = tracker.update(ActivityEstimate(time: 6, windowDuration: 5.12, probabilities: flat))
        #expect(first?.flags == [])
        #expect(first?.flags.description == "unclassified")
        #expect(first?.confidence == .low)
        _ = feed(&tracker, .cycling, from: 7, to: 30)
        #expect(tracker.current?.cycling == true)
        let off = tracker.interrupt(at: 31)
        #expect(off?.unknown == true)
        #expect(tracker.interrupt(at: 32) == nil)
        #expect(tracker.update(estimate(40, .running))?.flags == .running)
        // More than 10 s without estimates: the next one is adopted at once.
        #expect(tracker.update(estimate(60, .stationary))?.flags == .stationary)
    }

    @Test("confidence follows the smoothed probability with the same hysteresis")
    func confidence() {
        var tracker = ActivityTracker()
        #expect(tracker.update(estimate(5, .walking, 0.6))?.confidence == .medium)
        let changes = feed(&tracker, .walking, from: 6.28, to: 30, p: 0.95)
        #expect(changes.map(\.confidence) == [.high])
        // A confidence change keeps the activity's start time.
        #expect(changes.first?.startTime == 5 - ActivityFeatures.windowDuration / 2)
    }
}
