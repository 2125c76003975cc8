import CoreMotion

/// The app's one screen: today's steps per hour, today's activity, then live steps.
///
/// It lives on the main actor, like a view controller. Core Motion calls `CMPedometer`'s handlers on its own
/// queue, so those handlers are `@Sendable`: they copy the values they need and send them to the main queue.
/// (A handler written without `@Sendable` inside a main-actor class would count as main-actor code, and Swift 6
/// on iOS stops the app when Core Motion calls it off the main thread.) The activity query takes a queue:
/// given `.main`, its handler runs on the main actor directly.
@MainActor
final class StepCounterScreen {
    /// The name the user grants access to (`coremotion permissions grant StepCounter`): the executable's.
    static let appName = "StepCounter"

    private let pedometer = CMPedometer()
    private let activityManager = CMMotionActivityManager()
    private let interactive: Bool
    private let startOfToday = Calendar.current.startOfDay(for: Date())

    private var hours: [DateInterval] = []
    private var hourly: [Result<StepSnapshot, MotionFailure>?] = []
    private var hintShown = false
    private var live: StepSnapshot?
    private var liveLineOpen = false

    /// Whether there is nothing left to do (an error that ends the app).
    private(set) var isFinished = false
    /// The process's exit status: 0 unless the app could not count steps at all.
    private(set) var exitStatus: Int32 = 0

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func start() {
        output("Steps today, \(Date().formatted(date: .complete, time: .omitted))\n")
        guard CMPedometer.isStepCountingAvailable() else {
            output("Step counting is not available on this device (it needs an accelerometer).\n")
            return finish(status: 1)
        }
        switch CMPedometer.authorizationStatus() {
        case .authorized:
            output("Motion & Fitness: authorized\n")
        case .notDetermined:
            output("Motion & Fitness: not determined yet\n")
        case .denied:
            output("Motion & Fitness access is denied for \(Self.appName). To count steps, allow it:\n"
                + "    coremotion permissions grant \(Self.appName)\n")
            return finish(status: 1)
        case .restricted:
            output("Motion & Fitness access is restricted by the administrator: \(Self.appName) cannot count steps.\n")
            return finish(status: 1)
        @unknown default:
            output("Motion & Fitness: unknown authorization state\n")
        }
        loadHourlyHistory()
    }

    func stop() {
        pedometer.stopUpdates()
        if liveLineOpen { output("\n") }
        if let live {
            output("Stopped: \(count(live.steps, "step")) today.\n")
        } else if !isFinished {
            output("Stopped: no live update yet (updates come while you walk).\n")
        }
    }

    private func finish(status: Int32) {
        exitStatus = status
        isFinished = true
    }

    // MARK: Steps per hour

    /// One query per hour of today so far; the chart is drawn when every answer is in.
    private func loadHourlyHistory() {
        let calendar = Calendar.current
        let now = Date()
        var start = startOfToday
        while start < now {
            let next = calendar.date(byAdding: .hour, value: 1, to: start) ?? now
            hours.append(DateInterval(start: start, end: min(next, now)))
            start = next
        }
        hourly = Array(repeating: nil, count: hours.count)
        for (index, hour) in hours.enumerated() {
            pedometer.queryPedometerData(from: hour.start, to: hour.end) { @Sendable data, error in
                let answer: Result<StepSnapshot, MotionFailure> =
                    if let data { .success(StepSnapshot(data)) } else { .failure(MotionFailure(error)) }
                DispatchQueue.main.async {
                    self.hourAnswered(index, answer)
                }
            }
        }
    }

    private func hourAnswered(_ index: Int, _ answer: Result<StepSnapshot, MotionFailure>) {
        hourly[index] = answer
        guard !hourly.contains(where: { $0 == nil }) else { return }
        drawHourlyChart()
        loadActivity()
    }

    private func drawHourlyChart() {
        output("\nSteps per hour (history):\n")
        var snapshots: [StepSnapshot] = []
        for answer in hourly {
            switch answer {
            case .success(let snapshot)?:
                snapshots.append(snapshot)
            case .failure(let failure)?:
                return report(failure, reading: "today's steps")
            case nil:
                return
            }
        }
        let most = max(1, snapshots.map(\.steps).max() ?? 0)
        let width = 40
        // One bar per hour; hours in a row without a step share one line.
        var index = 0
        while index < snapshots.count {
            var last = index
            while snapshots[index].steps == 0, last + 1 < snapshots.count, snapshots[last + 1].steps == 0 { last += 1 }
            let label = last == index ? "      \(hourLabel(hours[index].start))" : "\(hourLabel(hours[index].start))–\(hourLabel(hours[last].start))"
            let steps = snapshots[index].steps
            let length = steps == 0 ? 0 : max(1, steps * width / most)
            let bar = String(repeating: "█", count: length) + String(repeating: " ", count: width - length)
            output("  \(label) ▕\(bar) \(steps.formatted())\n")
            index = last + 1
        }
        let steps = snapshots.reduce(0) { $0 + $1.steps }
        var total = "  total \(count(steps, "step"))"
        let metres = snapshots.compactMap(\.distance)
        if !metres.isEmpty { total += " · \(distance(metres.reduce(0, +)))" }
        let floors = snapshots.compactMap(\.floorsAscended)
        if !floors.isEmpty { total += " · \(floors.reduce(0, +)) floors up" }
        output(total + "\n")
    }

