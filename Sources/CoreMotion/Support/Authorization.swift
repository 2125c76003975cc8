import Foundation
import MotionClient

/// Authorization as the API applies it.
///
/// Through `coremotiond` the daemon decides per user and per app (`coremotion permissions`): an
/// administrator's policy may restrict an app, a user may grant or deny it; `.notDetermined` until one
/// does. The daemon enforces its decision on every request; the API mirrors it so that an app gets Apple's
/// errors without a round trip. In process there is no one to ask: the status is `.authorized`, unless
/// `COREMOTION_AUTHORIZATION` names another state, to exercise an app's handling of it.
///
/// What each state allows (the services Apple guards with `NSMotionUsageDescription`: pedometer,
/// activity, altimeter, sensor recorder):
/// - `.authorized`: everything.
/// - `.notDetermined`: live updates (as on iOS once the user answers the prompt; the daemon's policy may
///   say otherwise), but no history: queries and the sensor recorder need `.authorized`.
/// - `.denied`, `.restricted`: no pedometer, activity, altimeter or recorder data
///   (`CMErrorMotionActivityNotAuthorized` / `CMErrorNotAuthorized`).
enum Authorization {
    static var status: CMAuthorizationStatus { status(of: MotionProviders.current) }

    static func status(of provider: any MotionProvider) -> CMAuthorizationStatus {
        CMAuthorizationStatus(rawValue: provider.authorizationStatus().rawValue) ?? .notDetermined
    }

    /// Whether live data of the guarded services may flow.
    static func allowsLiveData(_ provider: any MotionProvider) -> Bool {
        let s = provider.authorizationStatus()
        return s == .authorized || s == .notDetermined
    }

    /// The error to report instead of data, or `nil` when allowed. `history` asks for stored data (queries,
    /// the sensor recorder), which needs `.authorized` through the daemon.
    static func refusal(
        _ provider: any MotionProvider, history: Bool, code: CMError = CMErrorMotionActivityNotAuthorized
    ) -> NSError? {
        let status = provider.authorizationStatus()
        switch status {
        case .authorized:
            return nil
        case .notDetermined:
            // In process nothing decides; the daemon requires an explicit decision for history.
            guard history, provider.undecidedWithholdsHistory else { return nil }
            return code.error(
                "this app's access to motion history is not determined yet: run `coremotion permissions grant \(MotionProviders.appName)`")
        case .denied:
            return code.error("motion data is denied for this app (coremotion permissions)")
        case .restricted:
            return code.error("motion data is restricted for this app by the administrator's policy")
        }
    }
}
