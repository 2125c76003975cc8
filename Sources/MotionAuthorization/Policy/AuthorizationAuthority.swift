import Logging

/// The one place that decides what a client may have: the administrator's ``AdminPolicy`` first, then
/// the user's decisions in the ``PermissionStore``.
///
/// ``status(for:app:)`` gives the `CMAuthorizationStatus` of a (peer, app) pair:
///
/// | step | condition | status |
/// |---|---|---|
/// | 1 | the policy restricts the app, the user or one of their groups, or `allowedUsers` omits the user | ``AuthorizationDecision/restricted`` |
/// | 2 | the app could not be identified (`unknown-pid-…`) | ``AuthorizationDecision/notDetermined`` |
/// | 3 | the user stored a decision for the app | that decision (``AuthorizationDecision/authorized`` or ``AuthorizationDecision/denied``) |
/// | 4 | `authorizeUnsandboxedApps` and the app is not sandboxed | ``AuthorizationDecision/authorized`` |
/// | 5 | otherwise | ``AuthorizationDecision/notDetermined`` |
///
/// Root (uid 0) is not exempt: it is restricted when the policy lists it (or one of its groups) or
/// when `allowedUsers` omits it.
///
/// What each status allows: ``allowsLiveMotion(status:)``, ``allowsLiveActivity(status:)``,
/// ``allowsHistory(status:)``. Who may change decisions: ``mayChangeDecisions(caller:callerApp:targetUID:)``.
public struct AuthorizationAuthority: Sendable {
    /// Why the policy restricts a peer.
    public enum Restriction: Sendable, Hashable, CustomStringConvertible {
        /// The app id is in `restrictedApps`.
        case appListed(String)
        /// The user is in `restrictedUsers` (the matching entry).
        case userListed(String)
        /// One of the user's groups is in `restrictedGroups` (the matching entry).
        case groupListed(String)
        /// `allowedUsers` is present and does not list the user.
        case notAllowed

        public var description: String {
            switch self {
            case .appListed(let entry): return "app \(String(reflecting: entry)) is in restrictedApps"
            case .userListed(let entry): return "user \(String(reflecting: entry)) is in restrictedUsers"
            case .groupListed(let entry): return "group \(String(reflecting: entry)) is in restrictedGroups"
            case .notAllowed: return "the user is not in allowedUsers"
            }
        }
    }

    /// The administrator's policy in force.
    public let policy: AdminPolicy
    /// The users' decisions.
    public let store: PermissionStore
    /// Where user and group names are looked up.
    public let userDatabase: any UserDatabase

    /// Combines `policy` and `store`. Names in the policy that match no user or group are logged as
    /// warnings (they match nobody; see ``AdminPolicy/unknownNames(in:)``).
    public init(policy: AdminPolicy, store: PermissionStore, userDatabase: any UserDatabase = SystemUserDatabase(), logger: Logger) {
        self.policy = policy
        self.store = store
        self.userDatabase = userDatabase
        for name in policy.unknownNames(in: userDatabase) {
            logger.warning("policy: \(name); it matches nobody")
        }
    }

    // MARK: - Status

    /// The authorization status of `app` run by `peer` (see the table on the type).
    public func status(for peer: PeerCredentials, app: AppIdentity) -> AuthorizationDecision {
        if restriction(for: peer, app: app) != nil { return .restricted }
        guard app.isIdentified else { return .notDetermined }
        if let stored = store.decision(uid: peer.uid, app: app.id) { return stored }
        if policy.authorizeUnsandboxedApps && !app.isSandboxed { return .authorized }
        return .notDetermined
    }

    /// Why the policy restricts `app` run by `peer`, or `nil` when it does not (for logs and for the
    /// CLI's explanations).
    public func restriction(for peer: PeerCredentials, app: AppIdentity) -> Restriction? {
        if app.isIdentified, policy.restrictedApps.contains(app.id) { return .appListed(app.id) }
        if let entry = policy.restrictedUsers.first(where: { userEntry($0, matches: peer.uid) }) { return .userListed(entry) }
        if !policy.restrictedGroups.isEmpty {
            var groups: Set<UInt32> = [peer.gid]
            if let account = userDatabase.user(uid: peer.uid) {
                groups.insert(account.primaryGID)
                groups.formUnion(userDatabase.groupIDs(of: account))
            }
            if let entry = policy.restrictedGroups.first(where: { entry in
                guard let gid = AdminPolicy.numericID(entry) ?? userDatabase.groupID(named: entry) else { return false }
                return groups.contains(gid)
            }) {
                return .groupListed(entry)
            }
        }
        if let allowed = policy.allowedUsers, !allowed.contains(where: { userEntry($0, matches: peer.uid) }) {
            return .notAllowed
        }
        return nil
    }

    private func userEntry(_ entry: String, matches uid: UInt32) -> Bool {
        if let id = AdminPolicy.numericID(entry) { return id == uid }
        return userDatabase.user(named: entry)?.uid == uid
    }

    // MARK: - What a status allows

    /// Live raw sensors (accelerometer, gyroscope, magnetometer) and device motion: every status but
    /// ``AuthorizationDecision/restricted`` (on iOS these need no permission either).
    public func allowsLiveMotion(status: AuthorizationDecision) -> Bool {
        status != .restricted
    }

    /// Live pedometer, motion activity and altimeter updates: ``AuthorizationDecision/authorized``, or
    /// ``AuthorizationDecision/notDetermined`` when the policy's `liveMotionWhenNotDetermined` is true.
    public func allowsLiveActivity(status: AuthorizationDecision) -> Bool {
        switch status {
        case .authorized: return true
        case .notDetermined: return policy.liveMotionWhenNotDetermined
        case .denied, .restricted: return false
        }
    }

    /// History: pedometer and activity queries, and the sensor recorder (recording and reading):
    /// only ``AuthorizationDecision/authorized``.
    public func allowsHistory(status: AuthorizationDecision) -> Bool {
        status == .authorized
    }

    // MARK: - Changing decisions

    /// Whether `caller` may change (grant, deny, reset) or list the decisions of user `targetUID`:
    /// root, or the same user.
    ///
    /// This is the credentials rule only; the daemon should call
    /// ``mayChangeDecisions(caller:callerApp:targetUID:)``, which also keeps sandboxed apps from
    /// granting themselves access.
    public func mayChangeDecisions(caller: PeerCredentials, targetUID: UInt32) -> Bool {
        caller.uid == 0 || caller.uid == targetUID
    }

    /// Whether `caller`, running `callerApp`, may change (grant, deny, reset) or list the decisions of
    /// user `targetUID`: root or the same user (``mayChangeDecisions(caller:targetUID:)``), from an
    /// identified, unsandboxed process. A Flatpak or Snap app that can reach the socket must not be able
    /// to grant itself (or read which apps the user allowed); a process that could not be identified
    /// is refused too.
    public func mayChangeDecisions(caller: PeerCredentials, callerApp: AppIdentity, targetUID: UInt32) -> Bool {
        guard callerApp.isIdentified, !callerApp.isSandboxed else { return false }
        return mayChangeDecisions(caller: caller, targetUID: targetUID)
    }
}
