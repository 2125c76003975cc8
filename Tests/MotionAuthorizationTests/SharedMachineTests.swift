import Foundation
import Logging
@testable import MotionAuthorization
import Testing
import TestSupport

/// Users of one machine kept apart: machine history, restricted users, the shared permission file's
/// quotas, the list document's size, outside strings in logs.
@Suite("Shared machine")
struct SharedMachineTests {
    /// root 0, alice 1000, bob 1001, carol 1002 (in coremotion-history, gid 990 "historians").
    static let database = FakeUserDatabase(
        users: [
            UserRecord(name: "root", uid: 0, primaryGID: 0),
            UserRecord(name: "alice", uid: 1000, primaryGID: 1000),
            UserRecord(name: "bob", uid: 1001, primaryGID: 1001),
            UserRecord(name: "carol", uid: 1002, primaryGID: 1002),
        ],
        groups: ["root": 0, "alice": 1000, "bob": 1001, "carol": 1002, "coremotion-history": 989, "historians": 990],
        memberships: ["carol": [989, 990]]
    )
    static let root = PeerCredentials(pid: 10, uid: 0, gid: 0)
    static let alice = PeerCredentials(pid: 11, uid: 1000, gid: 1000)
    static let bob = PeerCredentials(pid: 12, uid: 1001, gid: 1001)
    static let carol = PeerCredentials(pid: 13, uid: 1002, gid: 1002)
    static let host = AppIdentity(id: "CompatClients", kind: .executable, executable: "/usr/bin/CompatClients", isSandboxed: false)

    private func authority(
        _ policy: AdminPolicy = AdminPolicy(), grants: [UInt32] = [0, 1000, 1001, 1002], historyOwnerUID: UInt32? = nil,
        logger: Logger = quietLogger
    ) throws -> AuthorizationAuthority {
        let store = PermissionStore(file: nil, logger: quietLogger)
        for uid in grants { try store.set(.authorized, uid: uid, app: "CompatClients") }
        return AuthorizationAuthority(policy: policy, store: store, userDatabase: Self.database, historyOwnerUID: historyOwnerUID, logger: logger)
    }

    /// 255 characters that JSON escapes with two bytes each (`"` and `\`), different for each `index` < 256.
    static func worstID(_ index: Int) -> String {
        let bits = (0..<8).map { (index >> $0) & 1 == 1 ? "\\" : "\"" }.joined()
        return bits + String(repeating: "\"", count: AppIdentity.maximumIDLength - 8)
    }

    // MARK: - 1. Machine history: the policy decides, not the user's own grant

    @Test func aSelfGrantGivesLiveMotionButNotTheMachinesHistory() throws {
        let subject = try authority()
        let status = subject.status(for: Self.alice, app: Self.host)
        #expect(status == .authorized)                      // alice granted her own app …
        #expect(subject.allowsLiveActivity(status: status))  // … which gives it live updates …
        #expect(!subject.mayReadMachineHistory(peer: Self.alice))
        #expect(!subject.allowsHistory(status: status, peer: Self.alice))   // … but not the machine's history.
        #expect(subject.historyRefusal(status: status, peer: Self.alice)?.contains("historyReaderUsers") == true)

        // Default readers: root, and members of coremotion-history by the group database.
        #expect(subject.allowsHistory(status: subject.status(for: Self.root, app: Self.host), peer: Self.root))
        #expect(subject.allowsHistory(status: .authorized, peer: Self.carol))
        // The group of the connecting process alone does not count.
        #expect(!subject.mayReadMachineHistory(peer: PeerCredentials(pid: 14, uid: 1001, gid: 989)))
        // A reader still needs an authorized app.
        #expect(!subject.allowsHistory(status: .notDetermined, peer: Self.root))
        #expect(!subject.allowsHistory(status: .denied, peer: Self.carol))
    }