    // MARK: Activity

    private func loadActivity() {
        let now = Date()
        activityManager.queryActivityStarting(from: startOfToday, to: now, to: .main) { activities, error in
            self.showActivity(activities ?? [], until: now, error: error)
            self.startLiveUpdates()
        }
    }

    private func showActivity(_ activities: [CMMotionActivity], until end: Date, error: (any Error)?) {
        output("\nActivity today (history):\n")
        if let error {
            let failure = MotionFailure(error)
            if failure.isNoData {
                output("  nothing recorded today yet\n")
            } else {
                report(failure, reading: "today's activity")
            }
            return
        }
        // Each activity lasts until the next one starts; the first may have started before midnight.
        var time: [String: TimeInterval] = [:]
        for (index, activity) in activities.enumerated() {
            let from = max(activity.startDate, startOfToday)
            let to = index + 1 < activities.count ? activities[index + 1].startDate : end
            guard to > from else { continue }
            time[Self.kind(of: activity), default: 0] += to.timeIntervalSince(from)
        }
        guard !time.isEmpty else {
            output("  nothing recorded today yet\n")
            return
        }
        for kind in Self.kinds where time[kind] != nil {
            output("  " + kind.padding(toLength: 12, withPad: " ", startingAt: 0) + duration(time[kind]!) + "\n")
        }
    }

    /// The kinds of activity in the order shown.
    private static let kinds = ["walking", "running", "cycling", "automotive", "stationary", "unknown", "unclassified"]

    /// The one word for an activity (its flags may combine: stationary in a car at a red light is automotive).
    private static func kind(of activity: CMMotionActivity) -> String {
        if activity.running { return "running" }
        if activity.walking { return "walking" }
        if activity.cycling { return "cycling" }
        if activity.automotive { return "automotive" }
        if activity.stationary { return "stationary" }
        if activity.unknown { return "unknown" }
        return "unclassified"
    }

    // MARK: Live steps

    private func startLiveUpdates() {
        output("\nLive, steps since midnight (updated while you walk):\n")
        if interactive {
            output("  waiting for steps…")
            liveLineOpen = true
        }
        pedometer.startUpdates(from: startOfToday) { @Sendable data, error in
            let update: Result<StepSnapshot, MotionFailure> =
                if let data { .success(StepSnapshot(data)) } else { .failure(MotionFailure(error)) }
            DispatchQueue.main.async {
                self.liveUpdated(update)
            }
        }
    }

    private func liveUpdated(_ update: Result<StepSnapshot, MotionFailure>) {
        switch update {
        case .success(let snapshot):
            live = snapshot
            var line = "  \(clockTime(snapshot.endDate))  \(count(snapshot.steps, "step"))"
            if let metres = snapshot.distance { line += " · \(distance(metres))" }
            if let cadence = snapshot.cadence { line += " · \(String(format: "%.2f", cadence)) steps/s" }
            if interactive {
                output("\r\u{1B}[K" + line)
            } else {
                output(line + "\n")
            }
        case .failure(let failure):
            if liveLineOpen {
                output("\n")
                liveLineOpen = false
            }
            report(failure, reading: "live steps")
            finish(status: 1)
        }
    }

    // MARK: Errors

    /// Explains a failed query; for a missing permission, how to give it (once).
    private func report(_ failure: MotionFailure, reading what: String) {
        if failure.isNotAuthorized {
            output("  \(Self.appName) may not read \(what): the user has not allowed it.\n")
            if !hintShown {
                hintShown = true
                output("  Allow it with:  coremotion permissions grant \(Self.appName)\n")
            }
        } else {
            output("  \(what) cannot be read: \(failure.message)\n")
        }
    }
}

/// What the app keeps from a `CMPedometerData`: plain values that may cross to the main queue.
struct StepSnapshot: Sendable {
    var steps: Int
    /// Metres, when the device estimates distance.
    var distance: Double?
    var floorsAscended: Int?
    /// Steps per second (live updates only).
    var cadence: Double?
    var endDate: Date

    init(_ data: CMPedometerData) {
        steps = data.numberOfSteps.intValue
        distance = data.distance?.doubleValue
        floorsAscended = data.floorsAscended?.intValue
        cadence = data.currentCadence?.doubleValue
        endDate = data.endDate
    }
}

/// A Core Motion error, reduced to what the screen needs.
struct MotionFailure: Error, Sendable {
    var domain: String
    var code: Int
    var message: String

    init(_ error: (any Error)?) {
        let error = (error ?? NSError(domain: CMErrorDomain, code: Int(CMErrorNilData.rawValue))) as NSError
        domain = error.domain
        code = error.code
        message = error.localizedDescription
    }

    /// The user (or the administrator) has not allowed motion data for this app.
    var isNotAuthorized: Bool {
        domain == CMErrorDomain
            && (code == Int(CMErrorMotionActivityNotAuthorized.rawValue) || code == Int(CMErrorNotAuthorized.rawValue))
    }

    /// Nothing was recorded in the span asked about.
    var isNoData: Bool { domain == CMErrorDomain && code == Int(CMErrorUnknown.rawValue) }
}
