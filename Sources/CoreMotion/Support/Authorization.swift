import Foundation

/// The authorization policy on Linux.
///
/// Linux has no motion-permission prompt: whoever can read the sensors may use them. Every
/// `authorizationStatus()` therefore returns `.authorized`, unless the environment variable
/// `COREMOTION_AUTHORIZATION` is `notDetermined`, `restricted`, `denied` or `authorized` — a way to
/// exercise an app's handling of the other states. With `restricted` or `denied`, the services that
/// Apple guards with authorization (pedometer, activity, altimeter, sensor recorder) report
/// `CMErrorMotionActivityNotAuthorized` / `CMErrorNotAuthorized` instead of data.
enum Authorization {
    static var status: CMAuthorizationStatus {
        switch ProcessInfo.processInfo.environment["COREMOTION_AUTHORIZATION"]?.lowercased() {
        case "notdetermined": .notDetermined
        case "restricted": .restricted
        case "denied": .denied
        default: .authorized
        }
    }

    /// Whether data may flow (authorized or not yet determined, which Apple resolves with a prompt).
    static var allowsData: Bool {
        let s = status
        return s == .authorized || s == .notDetermined
    }
}
