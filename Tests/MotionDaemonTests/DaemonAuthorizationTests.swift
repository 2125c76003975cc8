import Foundation
import Logging
import MotionAuthorization
@testable import MotionDaemon
import MotionDaemonClient
import MotionDevices
import MotionProtocol
import MotionService
import Testing
import TestSupport

@Suite("coremotiond: authorization per user and app", .serialized)
struct DaemonAuthorizationTests {
    private func daemon(policy: AdminPolicy = AdminPolicy(), device: (any MotionDevice)? = nil) throws -> TestDaemon {
        let folder = try TestData.temporaryDirectory("coremotiond-auth")
        let store = PermissionStore(file: folder.appendingPathComponent("permissions.json"), logger: Logger(label: "test"))
        return try TestDaemon(
            device: device, authorizer: PolicyAuthorizer(policy: policy, store: store, logger: Logger(label: "test")), folder: folder)
    }

    @Test("undecided: live data flows, history is refused with Apple's error until the user grants it")
    func grantOpensHistory() throws {
        let daemon = try daemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let app = try daemon.connect()
        defer { app.close() }
        // Identified from the kernel, not from the hint.
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "").lastPathComponent
        #expect(app.welcome.appID == me)
        #expect(app.authorizationStatus() == .notDetermined)
        let live = Counter()
        let s = app.subscribe(to: .accelerometer, interval: 0.05) { live.add($0.time) }
        #expect(eventually { live.count > 3 })
        #expect {
            _ = try app.pedometerTotals(from: Date().addingTimeInterval(-60), to: Date())
        } throws: { error in
            if case .notAuthorized(.notDetermined, let text)? = error as? MotionProviderError { return text.contains("coremotion permissions grant") }
            return false
        }
        // The user grants it (from another connection, as `coremotion permissions grant` does).
        let tool = try daemon.connect(hint: "coremotion")
        defer { tool.close() }
        let answer = try tool.permissions(.grant, app: app.welcome.appID)
        #expect(answer.contains("\"authorized\""))
        #expect(eventually { app.authorizationStatus() == .authorized }, "the app was not told")
        #expect(try app.pedometerTotals(from: Date().addingTimeInterval(-60), to: Date()).steps == 0)
        // Denied: history refused again, and the pedometer stream is ended.
        _ = try tool.permissions(.deny, app: app.welcome.appID)
        #expect(eventually { app.authorizationStatus() == .denied })
        #expect(throws: MotionProviderError.self) { try app.activityHistory(from: Date().addingTimeInterval(-60), to: Date()) }
        // Raw sensors are not Apple-guarded: they still flow.
        live.reset()
        #expect(eventually { live.count > 3 })
        // Reset: undecided again.
        _ = try tool.permissions(.reset, app: app.welcome.appID)
        #expect(eventually { app.authorizationStatus() == .notDetermined })
        s?.cancel()
    }

    @Test("restricted by the administrator: no data at all, and the user cannot lift it")
    func restricted() throws {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? "").lastPathComponent
        var policy = AdminPolicy()
        policy.restrictedApps = [me]
        let daemon = try daemon(policy: policy)
        defer { daemon.stop(); daemon.removeFiles() }
        let app = try daemon.connect()
        defer { app.close() }
        #expect(app.authorizationStatus() == .restricted)
        let live = Counter()
        let s = app.subscribe(to: .accelerometer, interval: 0.05) { live.add($0.time) }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(live.count == 0)
        // Refused at the hello: no slot held, no request answered.
        #expect(throws: MotionProviderError.self) { try app.permissions(.grant, app: me) }
        #expect(app.authorizationStatus() == .restricted)
        #expect(eventually { daemon.core.connectedSessions.isEmpty })
        #expect(daemon.core.connectionCounts.refused.restricted >= 1)
        s?.cancel()
    }

    @Test("a user may not change another user's decisions")
    func otherUser() throws {
        guard getuid() != 0 else { return }  // root may; checked by MotionAuthorizationTests
        let daemon = try daemon()
        defer { daemon.stop(); daemon.removeFiles() }
        let tool = try daemon.connect(hint: "coremotion")
        defer { tool.close() }
        #expect(throws: DaemonRequestError.self) { try tool.permissions(.grant, app: "x", uid: getuid() + 1) }
    }
}

extension DaemonAuthorizationTests {
    @Test("undecided: live pedometer totals from a past start count from now (the history before it is not read)")
    func livePedometerDoesNotLeakHistory() throws {
        let walking = try DeviceFactory.makeDevice(.simulator(scene: "walking-in-hand", seed: 1, speed: 1), clock: SystemClock.shared)
        let daemon = try daemon(device: walking)
        defer { daemon.stop(); daemon.removeFiles() }
        // The daemon counts steps before the app asks.
        Thread.sleep(forTimeInterval: 5)
        let app = try daemon.connect()
        defer { app.close() }
        let start = Date().addingTimeInterval(-3600)
        let box = Counter()
        let starts = LockedDates()
        let s = app.subscribePedometer(from: start) { totals in
            box.add(Double(totals.steps))
            starts.add(totals.start)
        }
        Thread.sleep(forTimeInterval: 5)
        s?.cancel()
        #expect(!starts.all.isEmpty, "no pedometer update in 5 s of walking")
        #expect(starts.all.allSatisfy { $0 > start.addingTimeInterval(3590) }, "\(starts.all)")
    }

    final class LockedDates: @unchecked Sendable {
        private let lock = NSLock()
        private var dates: [Date] = []
        func add(_ d: Date) { lock.lock(); dates.append(d); lock.unlock() }
        var all: [Date] { lock.lock(); defer { lock.unlock() }; return dates }
    }
}
