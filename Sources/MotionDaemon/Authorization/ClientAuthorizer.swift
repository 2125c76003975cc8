import Foundation
import MotionProtocol

/// Who a client is, as the daemon established it from the socket (never from what the client says).
public struct ClientIdentity: Sendable, Hashable, Codable {
    /// Process id, user id and group id from `SO_PEERCRED` (fixed when the client connected).
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// The app's identifier: the key of its authorization decisions.
    public var appID: String
    /// The executable, when it could be read.
    public var executable: String?
    /// What the app calls itself in its hello (logs and status only).
    public var hint: String
    /// How the app was identified: `flatpak`, `snap`, `systemdScope` or `executable`.
    public var kind: String
    /// Whether it runs in a sandbox (Flatpak, Snap).
    public var isSandboxed: Bool

    public init(
        pid: Int32, uid: UInt32, gid: UInt32, appID: String, executable: String?, hint: String, kind: String = "executable",
        isSandboxed: Bool = false
    ) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.appID = appID
        self.executable = executable
        self.hint = hint
        self.kind = kind
        self.isSandboxed = isSandboxed
    }
}

/// Decides what each client may do. The daemon asks it once per connection and again whenever a decision
/// changes; it enforces the answer on every request.
public protocol ClientAuthorizer: Sendable {
    /// The identity of the process with these credentials (from `/proc`, the sandbox, the systemd scope).
    func identify(pid: Int32, uid: UInt32, gid: UInt32, hint: String) -> ClientIdentity
    /// The decision for this user and app now.
    func status(of client: ClientIdentity) -> AuthorizationStatus
    /// Raw sensors and device motion.
    func allowsLiveMotion(_ status: AuthorizationStatus) -> Bool
    /// Live pedometer, activity and altimeter updates.
    func allowsLiveActivity(_ status: AuthorizationStatus) -> Bool
    /// History queries and the sensor recorder.
    func allowsHistory(_ status: AuthorizationStatus) -> Bool
    /// Whether the client's **user** may read the machine's history at all, whatever the app's own decision:
    /// the history of a shared machine is the administrator's to share (docs/authorization.md). A history
    /// request needs both this and ``allowsHistory(_:)``.
    func mayReadMachineHistory(_ client: ClientIdentity) -> Bool
    /// Lists or changes decisions for `caller`; returns a JSON document, or throws ``PermissionsRefusal``.
    func permissions(_ operation: PermissionOperation, app: String, targetUID: UInt32?, caller: ClientIdentity) throws -> String
}

/// A permissions request the caller may not make, or that names a bad app.
public struct PermissionsRefusal: Error, Sendable, CustomStringConvertible {
    public var forbidden: Bool
    public var message: String
    public init(forbidden: Bool, message: String) {
        self.forbidden = forbidden
        self.message = message
    }
    public var description: String { message }
}

/// Lets every client do everything: for tests and for a daemon started with `--no-authorization`.
public struct OpenAuthorizer: ClientAuthorizer {
    public init() {}

    public func identify(pid: Int32, uid: UInt32, gid: UInt32, hint: String) -> ClientIdentity {
        ClientIdentity(pid: pid, uid: uid, gid: gid, appID: hint, executable: nil, hint: hint)
    }

    public func status(of client: ClientIdentity) -> AuthorizationStatus { .authorized }
    public func allowsLiveMotion(_ status: AuthorizationStatus) -> Bool { true }
    public func allowsLiveActivity(_ status: AuthorizationStatus) -> Bool { true }
    public func allowsHistory(_ status: AuthorizationStatus) -> Bool { true }
    public func mayReadMachineHistory(_ client: ClientIdentity) -> Bool { true }

    public func permissions(_ operation: PermissionOperation, app: String, targetUID: UInt32?, caller: ClientIdentity) throws -> String {
        throw PermissionsRefusal(forbidden: false, message: "this daemon runs without authorization (--no-authorization): every app is authorized")
    }
}