    @Test func thePolicyNamesTheHistoryReaders() throws {
        let policy = try AdminPolicy.parse(Data(#"{"historyReaderUsers": ["alice", 1001], "historyReaderGroups": ["historians"]}"#.utf8), file: "p")
        #expect(policy.historyReaderUsers == ["alice", "1001"] && policy.historyReaderGroups == ["historians"])
        let subject = try authority(policy)
        #expect(subject.allowsHistory(status: .authorized, peer: Self.alice))
        #expect(subject.allowsHistory(status: .authorized, peer: Self.bob))
        #expect(subject.allowsHistory(status: .authorized, peer: Self.carol))
        #expect(!subject.allowsHistory(status: .authorized, peer: Self.root))   // a list replaces the default
        // Empty lists: nobody; null: the defaults.
        let nobody = try authority(AdminPolicy(historyReaderUsers: [], historyReaderGroups: []))
        #expect([Self.root, Self.alice, Self.carol].allSatisfy { !nobody.mayReadMachineHistory(peer: $0) })
        let defaults = try AdminPolicy.parse(Data(#"{"historyReaderUsers": null, "historyReaderGroups": null}"#.utf8), file: "p")
        #expect(defaults == AdminPolicy())
        #expect(AdminPolicy(historyReaderGroups: ["nogroup"]).unknownNames(in: Self.database) == [#"historyReaderGroups: "nogroup" (no such group)"#])
        // A restricted reader reads nothing.
        let restricted = try authority(AdminPolicy(restrictedUsers: ["alice"], historyReaderUsers: ["alice"]))
        #expect(!restricted.allowsHistory(status: restricted.status(for: Self.alice, app: Self.host), peer: Self.alice))
    }

    @Test func aPerUserInstanceKeepsItsOwnersHistory() throws {
        let subject = try authority(historyOwnerUID: 1000)
        #expect(subject.allowsHistory(status: .authorized, peer: Self.alice))
        #expect(!subject.allowsHistory(status: .authorized, peer: Self.carol))
    }

    // MARK: - 2. Restricted users

    @Test func aRestrictedUserIsRecognisedAndCannotTouchDecisions() throws {
        let subject = try authority(AdminPolicy(restrictedUsers: ["bob"], restrictedApps: ["Tracker"]))
        // Recognised: status .restricted exactly when restriction(for:app:) names a reason.
        let tracker = AppIdentity(id: "Tracker", kind: .executable, isSandboxed: false)
        for peer in [Self.root, Self.alice, Self.bob, Self.carol] {
            for app in [Self.host, tracker] {
                #expect((subject.status(for: peer, app: app) == .restricted) == (subject.restriction(for: peer, app: app) != nil))
            }
        }
        #expect(subject.status(for: Self.bob, app: Self.host) == .restricted)   // his stored grant does not help
        #expect(subject.userRestriction(for: Self.bob) == .userListed("bob"))
        #expect(subject.userRestriction(for: Self.alice) == nil)               // a restricted app is not a restricted user
        #expect(!subject.allowsLiveMotion(status: .restricted))

        // A restricted user may not list or change decisions (he could only fill the shared file).
        #expect(!subject.mayChangeDecisions(caller: Self.bob, callerApp: Self.host, targetUID: 1001))
        #expect(subject.decisionChangeRefusal(caller: Self.bob, callerApp: Self.host, targetUID: 1001)?.contains("restricted") == true)
        #expect(subject.mayChangeDecisions(caller: Self.alice, callerApp: Self.host, targetUID: 1000))
        // Outside allowedUsers is restricted too; root still administers the others' decisions.
        let allowList = try authority(AdminPolicy(allowedUsers: ["alice"]))
        #expect(allowList.userRestriction(for: Self.bob) == .notAllowed)
        #expect(!allowList.mayChangeDecisions(caller: Self.bob, callerApp: Self.host, targetUID: 1001))
        #expect(allowList.mayChangeDecisions(caller: Self.root, callerApp: Self.host, targetUID: 1001))
    }

    // MARK: - 3. Quotas of the shared permission file

    @Test func aFullUserQuotaIsAClearErrorAndHarmsNobody() throws {
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            // alice is one decision short of the quota (longest ids); bob has three decisions.
            var alice: [String: String] = [:]
            for index in 0..<255 { alice[Self.worstID(index)] = "authorized" }
            let bob = ["org.gnome.Maps": "denied", "snap.spotify": "authorized", "CompatClients": "authorized"]
            let body: [String: Any] = ["version": 1, "users": ["1000": alice, "1001": bob]]
            try JSONSerialization.data(withJSONObject: body).write(to: file)

            let store = PermissionStore(file: file, logger: quietLogger)
            #expect(PermissionStore.Limits.standard.decisionsPerUser == 256)
            try store.set(.authorized, uid: 1000, app: Self.worstID(255))   // the 256th
            #expect(throws: PermissionStoreError.userQuotaFull(uid: 1000, limit: 256)) {
                try store.set(.authorized, uid: 1000, app: "one.more")
            }
            let message = PermissionStoreError.userQuotaFull(uid: 1000, limit: 256).description
            #expect(message.contains("256") && message.contains("user 1000") && message.contains("permissions reset"))
            try store.set(.denied, uid: 1000, app: Self.worstID(3))      // changing a stored one is fine
            try store.set(.authorized, uid: 1001, app: "org.example.New") // another user is not affected

            let reopened = PermissionStore(file: file, logger: quietLogger)
            #expect(reopened.damagedFileMovedTo == nil)
            #expect(reopened.list(uid: 1000).count == 256)
            #expect(reopened.decision(uid: 1000, app: "one.more") == nil)
            #expect(reopened.decision(uid: 1000, app: Self.worstID(3)) == .denied)
            #expect(reopened.list(uid: 1001).map(\.app) == ["CompatClients", "org.example.New", "org.gnome.Maps", "snap.spotify"])
            // Freeing one makes room again.
            try reopened.reset(uid: 1000, app: Self.worstID(0))
            try reopened.set(.authorized, uid: 1000, app: "one.more")
        }
    }

    @Test func theStoreWideQuotaIsAClearError() throws {
        let store = PermissionStore(file: nil, limits: PermissionStore.Limits(decisionsPerUser: 2, decisions: 3), logger: quietLogger)
        try store.set(.authorized, uid: 1, app: "a")
        try store.set(.authorized, uid: 1, app: "b")
        try store.set(.denied, uid: 2, app: "a")
        #expect(throws: PermissionStoreError.storeFull(limit: 3)) { try store.set(.authorized, uid: 3, app: "a") }
        #expect(throws: PermissionStoreError.userQuotaFull(uid: 1, limit: 2)) { try store.set(.authorized, uid: 1, app: "c") }
        #expect(PermissionStoreError.storeFull(limit: 3).description.contains("3 decisions"))
        try store.set(.authorized, uid: 2, app: "a")   // a change, not a new decision
        #expect(store.listAll().count == 3)
    }

    @Test func theLargestPossibleFileIsOneTheLoaderAccepts() throws {
        #expect(PermissionStore.Limits.standard.decisions == 16_384)
        let bound = PermissionStore.worstCaseFileSize(decisions: 16_384)
        #expect(bound == 9_224_231)
        #expect(bound <= PermissionStore.maximumFileSize)   // 16,777,216

        // JSON escapes no allowed character with more than two bytes per byte of UTF-8.
        let base = try PermissionStore.encode([1: ["a": .authorized]]).count
        let samples = (0x20...0x7E).compactMap(Unicode.Scalar.init) + ["\u{A0}", "\u{FF}", "\u{200E}", "\u{202E}", "\u{FEFF}", "\u{FFFD}", "😀"]
        for scalar in samples where AppIdentity.isValid(id: String(scalar)) {
            let size = try PermissionStore.encode([1: [String(scalar): .authorized]]).count
            #expect(size - base + 1 <= 2 * String(scalar).utf8.count, "\(scalar.value)")
        }

        // The worst layout: every decision of another ten-digit uid, every id 255 escaped characters.
        var worst: [UInt32: [String: AuthorizationDecision]] = [:]
        for index in 0..<16_384 { worst[4_294_967_294 - UInt32(index)] = [Self.worstID(index % 256): .authorized] }
        let data = try PermissionStore.encode(worst)
        #expect(data.count <= bound)
        #expect(data.count > bound - 20_000)   // the bound is tight
        guard case .success(let parsed) = PermissionStore.parse(data) else {
            Issue.record("the worst-case file does not load")
            return
        }
        #expect(parsed.count == 16_384)
    }

    // MARK: - 4. The list document fits its frame; a cut one is refused

    @Test func aFullUsersListFitsTheProtocolsDocumentLimit() throws {
        /// `DaemonMessage.maximumDocumentLength` (MotionProtocol), which this test target does not import.
        let protocolDocumentLimit = 512 * 1024
        #expect(PermissionsDocument.maximumEncodedLength == 147_519)
        #expect(PermissionsDocument.maximumEncodedLength <= protocolDocumentLimit)

        let entries = (0..<256).map { PermissionsDocument.Entry(app: Self.worstID($0), status: .authorized) }
        let document = PermissionsDocument(uid: 4_294_967_294, decisions: entries, changed: Self.worstID(7))
        let text = try document.encoded(limit: protocolDocumentLimit)
        #expect(text.utf8.count <= PermissionsDocument.maximumEncodedLength)
        #expect(try PermissionsDocument.decode(text) == document)
        // Longer than the carrier: an error, never a cut text.
        #expect(throws: PermissionsDocumentError.self) { try document.encoded(limit: 100_000) }
    }

    @Test func aCutOrDamagedDocumentIsRefused() throws {
        let text = try PermissionsDocument(uid: 1000, decisions: [("CompatClients", .authorized), ("org.gnome.Maps", .denied)], changed: nil).encoded()
        let decoded = try PermissionsDocument.decode(text)
        #expect(decoded.uid == 1000 && decoded.decisions.map(\.status) == [.authorized, .denied] && decoded.changed == nil)
        // The daemon's document of today (slashes escaped, `changed` absent) still reads.
        #expect(try PermissionsDocument.decode(#"{"uid": 5, "decisions": [{"app": "a\/b", "status": "denied"}]}"#).decisions.first?.app == "a/b")

        for cut in [text.utf8.count - 1, text.utf8.count / 2, 1] {
            let prefix = String(decoding: Array(text.utf8.prefix(cut)), as: UTF8.self)
            #expect(throws: PermissionsDocumentError.self) { try PermissionsDocument.decode(prefix) }
        }
        for damaged in ["", "{}", #"{"uid": -1, "decisions": []}"#, #"{"uid": 1, "decisions": [{"app": "x", "status": "maybe"}]}"#,
                        #"{"uid": 1, "decisions": [{"app": "", "status": "denied"}]}"#] {
            #expect(throws: PermissionsDocumentError.self) { try PermissionsDocument.decode(damaged) }
        }
        let error = #expect(throws: PermissionsDocumentError.self) { try PermissionsDocument.decode(String(text.prefix(40))) }
        #expect(error?.description.contains("not a valid permissions document (40 bytes)") == true)
    }

    // MARK: - 5. Outside strings are log-safe

    @Test func outsideStringsReachTheLogEscaped() throws {
        let rightToLeft = "\u{202E}"
        // An executable named with a bidirectional override is a valid id (no control character) …
        let identity = AppIdentity(id: "evil\(rightToLeft)gpj.exe", kind: .executable, isSandboxed: false)
        #expect(AppIdentity.isValid(id: identity.id))
        // … but its log forms escape it, and the client's hint too.
        #expect(identity.description == "evil\\u{202E}gpj.exe [executable]")
        let shown = identity.displayName(hint: "x\u{1B}[31m\(rightToLeft)")
        #expect(!shown.unicodeScalars.contains { $0 == "\u{1B}" || $0 == "\u{202E}" })
        #expect(shown.contains("\\u{1B}") && shown.contains("\\u{202E}"))
        #expect(!PermissionStoreError.invalidAppID("a\(rightToLeft)\n", .controlCharacter(offset: 2)).description.contains(rightToLeft))

        // Logged by the authority (policy names) and the store (a damaged file naming an app).
        let recorder = LogRecorder()
        _ = AuthorizationAuthority(
            policy: AdminPolicy(restrictedUsers: ["gu\(rightToLeft)est"]), store: PermissionStore(file: nil, logger: quietLogger),
            userDatabase: Self.database, logger: recorder.logger)
        try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("permissions.json")
            try Data("{\"version\": 1, \"users\": {\"1000\": {\"bad\(rightToLeft)\\n\": \"authorized\"}}}".utf8).write(to: file)
            _ = PermissionStore(file: file, logger: recorder.logger)
        }
        let messages = recorder.messages.map(\.message)
        #expect(messages.contains { $0.contains("gu\\u{202E}est") })
        #expect(messages.contains { $0.contains("bad\\u{202E}\\u{A}") })
        #expect(!messages.contains { $0.unicodeScalars.contains { $0 == "\u{202E}" || $0 == "\n" } })
    }
}
