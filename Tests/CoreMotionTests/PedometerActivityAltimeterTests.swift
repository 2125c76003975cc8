import CoreMotion
import CoreMotionTesting
import Foundation
import Testing
import TestSupport

/// Waits for a pedometer/activity handler that runs on a queue the test does not own.
func waitFor(_ semaphore: DispatchSemaphore) -> Bool { semaphore.wait(timeout: .now() + 10) == .success }

@Suite("CMPedometer, CMMotionActivityManager and CMAltimeter on a virtual clock")
struct PedometerActivityAltimeterTests {
    @Test("live pedometer updates are cumulative from the start date; a query over the same span agrees")
    func pedometerLiveAndQuery() throws {
        let h = try MotionTestHarness(scene: "walking-in-hand")
        h.run {
            #expect(CMPedometer.isStepCountingAvailable() && CMPedometer.isDistanceAvailable())
            #expect(CMPedometer.isCadenceAvailable() && CMPedometer.isPaceAvailable())
            let pedometer = CMPedometer()
            let start = h.date
            let updates = Recorder<CMPedometerData>()
            pedometer.startUpdates(from: start) { data, error in
                #expect(error == nil)
                if let data { updates.append(data) }
            }
            h.advance(by: 33)  // 3 s standing, 30 s walking at 1.9 steps/s
            pedometer.stopUpdates()
            let live = updates.all
            let last = live.last
            #expect(live.count >= 20)
            #expect(live.allSatisfy { $0.startDate == start })
            let steps = live.map(\.numberOfSteps.intValue)
            #expect(zip(steps.dropFirst(), steps).allSatisfy { $0 >= $1 })
            // 57 true steps in 30 s of walking; the detector confirms the last ones after a short delay.
            #expect((50...58).contains(last?.numberOfSteps.intValue ?? 0))
            let cadence = live.last(where: { $0.currentCadence != nil })?.currentCadence?.doubleValue ?? 0
            #expect(abs(cadence - 1.9) < 0.15)
            let distance = last?.distance?.doubleValue ?? 0
            #expect(distance > 25 && distance < 55)  // 1.35 m/s for 30 s = 40.5 m
            #expect(last?.averageActivePace != nil)

            let done = DispatchSemaphore(value: 0)
            let result = Recorder<CMPedometerData>()
            pedometer.queryPedometerData(from: start, to: last?.endDate ?? h.date) { data, error in
                #expect(error == nil)
                if let data { result.append(data) }
                done.signal()
            }
            #expect(waitFor(done))
            let queried = result.all.first
            #expect(abs((queried?.numberOfSteps.intValue ?? 0) - (last?.numberOfSteps.intValue ?? 0)) <= 3)
            #expect(queried?.currentPace == nil && queried?.currentCadence == nil)
            #expect(queried?.startDate == start)
        }
    }

    @Test("a query with the end before the start is refused with CMErrorInvalidParameter")
    func pedometerBadSpan() throws {
        let h = try MotionTestHarness(scene: "still-face-up")
        h.run {
            let done = DispatchSemaphore(value: 0)
            let codes = Recorder<Int>()
            CMPedometer().queryPedometerData(from: h.date, to: h.date.addingTimeInterval(-60)) { _, error in
                if let e = error as NSError?, e.domain == CMErrorDomain { codes.append(e.code) }
                done.signal()
            }
            #expect(waitFor(done))
            #expect(codes.all == [Int(CMErrorInvalidParameter.rawValue)])
        }
    }

    @Test("pause and resume events follow walking and standing")
    func pedometerEvents() throws {
        let h = try MotionTestHarness(scene: "walking-in-hand")
        h.run {
            #expect(CMPedometer.isPedometerEventTrackingAvailable())
            let pedometer = CMPedometer()
            let events = Recorder<CMPedometerEvent>()
            pedometer.startEventUpdates { event, _ in if let event { events.append(event) } }
            h.advance(by: 70)  // standing, 60 s walking, standing
            pedometer.stopEventUpdates()
            let types = events.all.map(\.type)
            #expect(types.first == .resume)
            #expect(types.contains(.pause))
            let dates = events.all.map(\.date)
            #expect(zip(dates.dropFirst(), dates).allSatisfy { $0 >= $1 })
        }
    }

    @Test("no steps while the phone is shaken in place or pedalled: CMPedometer uses the gyroscope", arguments: [
        // (scene, seed, steps the accelerometer alone counted: StepsTests measures them)
        ("shaking", UInt64(1), 27), ("cycling", UInt64(0), 119),
    ])
    func noStepsWhenShakenOrCycling(scene: String, seed: UInt64, accelerometerOnly: Int) throws {
        let h = try MotionTestHarness(scene: scene, seed: seed)
        h.run {
            let pedometer = CMPedometer()
            let start = h.date
            pedometer.startUpdates(from: start) { _, _ in }
            h.advance(by: 90)
            pedometer.stopUpdates()
            let total = Recorder<Int>()
            let done = DispatchSemaphore(value: 0)
            pedometer.queryPedometerData(from: start, to: h.date) { data, _ in
                total.append(data?.numberOfSteps.intValue ?? -1)
                done.signal()
            }
            done.wait()
            let steps = total.all.first ?? -1
            #expect(steps >= 0 && steps <= 3, "\(scene) seed \(seed): \(steps) steps (accelerometer alone: \(accelerometerOnly))")
        }
    }

