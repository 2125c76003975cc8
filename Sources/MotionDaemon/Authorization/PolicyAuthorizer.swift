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
    ///   - historyOwnerUID: `nil` for the system instance, whose history is the machine's (only the policy's
    ///     history readers read it); the uid running a per-user instance, whose history is that user's own.
    public init(
        policy: AdminPolicy, store: PermissionStore, logger: Logger, procRoot: String = "/proc", historyOwnerUID: UInt32? = nil
    ) {
        self.store = store
        self.authority = AuthorizationAuthority(policy: policy, store: store, historyOwnerUID: historyOwnerUID, logger: logger)
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
    public func mayReadMachineHistory(_ client: ClientIdentity) -> Bool { authority.mayReadMachineHistory(peer: peer(client)) }

    public func permissions(_ operation: PermissionOperation, app: String, targetUID: UInt32?, caller: ClientIdentity) throws -> String {
        let target = targetUID ?? caller.uid
        if let refusal = authority.decisionChangeRefusal(caller: peer(caller), callerApp: self.app(caller), targetUID: target) {
            throw PermissionsRefusal(forbidden: true, message: refusal)
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
        do {
            // Never cut: a document over the protocol's limit is an error (the per-user quota keeps it far below).
            return try PermissionsDocument(uid: target, decisions: store.list(uid: target), changed: operation == .list ? nil : app)
                .encoded(limit: DaemonMessage.maximumDocumentLength)
        } catch {
            throw PermissionsRefusal(forbidden: false, message: "\(error)")
        }
    }
}
