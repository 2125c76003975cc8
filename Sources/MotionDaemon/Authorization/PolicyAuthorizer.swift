import Foundation
import Logging
import MotionAuthorization
import MotionProtocol

/// The daemon's real authorization: the administrator's policy, then the user's stored decision per app
/// (docs/authorization.md).
///
/// The app is identified from the kernel (`SO_PEERCRED` → `/proc/PID`: Flatpak, Snap, systemd app scope,
/// else the executable's name); the name a client gives itself in its hello is only logged.
public struct PolicyAuthorizer: ClientAuthorizer {
    public let authority: AuthorizationAuthority
    public let store: PermissionStore
    private let procRoot: String

    /// - Parameters:
    ///   - policy: the administrator's policy (load it with `AdminPolicy.load(from:)`; a policy that cannot be
    ///     read stops the daemon rather than being half applied).
    ///   - store: where decisions are kept.
    public init(policy: AdminPolicy, store: PermissionStore, logger: Logger, procRoot: String = "/proc") {
        self.store = store
        self.authority = AuthorizationAuthority(policy: policy, store: store, logger: logger)
        self.procRoot = procRoot
    }

    public func identify(pid: Int32, uid: UInt32, gid: UInt32, hint: String) -> ClientIdentity {
        let app = AppIdentity.identify(pid: pid, procRoot: procRoot)
        return ClientIdentity(
            pid: pid, uid: uid, gid: gid, appID: app.id, executable: app.executable, hint: hint, kind: app.kind.rawValue,
            isSandboxed: app.isSandboxed)
    }

    private func peer(_ client: ClientIdentity) -> PeerCredentials {
        PeerCredentials(pid: client.pid, uid: client.uid, gid: client.gid)
    }

    private func app(_ client: ClientIdentity) -> AppIdentity {
        AppIdentity(
            id: client.appID, kind: AppIdentity.Kind(rawValue: client.kind) ?? .executable, executable: client.executable,
            isSandboxed: client.isSandboxed)
    }

    public func status(of client: ClientIdentity) -> AuthorizationStatus {
        AuthorizationStatus(rawValue: authority.status(for: peer(client), app: app(client)).rawValue) ?? .notDetermined
    }

    private func decision(_ status: AuthorizationStatus) -> AuthorizationDecision {
        AuthorizationDecision(rawValue: status.rawValue) ?? .notDetermined
    }

    public func allowsLiveMotion(_ status: AuthorizationStatus) -> Bool { authority.allowsLiveMotion(status: decision(status)) }
    public func allowsLiveActivity(_ status: AuthorizationStatus) -> Bool { authority.allowsLiveActivity(status: decision(status)) }
    public func allowsHistory(_ status: AuthorizationStatus) -> Bool { authority.allowsHistory(status: decision(status)) }

    public func permissions(_ operation: PermissionOperation, app: String, targetUID: UInt32?, caller: ClientIdentity) throws -> String {
        let target = targetUID ?? caller.uid
        guard authority.mayChangeDecisions(caller: peer(caller), callerApp: self.app(caller), targetUID: target) else {
            throw PermissionsRefusal(
                forbidden: true,
                message: caller.isSandboxed
                    ? "a sandboxed app cannot list or change authorization decisions"
                    : "user \(caller.uid) may not list or change the decisions of user \(target) (only root may)")
        }
        do {
            switch operation {
            case .list: break
            case .grant: try store.set(.authorized, uid: target, app: app)
            case .deny: try store.set(.denied, uid: target, app: app)
            case .reset: try store.reset(uid: target, app: app)
            }
        } catch {
            throw PermissionsRefusal(forbidden: false, message: "\(error)")
        }
        return Self.document(uid: target, decisions: store.list(uid: target), changed: operation == .list ? nil : app)
    }

    /// `{"uid": 1000, "decisions": [{"app": "…", "status": "authorized"}], "changed": "…"}`.
    static func document(uid: UInt32, decisions: [(app: String, decision: AuthorizationDecision)], changed: String?) -> String {
        struct Entry: Encodable { var app: String; var status: String }
        struct Document: Encodable { var uid: UInt32; var decisions: [Entry]; var changed: String? }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let doc = Document(uid: uid, decisions: decisions.map { Entry(app: $0.app, status: $0.decision.name) }, changed: changed)
        return (try? encoder.encode(doc)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