    @Test("floors on the stairs scene: up three, down three")
    func floors() throws {
        let h = try MotionTestHarness(scene: "stairs")
        h.run {
            #expect(CMPedometer.isFloorCountingAvailable())
            let pedometer = CMPedometer()
            let start = h.date
            let updates = Recorder<CMPedometerData>()
            pedometer.startUpdates(from: start) { data, _ in if let data { updates.append(data) } }
            h.advance(by: 94)  // one pass of the 94.8 s scene
            pedometer.stopUpdates()
            let last = updates.all.last
            #expect(last?.floorsAscended?.intValue == 3)
            #expect(last?.floorsDescended?.intValue == 3)
        }
    }

    @Test("activity: the current state first, then changes only; walking recognised; history query")
    func activity() throws {
        let walk = TestData.fixture("recordings/motionsense/motionsense-excerpt.zip#A_DeviceMotion_data_subset/wlk_7/sub_1.csv")
        let h = try MotionTestHarness(recording: walk)
        h.run {
            #expect(CMMotionActivityManager.isActivityAvailable())
            let manager = CMMotionActivityManager()
            let start = h.date
            let queue = serialQueue()
            let updates = Recorder<CMMotionActivity>()
            manager.startActivityUpdates(to: queue) { a in if let a { updates.append(a) } }
            h.advance(by: 19)
            manager.stopActivityUpdates()
            let all = updates.all
            #expect(!all.isEmpty)
            #expect(all.last?.walking == true)
            // Changes only: no two consecutive updates with the same flags and confidence.
            for (a, b) in zip(all.dropFirst(), all) {
                #expect(a.walking != b.walking || a.stationary != b.stationary || a.running != b.running
                        || a.automotive != b.automotive || a.cycling != b.cycling || a.confidence != b.confidence)
            }
            // A second manager started now gets the current state at once.
            let late = CMMotionActivityManager()
            let first = Recorder<CMMotionActivity>()
            late.startActivityUpdates(to: queue) { a in if let a { first.append(a) } }
            queue.waitUntilAllOperationsAreFinished()
            #expect(first.all.count == 1 && first.all.first?.walking == true)
            late.stopActivityUpdates()

            let done = DispatchSemaphore(value: 0)
            let history = Recorder<[CMMotionActivity]>()
            manager.queryActivityStarting(from: start.addingTimeInterval(10), to: h.date, to: queue) { list, _ in
                history.append(list ?? [])
                done.signal()
            }
            #expect(waitFor(done))
            let list = history.all.first ?? []
            #expect(list.contains { $0.walking })
            // The first activity may start before `from`: it is the state at `from`.
            #expect((list.first?.startDate ?? .distantFuture) <= start.addingTimeInterval(10))
        }
    }

    @Test("an activity query over a span without data gives CMErrorUnknown")
    func activityEmptySpan() throws {
        let h = try MotionTestHarness(scene: "still-face-up")
        h.run {
            let done = DispatchSemaphore(value: 0)
            let codes = Recorder<Int>()
            CMMotionActivityManager().queryActivityStarting(
                from: h.date.addingTimeInterval(-3600), to: h.date.addingTimeInterval(-1800), to: serialQueue()
            ) { _, error in
                if let e = error as NSError?, e.domain == CMErrorDomain { codes.append(e.code) }
                done.signal()
            }
            #expect(waitFor(done))
            #expect(codes.all == [Int(CMErrorUnknown.rawValue)])
        }
    }

    @Test("relative altitude: first update 0, then one a second, pressure in kPa; a second start replaces the first")
    func altimeter() throws {
        let h = try MotionTestHarness(scene: "stairs")
        h.run {
            #expect(CMAltimeter.isRelativeAltitudeAvailable())
            #expect(!CMAltimeter.isAbsoluteAltitudeAvailable())
            let altimeter = CMAltimeter()
            let first = Recorder<CMAltitudeData>()
            let second = Recorder<CMAltitudeData>()
            let q = serialQueue()
            altimeter.startRelativeAltitudeUpdates(to: q) { d, _ in if let d { first.append(d) } }
            h.advance(by: 3)
            altimeter.startRelativeAltitudeUpdates(to: q) { d, _ in if let d { second.append(d) } }
            h.advance(by: 60)
            altimeter.stopRelativeAltitudeUpdates()
            let a = first.all
            let b = second.all
            #expect(a.count >= 2 && a.count <= 4)
            #expect(a.first?.relativeAltitude.doubleValue == 0)
            #expect(b.first?.relativeAltitude.doubleValue == 0)
            #expect(b.count >= 58 && b.count <= 61)
            let steps = zip(b.dropFirst(), b).map { $0.timestamp - $1.timestamp }
            #expect(steps.allSatisfy { abs($0 - 1) < 0.05 })
            #expect(b.allSatisfy { $0.pressure.doubleValue > 95 && $0.pressure.doubleValue < 105 })
            let top = b.map(\.relativeAltitude.doubleValue).max() ?? 0
            #expect(top > 8 && top < 10.5)  // the scene climbs 9.18 m
        }
    }

    @Test("absolute altitude without a reference reports CMErrorNotAvailable once")
    func absoluteWithoutReference() throws {
        let h = try MotionTestHarness(scene: "stairs")
        h.run {
            let altimeter = CMAltimeter()
            let q = serialQueue()
            let codes = Recorder<Int>()
            altimeter.startAbsoluteAltitudeUpdates(to: q) { _, e in
                if let e = e as NSError? { codes.append(e.code) }
            }
            h.advance(by: 5)
            q.waitUntilAllOperationsAreFinished()
            altimeter.stopAbsoluteAltitudeUpdates()
            #expect(codes.all == [Int(CMErrorNotAvailable.rawValue)])
        }
    }
}
