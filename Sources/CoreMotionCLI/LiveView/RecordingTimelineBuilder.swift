import Foundation
import MotionEngine
import MotionEvaluation
import MotionLiveView
import MotionLiveViewProtocol
import MotionRecordings
import MotionSamples

/// Prepares a recording for `coremotion view FILE`: the engines run over the whole file once (fusion in
/// every reference frame the file allows, the pedometer, the activity classifier, the altitude from the
/// barometer), then the page scrubs, plays and pauses a ``RecordingTimeline``. Apple's own outputs and
/// the ground truth the recording holds come along, with the running error of ours against them.
enum RecordingTimelineBuilder {
    /// Samples per second and channel kept in the timeline (the page draws at most 60).
    static let keptRate = 120.0

    static func build(_ recording: Recording, name: String) -> RecordingTimeline {
        var common: [LiveSample] = []
        var events: [LiveEvent] = []
        var thin = SampleDecimator(rate: keptRate)
        func keep(_ sample: LiveSample) { if thin.admit(sample) { common.append(sample) } }

        for s in recording.accelerometer { keep(LiveSample(.acceleration, time: s.time, x: s.value.x, y: s.value.y, z: s.value.z)) }
        for s in recording.gyroscope { keep(LiveSample(.rotationRate, time: s.time, x: s.value.x, y: s.value.y, z: s.value.z)) }
        for s in recording.magnetometer { keep(LiveSample(.magneticField, time: s.time, x: s.value.x, y: s.value.y, z: s.value.z)) }

        // Fusion: the estimates are the same in every frame; only the attitude and heading differ.
        let hasMagnetometer = !recording.magnetometer.isEmpty
        let frames: [AttitudeReferenceFrame] = hasMagnetometer ? [.xArbitraryZVertical, .xMagneticNorthZVertical] : [.xArbitraryZVertical]
        var run = FusionRun(settings: FusionFilter.Settings(), frame: AttitudeFrame(.xArbitraryZVertical))
        var estimates: [DeviceMotionEstimate] = []
        var thinEstimates = SampleDecimator(rate: keptRate)
        run.process(FusionRun.mergedSamples(recording, useMagnetometer: hasMagnetometer)) { _, e in
            if thinEstimates.admit(LiveSample(.gravity, time: e.accelerometerTime, value: 0)) { estimates.append(e) }
        }
        for e in estimates {
            let t = e.accelerometerTime
            common.append(LiveSample(.gravity, time: t, x: e.gravity.x, y: e.gravity.y, z: e.gravity.z))
            common.append(LiveSample(.userAcceleration, time: t, x: e.userAcceleration.x, y: e.userAcceleration.y, z: e.userAcceleration.z))
        }
        var framed: [String: [LiveSample]] = [:]
        for frame in frames {
            var state = AttitudeFrame(frame)
            var samples: [LiveSample] = []
            samples.reserveCapacity(estimates.count * 2)
            for e in estimates {
                let q = state.attitude(for: e)
                samples.append(LiveSample(.attitude, time: e.accelerometerTime, SIMD4(q.w, q.x, q.y, q.z)))
                samples.append(LiveSample(.heading, time: e.accelerometerTime, value: frame.usesMagnetometer ? state.heading(of: q) : -1))
            }
            framed[frame.description] = samples
        }

        steps(recording, common: &common, events: &events)
        activities(recording, events: &events)
        altitude(recording, common: &common, thin: &thin)
        references(recording, estimates: estimates, common: &common, events: &events)

        let span = recording.timeRange ?? 0...0
        let initial = hasMagnetometer ? AttitudeReferenceFrame.xMagneticNorthZVertical.description : AttitudeReferenceFrame.xArbitraryZVertical.description
        return RecordingTimeline(source: name, span: span, common: common, framed: framed, initialFrame: initial, events: events)
    }

    /// Each detected step, and the totals, cadence and pace four times a second.
    private static func steps(_ recording: Recording, common: inout [LiveSample], events: inout [LiveEvent]) {
        var engine = PedometerEngine()
        var lastReport = -Double.infinity
        var recent: [(time: Double, length: Double)] = []
        var total = 0
        func drain() {
            while let event = engine.nextEvent() {
                guard case .step(let time, let length) = event else { continue }
                total += 1
                events.append(.step(time: time))
                recent.append((time, length))
            }
        }
        for sample in FusionRun.mergedSamples(recording, useMagnetometer: false) {
            engine.add(sample)
            drain()
            let t: Double
            switch sample {
            case .accelerometer(let s): t = s.time
            default: continue
            }
            if t - lastReport >= 0.25 {
                lastReport = t
                recent.removeAll { $0.time < t - 4 }
                let window = recent.count >= 2 ? recent.last!.time - recent.first!.time : 0
                let cadence = window > 0 ? Double(recent.count - 1) / window : (recent.isEmpty ? 0 : .nan)
                let distance = recent.dropFirst().reduce(0) { $0 + $1.length }
                let pace = distance > 0 ? window / distance : .nan
                common.append(LiveSample(.pedometer, time: t, SIMD4(Double(total), cadence, pace, 0)))
            }
        }
        engine.finish()
        drain()
    }

