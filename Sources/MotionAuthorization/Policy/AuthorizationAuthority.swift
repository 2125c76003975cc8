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
/// **Recognising a restricted peer.** ``status(for:app:)`` is ``AuthorizationDecision/restricted``
/// exactly when ``restriction(for:app:)`` is not `nil`; the latter says why (for the log and the
/// client's message). A restricted peer gets nothing: no live data, no history, and (unless root) no
/// listing or changing of decisions.
///
/// What each status allows: ``allowsLiveMotion(status:)``, ``allowsLiveActivity(status:)``,
/// ``allowsHistory(status:peer:)`` (history also needs the policy's history readers:
/// ``mayReadMachineHistory(peer:)``). Who may change decisions:
/// ``decisionChangeRefusal(caller:callerApp:targetUID:)``.
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
            case .appListed(let entry): return "app \(logQuoted(entry, limit: AppIdentity.maximumIDLength)) is in restrictedApps"
            case .userListed(let entry): return "user \(logQuoted(entry, limit: AppIdentity.maximumIDLength)) is in restrictedUsers"
            case .groupListed(let entry): return "group \(logQuoted(entry, limit: AppIdentity.maximumIDLength)) is in restrictedGroups"
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
    /// The user whose own history the daemon keeps, or `nil` when the history is the machine's.
    public let historyOwnerUID: UInt32?

    /// Combines `policy` and `store`. Names in the policy that match no user or group are logged as
    /// warnings (they match nobody; see ``AdminPolicy/unknownNames(in:)``).
    ///
    /// - Parameter historyOwnerUID: `nil` for the system instance (one per machine: its history is the
    ///   machine's, and only the policy's history readers may read it); the uid of the user running a
    ///   per-user instance (`getuid()`): that history is the user's own, and the user may read it with
    ///   an `authorized` app whatever the history readers say.
    public init(
        policy: AdminPolicy, store: PermissionStore, userDatabase: any UserDatabase = SystemUserDatabase(),
        historyOwnerUID: UInt32? = nil, logger: Logger
    ) {
        self.policy = policy
        self.store = store
        self.userDatabase = userDatabase
        self.historyOwnerUID = historyOwnerUID
        for name in policy.unknownNames(in: userDatabase) {
            logger.warning("policy: \(name); it matches nobody")
        }
        if historyOwnerUID == nil, policy.historyReaderGroups == nil,
           !AdminPolicy.defaultHistoryReaderGroups.contains(where: { userDatabase.groupID(named: $0) != nil }) {
            logger.notice(
                "policy: historyReaderGroups is not set and the group \(AdminPolicy.defaultHistoryReaderGroups.joined(separator: ", ")) does not exist: only \(policy.historyReaderUsers == nil ? "root" : "the users in historyReaderUsers") may read the machine's history")
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

    /// Why the policy restricts user `peer` whatever the app (`restrictedUsers`, `restrictedGroups`,
    /// `allowedUsers`), or `nil`. Unlike ``restriction(for:app:)`` this ignores `restrictedApps`.
    public func userRestriction(for peer: PeerCredentials) -> Restriction? {
        switch restriction(for: peer, app: .unidentified(pid: peer.pid)) {
        case .appListed?, nil: return nil
        case let other?: return other
        }
    }

    /// The groups of the account of `uid` in the group database (primary and supplementary); empty
    /// when the uid has no account.
    private func databaseGroups(of uid: UInt32) -> Set<UInt32> {
        guard let account = userDatabase.user(uid: uid) else { return [] }
        var groups: Set<UInt32> = [account.primaryGID]
        groups.formUnion(userDatabase.groupIDs(of: account))
        return groups
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

    /// The status half of the history rule: only ``AuthorizationDecision/authorized``.
    ///
    /// This alone does not keep users apart: a user can authorize their own apps. The daemon must call
    /// ``allowsHistory(status:peer:)``, which also asks ``mayReadMachineHistory(peer:)``.
    public func allowsHistory(status: AuthorizationDecision) -> Bool {
        status == .authorized
    }

    /// History: pedometer and activity queries (also a live pedometer update that starts in the past),
    /// and the sensor recorder (recording and reading). Needs both the app's
    /// ``AuthorizationDecision/authorized`` and ``mayReadMachineHistory(peer:)``: a user's own grant
    /// gives their app live updates, never the machine's history on its own.
    public func allowsHistory(status: AuthorizationDecision, peer: PeerCredentials) -> Bool {
        historyRefusal(status: status, peer: peer) == nil
    }

    /// Whether user `peer` may read the history the daemon keeps, whatever their apps' decisions:
    ///
    /// - the per-user instance (``historyOwnerUID`` set): its owner only;
    /// - the system instance: a user in the policy's `historyReaderUsers` (default: root), or a member of
    ///   one of its `historyReaderGroups` (default: `coremotion-history`) by the group database (primary
    ///   group or `getgrouplist`; the gid of the connecting process alone does not count, so a setgid
    ///   program cannot lend its group).
    ///
    /// Policy restrictions are not looked at here; ``allowsHistory(status:peer:)`` combines both.
    public func mayReadMachineHistory(peer: PeerCredentials) -> Bool {
        if let owner = historyOwnerUID {
            return peer.uid == owner
        }
        if policy.effectiveHistoryReaderUsers.contains(where: { userEntry($0, matches: peer.uid) }) { return true }
        let readerGroups = policy.effectiveHistoryReaderGroups
        guard !readerGroups.isEmpty else { return false }
        let groups = databaseGroups(of: peer.uid)
        return readerGroups.contains { entry in
            guard let gid = AdminPolicy.numericID(entry) ?? userDatabase.groupID(named: entry) else { return false }
            return groups.contains(gid)
        }
    }

    /// Why `peer`, whose app has `status`, may not read history, as a message for the client and the
    /// log; `nil` when ``allowsHistory(status:peer:)`` is true.
    public func historyRefusal(status: AuthorizationDecision, peer: PeerCredentials) -> String? {
        switch status {
        case .restricted:
            return "motion history is restricted by the administrator's policy"
        case .denied, .notDetermined:
            return "motion history needs this app to be authorized (it is \(status.name)): `coremotion permissions grant APP`"
        case .authorized:
            break
        }
        guard mayReadMachineHistory(peer: peer) else {
            if let owner = historyOwnerUID {
                return "this daemon keeps the history of user \(owner); user \(peer.uid) may not read it"
            }
            return "the machine's motion history is readable only by the users the administrator names (historyReaderUsers, historyReaderGroups in \(AdminPolicy.defaultPath)); user \(peer.uid) is not one of them"
        }
        return nil
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
    /// user `targetUID` (``decisionChangeRefusal(caller:callerApp:targetUID:)`` is `nil`).
    public func mayChangeDecisions(caller: PeerCredentials, callerApp: AppIdentity, targetUID: UInt32) -> Bool {
        decisionChangeRefusal(caller: caller, callerApp: callerApp, targetUID: targetUID) == nil
    }

    /// Why `caller`, running `callerApp`, may not change (grant, deny, reset) or list the decisions of
    /// user `targetUID`, as a message for the client; `nil` when it may. The rules, in order:
    ///
    /// 1. the process must be identified and unsandboxed: a Flatpak or Snap app that can reach the socket
    ///    must not grant itself (or read which apps the user allowed);
    /// 2. a user the policy restricts (``userRestriction(for:)``: `restrictedUsers`, `restrictedGroups`,
    ///    not in `allowedUsers`) may not use the service at all, decisions included; root is exempt
    ///    from this rule only (it administers the others' decisions);
    /// 3. root, or the same user (``mayChangeDecisions(caller:targetUID:)``).
    public func decisionChangeRefusal(caller: PeerCredentials, callerApp: AppIdentity, targetUID: UInt32) -> String? {
        if callerApp.isSandboxed { return "a sandboxed app cannot list or change authorization decisions" }
        if !callerApp.isIdentified { return "a process that could not be identified cannot list or change authorization decisions" }
        if caller.uid != 0, let restriction = userRestriction(for: caller) {
            return "user \(caller.uid) is restricted by the administrator's policy (\(restriction)) and cannot list or change authorization decisions"
        }
        if !mayChangeDecisions(caller: caller, targetUID: targetUID) {
            return "user \(caller.uid) may not list or change the decisions of user \(targetUID) (only root may)"
        }
        return nil
    }
}
