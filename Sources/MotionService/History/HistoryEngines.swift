import Foundation
import MotionEngine
import MotionHistory
import MotionSamples

/// The engines the service records history with, over samples handed in time order instead of a live
/// device: the pedometer (steps, floors from the barometer, pauses and resumes) and activity recognition, at
/// the rates the service asks of a device (accelerometer 100 Hz for the pedometer and 50 Hz for activity,
/// gyroscope 50 Hz, barometer once a second), producing the records the service writes to the history.
///
/// For history derived from stored readings (an ingest node's phones): the same engines and rates as
/// ``MotionService/startPedometerRecording()`` and ``MotionService/startActivityRecording()``, so a phone's
/// steps come out as they would from a live service on the same samples.
///
/// Sample times are seconds since ``origin``; record dates are `origin + time`. Memory is bounded by the
/// engines' fixed buffers plus the records not yet taken (``takeRecords()``).
public struct HistoryEngines: Sendable {
    /// The records the engines produced since the last ``takeRecords()``, each kind in date order.
    public struct Records: Sendable, Hashable {
        public var steps: [StepRecord] = []
        public var floors: [FloorRecord] = []
        public var transitions: [PedometerTransitionRecord] = []
        public var activities: [ActivityRecord] = []

        /// No records.
        public init() {}

        /// Records of every kind.
        public var count: Int { steps.count + floors.count + transitions.count + activities.count }
    }

    /// The date of sample time 0.
    public let origin: Date
    private var pedometer = PedometerEngine()
    private var classifier: ActivityClassifier
    private var tracker = ActivityTracker()
    private var pedometerGate: Decimator
    private var gyroscopeGate: Decimator
    private var activityGate: Decimator
    private var barometerGate: Decimator
    private var records = Records()
    private var lastAccelerometerTime = -Double.infinity

    /// Engines at their start, with sample time 0 at `origin`.
    ///
    /// - Parameters:
    ///   - accelerometerPeriod: the device's accelerometer sample period, s (the decimators' tolerance).
    ///   - gyroscopePeriod: the gyroscope's, s.
    ///   - barometerPeriod: the barometer's, s.
    /// - Throws: when the activity model cannot be loaded.
    public init(origin: Date, accelerometerPeriod: Double = 0.01, gyroscopePeriod: Double = 0.01, barometerPeriod: Double = 1) throws {
        self.origin = origin
        classifier = try ActivityClassifier()
        pedometerGate = Decimator(interval: 1 / PedometerRecorder.accelerometerRate, devicePeriod: accelerometerPeriod)
        gyroscopeGate = Decimator(interval: 1 / PedometerRecorder.gyroscopeRate, devicePeriod: gyroscopePeriod)
        activityGate = Decimator(interval: ActivityRecorder.accelerometerInterval, devicePeriod: accelerometerPeriod)
        barometerGate = Decimator(interval: PedometerRecorder.barometerInterval, devicePeriod: barometerPeriod)
    }

    /// Feeds one sample (time in seconds since ``origin``); samples of each sensor in increasing time.
    public mutating func add(_ sample: SensorSample) {
        switch sample {
        case .accelerometer(let a):
            guard a.time.isFinite else { return }
            if pedometerGate.admit(a.time) { pedometer.add(sample) }
            if a.time > lastAccelerometerTime { lastAccelerometerTime = a.time }
            if activityGate.admit(a.time), let estimate = classifier.add(sample), let state = tracker.update(estimate) {
                records.activities.append(ActivityRecord(startDate: date(state.startTime), flags: state.flags, confidence: state.confidence))
            }
            drainPedometer()
        case .gyroscope(let w):
            // Informs the step detector's rhythm test only (as PedometerRecorder: no events come of it).
            guard w.time.isFinite, gyroscopeGate.admit(w.time) else { return }
            pedometer.add(sample)
        case .barometer(let p):
            guard p.time.isFinite, barometerGate.admit(p.time) else { return }
            pedometer.add(sample)
            drainPedometer()
        case .magnetometer:
            break
        }
    }

    /// Ends the stream (the readings stopped): steps still being confirmed are decided, a walk in progress
    /// ends with a pause, and the activity becomes unknown after the last accelerometer sample (as the
    /// service does when its device stops).
    public mutating func finish() {
        pedometer.finish()
        drainPedometer()
        if lastAccelerometerTime.isFinite {
            classifier.reset()
            if let state = tracker.interrupt(at: lastAccelerometerTime) {
                records.activities.append(ActivityRecord(startDate: date(state.startTime), flags: state.flags, confidence: state.confidence))
            }
        }
    }

    /// The records produced since the last call (then forgotten here).
    public mutating func takeRecords() -> Records {
        defer { records = Records() }
        return records
    }

    private mutating func drainPedometer() {
        while let event = pedometer.nextEvent() {
            switch event {
            case .step(let t, let length):
                records.steps.append(StepRecord(date: date(t), strideLength: length))
            case .floor(let t, let ascended):
                records.floors.append(FloorRecord(date: date(t), change: ascended ? .ascended : .descended))
            case .pause(let t):
                records.transitions.append(PedometerTransitionRecord(date: date(t), transition: .pause))
            case .resume(let t):
                records.transitions.append(PedometerTransitionRecord(date: date(t), transition: .resume))
            }
        }
    }

    private func date(_ time: Double) -> Date { origin.addingTimeInterval(time) }
}
