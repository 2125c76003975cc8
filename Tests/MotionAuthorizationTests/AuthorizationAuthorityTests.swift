import MotionAuthorization
import Testing

@Suite("Authorization authority")
struct AuthorizationAuthorityTests {
    /// alice 1000 (groups 1000, 27 "sudo"), bob 1001 (groups 1001, 500 "kiosk"), root 0.
    static let database = FakeUserDatabase(
        users: [
            UserRecord(name: "root", uid: 0, primaryGID: 0),
            UserRecord(name: "alice", uid: 1000, primaryGID: 1000),
            UserRecord(name: "bob", uid: 1001, primaryGID: 1001),
        ],
        groups: ["root": 0, "alice": 1000, "bob": 1001, "sudo": 27, "kiosk": 500, "video": 44],
        memberships: ["alice": [27], "bob": [500]]
    )

    static let alice = PeerCredentials(pid: 10, uid: 1000, gid: 1000)
    static let bob = PeerCredentials(pid: 11, uid: 1001, gid: 1001)
    static let root = PeerCredentials(pid: 12, uid: 0, gid: 0)
    static let stranger = PeerCredentials(pid: 13, uid: 2000, gid: 44)   // no passwd entry

    static let host = AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false)
    static let scoped = AppIdentity(id: "org.gnome.Maps", kind: .systemdScope, isSandboxed: false)
    static let flatpak = AppIdentity(id: "org.gnome.Maps", kind: .flatpak, isSandboxed: true)
    static let snap = AppIdentity(id: "snap.spotify", kind: .snap, isSandboxed: true)
    static let unknown = AppIdentity.unidentified(pid: 99)

    private func authority(_ policy: AdminPolicy = AdminPolicy(), decisions: [(UInt32, String, AuthorizationDecision)] = []) throws -> AuthorizationAuthority {
        let store = PermissionStore(file: nil, logger: quietLogger)
        for (uid, app, decision) in decisions { try store.set(decision, uid: uid, app: app) }
        return AuthorizationAuthority(policy: policy, store: store, userDatabase: Self.database, logger: quietLogger)
    }

    // MARK: - status(for:app:), row by row

    @Test func row1RestrictedAppBeatsAStoredGrant() throws {
        let subject = try authority(AdminPolicy(restrictedApps: ["CompatClients"]), decisions: [(1000, "CompatClients", .authorized)])
        #expect(subject.status(for: Self.alice, app: Self.host) == .restricted)
        #expect(subject.restriction(for: Self.alice, app: Self.host) == .appListed("CompatClients"))
        #expect(subject.status(for: Self.alice, app: Self.flatpak) == .notDetermined)
    }

    @Test func row1RestrictedUserByNameOrUID() throws {
        for entry in ["bob", "1001"] {
            let subject = try authority(AdminPolicy(restrictedUsers: [entry]), decisions: [(1001, "CompatClients", .authorized)])
            #expect(subject.status(for: Self.bob, app: Self.host) == .restricted)
            #expect(subject.restriction(for: Self.bob, app: Self.host) == .userListed(entry))
            #expect(subject.status(for: Self.alice, app: Self.host) == .notDetermined)
        }
    }

    @Test func row1RestrictedGroupPrimarySupplementaryOrProcessGID() throws {
        // Supplementary (bob is in kiosk), by name and by gid.
        for entry in ["kiosk", "500"] {
            let subject = try authority(AdminPolicy(restrictedGroups: [entry]))
            #expect(subject.status(for: Self.bob, app: Self.host) == .restricted)
            #expect(subject.restriction(for: Self.bob, app: Self.host) == .groupListed(entry))
            #expect(subject.status(for: Self.alice, app: Self.host) == .notDetermined)
        }
        // Primary.
        #expect(try authority(AdminPolicy(restrictedGroups: ["alice"])).status(for: Self.alice, app: Self.host) == .restricted)
        // The connecting process's own gid, for a uid without an account.
        #expect(try authority(AdminPolicy(restrictedGroups: ["video"])).status(for: Self.stranger, app: Self.host) == .restricted)
        // An unknown group name matches nobody.
        #expect(try authority(AdminPolicy(restrictedGroups: ["nosuchgroup"])).status(for: Self.bob, app: Self.host) == .notDetermined)
    }

    @Test func row1AllowedUsersRestrictsEveryoneElseRootIncluded() throws {
        let subject = try authority(AdminPolicy(allowedUsers: ["alice"]), decisions: [(1001, "CompatClients", .authorized)])
        #expect(subject.status(for: Self.alice, app: Self.host) == .notDetermined)
        #expect(subject.status(for: Self.bob, app: Self.host) == .restricted)
        #expect(subject.restriction(for: Self.bob, app: Self.host) == .notAllowed)
        #expect(subject.status(for: Self.root, app: Self.host) == .restricted)
        #expect(subject.status(for: Self.stranger, app: Self.host) == .restricted)
        // Listing root (by name or uid) lets it in; an empty list admits nobody.
        #expect(try authority(AdminPolicy(allowedUsers: ["alice", "0"])).status(for: Self.root, app: Self.host) == .notDetermined)
        #expect(try authority(AdminPolicy(allowedUsers: ["root"])).status(for: Self.root, app: Self.host) == .notDetermined)
        #expect(try authority(AdminPolicy(allowedUsers: [])).status(for: Self.alice, app: Self.host) == .restricted)
    }

    @Test func row1RootIsNotExemptWhenListed() throws {
        #expect(try authority(AdminPolicy(restrictedUsers: ["root"])).status(for: Self.root, app: Self.host) == .restricted)
        #expect(try authority(AdminPolicy(restrictedGroups: ["0"])).status(for: Self.root, app: Self.host) == .restricted)
        #expect(try authority(AdminPolicy(restrictedUsers: ["alice"])).status(for: Self.root, app: Self.host) == .notDetermined)
    }

    @Test func row2UnidentifiedAppIsNeverAuthorized() throws {
        let subject = try authority(AdminPolicy(authorizeUnsandboxedApps: true))
        #expect(subject.status(for: Self.alice, app: Self.unknown) == .notDetermined)
        #expect(!Self.unknown.isIdentified)
        // But the user restrictions still apply.
        #expect(try authority(AdminPolicy(restrictedUsers: ["alice"])).status(for: Self.alice, app: Self.unknown) == .restricted)
    }

    @Test func row3StoredDecisionsPerUserAndApp() throws {
        let subject = try authority(
            AdminPolicy(authorizeUnsandboxedApps: true),
            decisions: [(1000, "org.gnome.Maps", .authorized), (1000, "CompatClients", .denied), (1001, "org.gnome.Maps", .denied)]
        )
        #expect(subject.status(for: Self.alice, app: Self.flatpak) == .authorized)
        #expect(subject.status(for: Self.alice, app: Self.scoped) == .authorized)   // same id, same decision
        // A stored "denied" wins over authorizeUnsandboxedApps.
        #expect(subject.status(for: Self.alice, app: Self.host) == .denied)
        #expect(subject.status(for: Self.bob, app: Self.flatpak) == .denied)
    }

    @Test func row4AuthorizeUnsandboxedApps() throws {
        let subject = try authority(AdminPolicy(authorizeUnsandboxedApps: true))
        #expect(subject.status(for: Self.alice, app: Self.host) == .authorized)
        #expect(subject.status(for: Self.alice, app: Self.scoped) == .authorized)
        #expect(subject.status(for: Self.alice, app: Self.flatpak) == .notDetermined)
        #expect(subject.status(for: Self.alice, app: Self.snap) == .notDetermined)
    }

    @Test func row5DefaultIsNotDetermined() throws {
        let subject = try authority()
        for app in [Self.host, Self.scoped, Self.flatpak, Self.snap, Self.unknown] {
            for peer in [Self.alice, Self.bob, Self.root, Self.stranger] {
                #expect(subject.status(for: peer, app: app) == .notDetermined)
                #expect(subject.restriction(for: peer, app: app) == nil)
            }
        }
    }

    // MARK: - What each status allows

    @Test(arguments: [true, false])
    func allowanceTable(liveWhenNotDetermined: Bool) throws {
        let subject = try authority(AdminPolicy(liveMotionWhenNotDetermined: liveWhenNotDetermined))
        //                                    live motion, live activity,          history
        let table: [AuthorizationDecision: (Bool, Bool, Bool)] = [
            .notDetermined: (true, liveWhenNotDetermined, false),
            .restricted: (false, false, false),
            .denied: (true, false, false),
            .authorized: (true, true, true),
        ]
        for status in AuthorizationDecision.allCases {
            let expected = try #require(table[status])
            #expect(subject.allowsLiveMotion(status: status) == expected.0, "\(status) live motion")
            #expect(subject.allowsLiveActivity(status: status) == expected.1, "\(status) live activity")
            #expect(subject.allowsHistory(status: status) == expected.2, "\(status) history")
            #expect(subject.allowsHistory(status: status, peer: Self.root) == expected.2, "\(status) history, root")
        }
    }

    // MARK: - Who may change decisions

    @Test func changingDecisions() throws {
        let subject = try authority()
        #expect(subject.mayChangeDecisions(caller: Self.alice, targetUID: 1000))
        #expect(!subject.mayChangeDecisions(caller: Self.alice, targetUID: 1001))
        #expect(subject.mayChangeDecisions(caller: Self.root, targetUID: 1001))
        #expect(subject.mayChangeDecisions(caller: Self.root, targetUID: 0))

        #expect(subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.host, targetUID: 1000))
        #expect(subject.mayChangeDecisions(caller: Self.root, callerApp: Self.scoped, targetUID: 1000))
        #expect(!subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.host, targetUID: 1001))
        // A sandboxed app must not grant itself; an unidentified process is refused too.
        #expect(!subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.flatpak, targetUID: 1000))
        #expect(!subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.snap, targetUID: 1000))
        #expect(!subject.mayChangeDecisions(caller: Self.root, callerApp: Self.flatpak, targetUID: 1000))
        #expect(!subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.unknown, targetUID: 1000))
    }
}