    /// Our activity (each change of the tracked state, with its confidence) and Apple's from the file.
    private static func activities(_ recording: Recording, events: inout [LiveEvent]) {
        if var classifier = try? ActivityClassifier() {
            var tracker = ActivityTracker()
            for s in recording.accelerometer {
                guard let estimate = classifier.addAcceleration(time: s.time, value: s.value),
                      let state = tracker.update(estimate) else { continue }
                events.append(.activity(time: s.time, label: label(state), confidence: state.confidence.rawValue))
            }
        }
        for a in recording.reference.activity { events.append(.appleActivity(time: a.time, label: a.label)) }
    }

    private static func label(_ state: ActivityState) -> String {
        if state.flags.contains(.automotive) { return "automotive" }
        if state.cycling { return "cycling" }
        if state.running { return "running" }
        if state.walking { return "walking" }
        if state.stationary { return "stationary" }
        return "unknown"
    }

    /// Pressure and the altitude change it means (the international barometric formula).
    private static func altitude(_ recording: Recording, common: inout [LiveSample], thin: inout SampleDecimator) {
        guard let first = recording.barometer.first(where: { $0.kilopascals > 0 && $0.kilopascals.isFinite }) else { return }
        func height(_ kPa: Double) -> Double { 44_330.8 * (1 - pow(kPa / 101.325, 0.190263)) }
        let start = height(first.kilopascals)
        for p in recording.barometer where p.kilopascals > 0 && p.kilopascals.isFinite {
            let pressure = LiveSample(.pressure, time: p.time, value: p.kilopascals)
            guard thin.admit(pressure) else { continue }
            common.append(pressure)
            common.append(LiveSample(.relativeAltitude, time: p.time, value: height(p.kilopascals) - start))
        }
    }

    /// Apple's outputs and the ground truth, and the angle between our gravity and theirs.
    private static func references(_ recording: Recording, estimates: [DeviceMotionEstimate], common: inout [LiveSample], events: inout [LiveEvent]) {
        let reference = recording.reference
        var thin = SampleDecimator(rate: keptRate)
        for q in reference.attitude {
            let s = LiveSample(.appleAttitude, time: q.time, SIMD4(q.value.w, q.value.x, q.value.y, q.value.z))
            if thin.admit(s) { common.append(s) }
        }
        for g in reference.gravity {
            let s = LiveSample(.appleGravity, time: g.time, x: g.value.x, y: g.value.y, z: g.value.z)
            if thin.admit(s) { common.append(s) }
        }
        for s in reference.cumulativeSteps { common.append(LiveSample(.appleSteps, time: s.time, value: s.value)) }
        for s in reference.relativeAltitude {
            let sample = LiveSample(.appleAltitude, time: s.time, value: s.value)
            if thin.admit(sample) { common.append(sample) }
        }
        for q in reference.truthAttitude {
            let s = LiveSample(.truthAttitude, time: q.time, SIMD4(q.value.w, q.value.x, q.value.y, q.value.z))
            if thin.admit(s) { common.append(s) }
        }
        // Tilt errors: gravity directions compared, so that the unobservable heading does not count.
        let down = Vector3(0, 0, -1)
        let appleGravity = !reference.gravity.isEmpty
            ? reference.gravity.map { ($0.time, $0.value) }
            : reference.attitude.map { ($0.time, $0.value.inverseRotate(down)) }
        errors(estimates, against: appleGravity, channel: .appleTiltError, into: &common)
        errors(estimates, against: reference.truthAttitude.map { ($0.time, $0.value.inverseRotate(down)) }, channel: .truthTiltError, into: &common)
    }

    /// At each estimate, the angle (degrees) between our gravity and the nearest earlier reference one.
    private static func errors(_ estimates: [DeviceMotionEstimate], against reference: [(Double, Vector3)], channel: LiveChannel, into common: inout [LiveSample]) {
        guard !reference.isEmpty else { return }
        let sorted = reference.sorted { $0.0 < $1.0 }
        var j = 0
        for e in estimates {
            let t = e.accelerometerTime
            while j + 1 < sorted.count, sorted[j + 1].0 <= t { j += 1 }
            guard abs(sorted[j].0 - t) < 0.1 else { continue }
            let a = e.gravity, b = sorted[j].1
            let na = a.norm, nb = b.norm
            guard na > 0, nb > 0 else { continue }
            let cosine = max(-1, min(1, (a.x * b.x + a.y * b.y + a.z * b.z) / (na * nb)))
            common.append(LiveSample(channel, time: t, value: acos(cosine) * 180 / Double.pi))
        }
    }
}
