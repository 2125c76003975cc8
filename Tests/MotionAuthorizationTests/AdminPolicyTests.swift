import Foundation
import Glibc
import MotionAuthorization
import Testing
import TestSupport

@Suite("Administrator's policy")
struct AdminPolicyTests {
    private func load(_ text: String) throws -> AdminPolicy {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("policy.json")
            try Data(text.utf8).write(to: file)
            return try AdminPolicy.load(from: file.path)
        }
    }

    /// The error of loading `text` from a file at a known path.
    private func loadError(_ text: String) throws -> (error: AdminPolicyError, file: String) {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("policy.json")
            try Data(text.utf8).write(to: file)
            do {
                _ = try AdminPolicy.load(from: file.path)
            } catch let error as AdminPolicyError {
                return (error, file.path)
            }
            Issue.record("no error for \(text)")
            return (.malformed(file: "", reason: ""), file.path)
        }
    }

    @Test func validFile() throws {
        let policy = try load("""
            {
              "restrictedUsers": ["guest", "1001", 1002],
              "restrictedGroups": ["kiosk", "60000"],
              "restrictedApps": ["com.example.Tracker"],
              "allowedUsers": ["alice", "root"],
              "liveMotionWhenNotDetermined": false,
              "authorizeUnsandboxedApps": true
            }
            """)
        #expect(policy == AdminPolicy(
            restrictedUsers: ["guest", "1001", "1002"],
            restrictedGroups: ["kiosk", "60000"],
            restrictedApps: ["com.example.Tracker"],
            allowedUsers: ["alice", "root"],
            liveMotionWhenNotDetermined: false,
            authorizeUnsandboxedApps: true
        ))
    }

    @Test func emptyObjectAndMissingFileAreTheDefault() throws {
        let defaults = AdminPolicy()
        #expect(defaults.restrictedUsers.isEmpty && defaults.restrictedGroups.isEmpty && defaults.restrictedApps.isEmpty)
        #expect(defaults.allowedUsers == nil)
        #expect(defaults.liveMotionWhenNotDetermined)
        #expect(!defaults.authorizeUnsandboxedApps)
        #expect(try load("{}") == defaults)
        #expect(try load("{\"allowedUsers\": null}") == defaults)
        #expect(try AdminPolicy.load(from: "/nonexistent/coremotion/policy.json") == defaults)
        #expect(AdminPolicy.defaultPath == "/etc/coremotion/policy.json")
    }

    @Test func unknownKeyIsNamedWithTheAcceptedKeys() throws {
        let (error, file) = try loadError("{\"restrictedUser\": [\"guest\"]}")
        #expect(error == .unknownKey(file: file, key: "restrictedUser", accepted: AdminPolicy.acceptedKeys))
        #expect(error.description.contains(file))
        #expect(error.description.contains("\"restrictedUser\""))
        #expect(error.description.contains("allowedUsers, authorizeUnsandboxedApps, historyReaderGroups, historyReaderUsers, liveMotionWhenNotDetermined, restrictedApps, restrictedGroups, restrictedUsers"))
    }

    @Test(arguments: [
        ("{\"authorizeUnsandboxedApps\": \"yes\"}", "authorizeUnsandboxedApps", "a string"),
        ("{\"liveMotionWhenNotDetermined\": 1}", "liveMotionWhenNotDetermined", "a number"),
        ("{\"restrictedUsers\": \"guest\"}", "restrictedUsers", "a string"),
        ("{\"restrictedGroups\": [true]}", "restrictedGroups", "a boolean at index 0"),
        ("{\"restrictedApps\": [\"ok.App\", 5]}", "restrictedApps", "a number at index 1"),
        ("{\"allowedUsers\": {}}", "allowedUsers", "an object"),
    ])
    func wrongTypeNamesTheKey(text: String, key: String, found: String) throws {
        let (error, file) = try loadError(text)
        guard case .wrongType(let errorFile, let errorKey, _, let errorFound) = error else {
            Issue.record("expected wrongType, got \(error)")
            return
        }
        #expect(errorFile == file)
        #expect(errorKey == key)
        #expect(errorFound == found)
        #expect(error.description.contains(file) && error.description.contains("\"\(key)\""))
    }

    @Test(arguments: [
        ("{\"restrictedUsers\": [-1]}", "restrictedUsers", 0),
        ("{\"restrictedUsers\": [\"guest\", \"\"]}", "restrictedUsers", 1),
        ("{\"allowedUsers\": [\"4294967295\"]}", "allowedUsers", 0),
        ("{\"restrictedGroups\": [\"99999999999\"]}", "restrictedGroups", 0),
        ("{\"restrictedGroups\": [\"bad\\nname\"]}", "restrictedGroups", 0),
        ("{\"restrictedApps\": [\"\"]}", "restrictedApps", 0),
        ("{\"restrictedApps\": [\"unknown-pid-1\"]}", "restrictedApps", 0),
    ])
    func invalidEntriesAreNamed(text: String, key: String, index: Int) throws {
        let (error, file) = try loadError(text)
        guard case .invalidEntry(let errorFile, let errorKey, let errorIndex, _) = error else {
            Issue.record("expected invalidEntry, got \(error)")
            return
        }
        #expect(errorFile == file && errorKey == key && errorIndex == index)
    }

    @Test(arguments: ["", "not json", "[]", "\"text\"", "{\"restrictedUsers\": [}"])
    func malformedFile(text: String) throws {
        let (error, file) = try loadError(text)
        guard case .malformed(let errorFile, _) = error else {
            Issue.record("expected malformed, got \(error)")
            return
        }
        #expect(errorFile == file)
    }

    @Test func unreadablePolicyIsAnError() throws {
        try withTemporaryFolder { folder in
            // A folder where the file should be.
            let path = folder.path
            #expect(throws: AdminPolicyError.unreadable(file: path, reason: "not a regular file")) {
                try AdminPolicy.load(from: path)
            }
        }
    }

    @Test func codableRoundTripUsesTheSameChecks() throws {
        let policy = AdminPolicy(restrictedUsers: ["guest"], restrictedApps: ["com.example.Tracker"], allowedUsers: ["alice"], authorizeUnsandboxedApps: true)
        let data = try JSONEncoder().encode(policy)
        #expect(try JSONDecoder().decode(AdminPolicy.self, from: data) == policy)
        #expect(throws: AdminPolicyError.self) {
            try JSONDecoder().decode(AdminPolicy.self, from: Data("{\"typo\": 1}".utf8))
        }
    }

    // MARK: - Against the system's user database

    @Test func numericUIDAndNameOfTheCurrentUser() throws {
        let database = SystemUserDatabase()
        let me = try #require(database.user(uid: getuid()))
        let peer = PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid())
        let app = AppIdentity(id: "CompatClients", kind: .executable, isSandboxed: false)
        let store = PermissionStore(file: nil, logger: quietLogger)

        for entry in [String(me.uid), me.name] {
            let authority = AuthorizationAuthority(policy: AdminPolicy(restrictedUsers: [entry]), store: store, logger: quietLogger)
            #expect(authority.status(for: peer, app: app) == .restricted, "restrictedUsers [\(entry)]")
            #expect(authority.restriction(for: peer, app: app) == .userListed(entry))
        }
        let other = AuthorizationAuthority(policy: AdminPolicy(restrictedUsers: [String(me.uid &+ 1)]), store: store, logger: quietLogger)
        #expect(other.status(for: peer, app: app) == .notDetermined)
    }

    @Test func groupMembershipThroughThePrimaryGroup() throws {
        let database = SystemUserDatabase()
        let me = try #require(database.user(uid: getuid()))
        let groupName = try #require(Self.groupName(of: me.primaryGID))
        #expect(database.groupID(named: groupName) == me.primaryGID)
        #expect(database.groupIDs(of: me).contains(me.primaryGID))

        let peer = PeerCredentials(pid: getpid(), uid: me.uid, gid: me.primaryGID)
        let app = AppIdentity(id: "CompatClients", kind: .executable, isSandboxed: false)
        let store = PermissionStore(file: nil, logger: quietLogger)
        for entry in [groupName, String(me.primaryGID)] {
            let authority = AuthorizationAuthority(policy: AdminPolicy(restrictedGroups: [entry]), store: store, logger: quietLogger)
            #expect(authority.status(for: peer, app: app) == .restricted, "restrictedGroups [\(entry)]")
            #expect(authority.restriction(for: peer, app: app) == .groupListed(entry))
        }
        // A gid nobody has.
        let unrelated = AuthorizationAuthority(policy: AdminPolicy(restrictedGroups: ["4294967200"]), store: store, logger: quietLogger)
        #expect(unrelated.status(for: peer, app: app) == .notDetermined)
    }

    @Test func unknownNamesAreReportedNotFatal() throws {
        let policy = AdminPolicy(
            restrictedUsers: ["no-such-user-coremotion-test", "0"],
            restrictedGroups: ["no-such-group-coremotion-test"],
            allowedUsers: ["another-missing-user-coremotion"]
        )
        let names = policy.unknownNames(in: SystemUserDatabase())
        #expect(names == [
            "restrictedUsers: \"no-such-user-coremotion-test\" (no such user)",
            "allowedUsers: \"another-missing-user-coremotion\" (no such user)",
            "restrictedGroups: \"no-such-group-coremotion-test\" (no such group)",
        ])
        let log = LogRecorder()
        _ = AuthorizationAuthority(policy: policy, store: PermissionStore(file: nil, logger: quietLogger), logger: log.logger)
        let warnings = log.messages.filter { $0.level == .warning }.map(\.message)
        #expect(warnings.count == 3)
        #expect(warnings.allSatisfy { $0.contains("matches nobody") })
    }

    @Test func systemDatabaseAnswersNilForStrangers() {
        let database = SystemUserDatabase()
        #expect(database.user(named: "no-such-user-coremotion-test") == nil)
        #expect(database.user(uid: 4_294_967_000) == nil)
        #expect(database.groupID(named: "no-such-group-coremotion-test") == nil)
        #expect(database.user(named: "root")?.uid == 0)
    }

    static func groupName(of gid: UInt32) -> String? {
        guard let entry = getgrgid(gid), let name = entry.pointee.gr_name else { return nil }
        return String(cString: name)
    }
}
