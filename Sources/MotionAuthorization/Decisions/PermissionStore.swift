import Foundation
import Glibc
import Logging

/// The users' decisions, per user and per app, kept in a JSON file.
///
/// ```json
/// {
///   "users" : {
///     "1000" : {
///       "CompatClients" : "authorized",
///       "org.gnome.Maps" : "denied"
///     }
///   },
///   "version" : 1
/// }
/// ```
///
/// Only ``AuthorizationDecision/authorized`` and ``AuthorizationDecision/denied`` are stored; an app
/// without an entry is undecided. Every change rewrites the whole file atomically: a temporary file
/// in the same folder (mode 0600), `fsync`, `rename` over the old file, `fsync` of the folder; a
/// failed write throws and leaves both the file and the decisions in memory as they were. The folder
/// is created (mode 0700) when missing. One process owns a file; two daemons must not share one.
///
/// A file that cannot be used at start (not JSON, another `version`, an unknown key, a wrong type, a
/// uid that is not a decimal number, an invalid app id, a state other than `authorized`/`denied`,
/// larger than 16 MiB, unreadable) is renamed to `<name>.damaged-<UTC time>` with an error log naming
/// the file and the reason, and the store starts empty: every app then reads
/// ``AuthorizationDecision/notDetermined``, the safe default (history needs `authorized`).
///
/// **Quotas.** The file is shared by every user of the machine, so no user may grow it past what the
/// loader accepts (``maximumFileSize``, 16 MiB: a larger file would be set aside at the next start,
/// and every user's decisions with it). A user keeps at most ``Limits/decisionsPerUser`` decisions
/// (256), all users together at most ``Limits/decisions`` (16,384); app ids are at most
/// ``AppIdentity/maximumIDLength`` bytes (255). With these the file is at most
/// ``worstCaseFileSize(decisions:)`` of 16,384 = 9,224,231 bytes (8.8 MiB). A new decision beyond a
/// quota is refused with ``PermissionStoreError/userQuotaFull(uid:limit:)`` or
/// ``PermissionStoreError/storeFull(limit:)``; changing or removing a stored decision is always
/// possible. A file written by an older version with more decisions is loaded whole (and logged):
/// nothing is dropped, but no decision is added until it is back under the quota.
///
/// Thread-safe: reads never wait for a write in progress; writes are serialized.
public final class PermissionStore: Sendable {
    /// The `version` this store reads and writes.
    public static let fileVersion = 1
    /// Files larger than this (16 MiB) are taken as damaged.
    public static let maximumFileSize = 16 * 1024 * 1024

    /// How many decisions the store keeps.
    public struct Limits: Sendable, Hashable {
        /// Decisions one user (uid) may keep: 256 by default.
        public let decisionsPerUser: Int
        /// Decisions all users together may keep: 16,384 by default.
        public let decisions: Int

        /// The standard limits: 256 decisions per user, 16,384 in all.
        public static let standard = Limits(decisionsPerUser: 256, decisions: 16_384)

        /// Limits for tests and special deployments; `decisions` must keep the worst-case file within
        /// ``PermissionStore/maximumFileSize`` (a precondition): at most 29,799.
        public init(decisionsPerUser: Int, decisions: Int) {
            precondition(decisionsPerUser >= 1 && decisions >= decisionsPerUser, "limits must be positive, the total at least the per-user limit")
            precondition(PermissionStore.worstCaseFileSize(decisions: decisions) <= PermissionStore.maximumFileSize, "the file could exceed what the loader accepts")
            self.decisionsPerUser = decisionsPerUser
            self.decisions = decisions
        }
    }

    /// The largest file a store with `decisions` decisions can write, in bytes: every app id
    /// ``AppIdentity/maximumIDLength`` (255) bytes long and made of characters JSON escapes with two
    /// bytes (`"` and `\`; control characters are not allowed in ids), every decision of a different
    /// ten-digit uid, every state `"authorized"`.
    ///
    /// Per decision 535 bytes (`      "ID" : "authorized",` and a line break, the id escaped to 510
    /// bytes), per user 28 (`    "4294967294" : {` … `    },`), 39 for the rest; 9,224,231 bytes for
    /// 16,384 decisions, under ``maximumFileSize`` (16,777,216).
    public static func worstCaseFileSize(decisions: Int) -> Int {
        let perDecision = 6 + 1 + 2 * AppIdentity.maximumIDLength + 5 + "authorized".utf8.count + 3
        let perUser = 4 + 12 + 5 + 7
        let frame = 16 + 23
        return frame + decisions * (perDecision + perUser)
    }
    /// The file of the system instance: `/var/lib/coremotion/permissions.json`.
    public static let systemFile = URL(fileURLWithPath: "/var/lib/coremotion/permissions.json")

    /// The file of a per-user instance: `$XDG_DATA_HOME/coremotion/permissions.json` when
    /// `XDG_DATA_HOME` is an absolute path, else `$HOME/.local/share/coremotion/permissions.json`.
    public static func userFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let base: URL
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            base = URL(fileURLWithPath: data, isDirectory: true)
        } else {
            let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory()
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        }
        return base.appendingPathComponent("coremotion/permissions.json")
    }

    /// The file, or `nil` for a store in memory only.
    public let file: URL?
    /// The quotas in force.
    public let limits: Limits
    /// Where a damaged file found at start was moved, or `nil` when none was.
    public let damagedFileMovedTo: URL?

    private let logger: Logger
    /// uid → app id → decision (only `authorized` and `denied`).
    private let decisions: Locked<[UInt32: [String: AuthorizationDecision]]>
    /// Serializes writers; holds the number of the next temporary file.
    private let writer = Locked<UInt64>(0)

    /// Opens the store in `file` (`nil`: in memory only), reading the decisions already there.
    ///
    /// Never fails: a missing file is an empty store; a damaged one is moved aside (see the type's
    /// documentation). Temporary files left by an interrupted write are removed.
    public init(file: URL?, limits: Limits = .standard, logger: Logger) {
        self.file = file
        self.limits = limits
        self.logger = logger
        guard let file else {
            decisions = Locked([:])
            damagedFileMovedTo = nil
            return
        }
        Self.removeStaleTemporaryFiles(of: file)
        let loaded = Self.load(file, logger: logger)
        let overQuota = loaded.decisions.filter { $0.value.count > limits.decisionsPerUser }.keys.sorted()
        if !overQuota.isEmpty {
            logger.warning(
                "permission store \(file.path): users \(overQuota.map(String.init).joined(separator: ", ")) keep more than \(limits.decisionsPerUser) decisions (the per-user quota); all are kept, none can be added until some are reset")
        }
        let total = loaded.decisions.values.reduce(0) { $0 + $1.count }
        if total > limits.decisions {
            logger.warning(
                "permission store \(file.path) keeps \(total) decisions, more than the \(limits.decisions) allowed in all; all are kept, none can be added until some are reset")
        }
        decisions = Locked(loaded.decisions)
        damagedFileMovedTo = loaded.movedTo
    }

    // MARK: - Reading

    /// The stored decision of `uid` for `app`: ``AuthorizationDecision/authorized``,
    /// ``AuthorizationDecision/denied``, or `nil` when the user has not decided (or `app` is not a
    /// valid id).
    public func decision(uid: UInt32, app: String) -> AuthorizationDecision? {
        decisions.withLock { $0[uid]?[app] }
    }

    /// The stored decisions of `uid`, sorted by app id.
    public func list(uid: UInt32) -> [(app: String, decision: AuthorizationDecision)] {
        let apps = decisions.withLock { $0[uid] ?? [:] }
        return apps.sorted { $0.key < $1.key }.map { (app: $0.key, decision: $0.value) }
    }

    /// Every stored decision, sorted by uid, then app id.
    public func listAll() -> [(uid: UInt32, app: String, decision: AuthorizationDecision)] {
        let all = decisions.withLock { $0 }
        return all.keys.sorted().flatMap { uid in
            all[uid]!.sorted { $0.key < $1.key }.map { (uid: uid, app: $0.key, decision: $0.value) }
        }
    }

    // MARK: - Changing

    /// Records the decision of `uid` for `app` and writes the file before returning.
    ///
    /// ``AuthorizationDecision/notDetermined`` removes the entry (as ``reset(uid:app:)``). Setting the
    /// value already stored writes nothing.
    ///
    /// - Throws: ``PermissionStoreError/invalidAppID(_:_:)`` for an id that fails
    ///   ``AppIdentity/validate(id:)``; ``PermissionStoreError/notStorable(_:)`` for
    ///   ``AuthorizationDecision/restricted``; ``PermissionStoreError/userQuotaFull(uid:limit:)`` when
    ///   a new decision would take `uid` past ``Limits/decisionsPerUser``;
    ///   ``PermissionStoreError/storeFull(limit:)`` when it would take the store past
    ///   ``Limits/decisions``; ``PermissionStoreError/writeFailed(file:reason:)`` when the file could not
    ///   be written. Whatever is thrown, nothing changed.
    public func set(_ decision: AuthorizationDecision, uid: UInt32, app: String) throws(PermissionStoreError) {
        do {
            try AppIdentity.validate(id: app)
        } catch {
            throw .invalidAppID(app, error)
        }
        let stored: AuthorizationDecision?
        switch decision {
        case .restricted: throw .notStorable(decision)
        case .notDetermined: stored = nil
        case .authorized, .denied: stored = decision
        }
        _ = try change(uid: uid, app: app, to: stored)
    }

    /// Removes the decision of `uid` for `app` (the app reads ``AuthorizationDecision/notDetermined``
    /// again).
    ///
    /// - Returns: true when a decision was removed.
    /// - Throws: as ``set(_:uid:app:)``.
    @discardableResult
    public func reset(uid: UInt32, app: String) throws(PermissionStoreError) -> Bool {
        do {
            try AppIdentity.validate(id: app)
        } catch {
            throw .invalidAppID(app, error)
        }
        return try change(uid: uid, app: app, to: nil)
    }

    /// Applies one change under the writer lock: file first, then memory. Returns whether anything changed.
    private func change(uid: UInt32, app: String, to stored: AuthorizationDecision?) throws(PermissionStoreError) -> Bool {
        let limits = self.limits
        return try writer.withLock { (counter: inout UInt64) throws(PermissionStoreError) -> Bool in
            var next = decisions.withLock { $0 }
            guard next[uid]?[app] != stored else { return false }
            if stored != nil, next[uid]?[app] == nil {
                // A new entry: the quotas apply (changing or removing one never fails on them).
                if (next[uid]?.count ?? 0) >= limits.decisionsPerUser {
                    throw .userQuotaFull(uid: uid, limit: limits.decisionsPerUser)
                }
                if next.values.reduce(0, { $0 + $1.count }) >= limits.decisions {
                    throw .storeFull(limit: limits.decisions)
                }
            }
            var apps = next[uid] ?? [:]
            apps[app] = stored
            next[uid] = apps.isEmpty ? nil : apps
            if let file {
                counter &+= 1
                try Self.write(next, to: file, number: counter)
            }
            decisions.withLock { $0 = next }
            return true
        }
    }

    // MARK: - File

    private struct FileBody: Encodable {
        var users: [String: [String: String]]
        var version: Int
    }

    /// The file's text for `decisions`.
    static func encode(_ decisions: [UInt32: [String: AuthorizationDecision]]) throws -> Data {
        var users: [String: [String: String]] = [:]
        for (uid, apps) in decisions {
            users[String(uid)] = apps.mapValues(\.name)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(FileBody(users: users, version: fileVersion))
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private static func write(_ decisions: [UInt32: [String: AuthorizationDecision]], to file: URL, number: UInt64) throws(PermissionStoreError) {
        let path = file.path
        let folder = file.deletingLastPathComponent()
        func failure(_ reason: String) -> PermissionStoreError { .writeFailed(file: path, reason: reason) }

        let data: Data
        do {
            data = try encode(decisions)
        } catch {
            throw failure("encoding failed: \(error)")
        }
        // Never write what the next start would set aside (only possible with a file an older version
        // let grow past the quotas).
        guard data.count <= maximumFileSize else {
            throw failure("it would be \(data.count) bytes, larger than the \(maximumFileSize / (1024 * 1024)) MiB the daemon loads; nothing was changed")
        }

        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw failure("cannot create the folder \(folder.path): \(error.localizedDescription)")
        }

        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).\(number).tmp").path
        var fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 && errno == EEXIST {
            unlink(temporary)
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard fd >= 0 else { throw failure("cannot create \(temporary): \(SmallFile.describe(errno: errno))") }
        var closed = false
        defer {
            if !closed { close(fd) }
        }
        func abandon(_ reason: String) -> PermissionStoreError {
            if !closed { close(fd); closed = true }
            unlink(temporary)
            return failure(reason)
        }

        guard fchmod(fd, 0o600) == 0 else { throw abandon("fchmod: \(SmallFile.describe(errno: errno))") }
        var written = 0
        while written < data.count {
            let result = data.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw abandon("write: \(SmallFile.describe(errno: errno))")
            }
            written += result
        }
        guard fsync(fd) == 0 else { throw abandon("fsync: \(SmallFile.describe(errno: errno))") }
        closed = true
        guard close(fd) == 0 else {
            let reason = "close: \(SmallFile.describe(errno: errno))"
            unlink(temporary)
            throw failure(reason)
        }
        guard rename(temporary, path) == 0 else {
            let reason = "rename: \(SmallFile.describe(errno: errno))"
            unlink(temporary)
            throw failure(reason)
        }
        // Make the rename itself durable. The file is in place already; a failure here is not reported.
        let folderFD = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 {
            _ = fsync(folderFD)
            close(folderFD)
        }
    }

    private static func removeStaleTemporaryFiles(of file: URL) {
        let folder = file.deletingLastPathComponent()
        let prefix = ".\(file.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            unlink(folder.appendingPathComponent(name).path)
        }
    }

    private static func load(_ file: URL, logger: Logger) -> (decisions: [UInt32: [String: AuthorizationDecision]], movedTo: URL?) {
        let problem: String
        switch SmallFile.read(file.path, limit: maximumFileSize) {
        case .missing:
            logger.debug("permission store \(file.path) does not exist yet: no stored decisions")
            return ([:], nil)
        case .contents(let bytes):
            switch parse(Data(bytes)) {
            case .success(let decisions):
                let count = decisions.values.reduce(0) { $0 + $1.count }
                logger.debug("permission store \(file.path): \(count) decisions of \(decisions.count) users")
                return (decisions, nil)
            case .failure(let failure):
                problem = failure.reason
            }
        case .tooLarge:
            problem = "larger than \(maximumFileSize / (1024 * 1024)) MiB"
        case .notRegularFile:
            problem = "not a regular file"
        case .failed(let code):
            problem = "cannot be read: \(SmallFile.describe(errno: code))"
        }
        let aside = moveAside(file)
        switch aside {
        case .success(let destination):
            logger.error(
                "permission store \(file.path) is damaged (\(problem)); moved aside to \(destination.path); starting with no stored decisions",
                metadata: ["file": "\(file.path)", "reason": "\(problem)", "moved-to": "\(destination.path)"]
            )
            return ([:], destination)
        case .failure(let failure):
            logger.error(
                "permission store \(file.path) is damaged (\(problem)) and could not be moved aside (\(failure.reason)); starting with no stored decisions, the next change replaces it",
                metadata: ["file": "\(file.path)", "reason": "\(problem)"]
            )
            return ([:], nil)
        }
    }

    struct StoreFileProblem: Error {
        var reason: String
    }

    /// Decodes and checks the whole file; any problem makes the whole file damaged.
    static func parse(_ data: Data) -> Result<[UInt32: [String: AuthorizationDecision]], StoreFileProblem> {
        let root: JSONValue
        switch JSONValue.parse(data) {
        case .success(let value): root = value
        case .failure(let failure): return .failure(StoreFileProblem(reason: "not JSON: \(failure.detail)"))
        }
        guard case .object(let top) = root else {
            return .failure(StoreFileProblem(reason: "the top level is \(root.typeName), expected an object"))
        }
        if let unknown = top.keys.sorted().first(where: { $0 != "version" && $0 != "users" }) {
            return .failure(StoreFileProblem(reason: "unknown key \(logQuoted(unknown, limit: AppIdentity.maximumIDLength)) (expected \"version\" and \"users\")"))
        }
        guard let versionValue = top["version"] else { return .failure(StoreFileProblem(reason: "no \"version\"")) }
        guard case .integer(let version) = versionValue else {
            return .failure(StoreFileProblem(reason: "\"version\" is \(versionValue.typeName), expected the number \(fileVersion)"))
        }
        guard version == fileVersion else {
            return .failure(StoreFileProblem(reason: "version \(version), this daemon reads version \(fileVersion)"))
        }
        guard let usersValue = top["users"] else { return .failure(StoreFileProblem(reason: "no \"users\"")) }
        guard case .object(let users) = usersValue else {
            return .failure(StoreFileProblem(reason: "\"users\" is \(usersValue.typeName), expected an object"))
        }
        var decisions: [UInt32: [String: AuthorizationDecision]] = [:]
        for (uidText, appsValue) in users {
            guard let uid = UInt32(uidText), String(uid) == uidText else {
                return .failure(StoreFileProblem(reason: "user key \(logQuoted(uidText, limit: AppIdentity.maximumIDLength)) is not a decimal uid"))
            }
            guard case .object(let apps) = appsValue else {
                return .failure(StoreFileProblem(reason: "\"users\".\"\(uidText)\" is \(appsValue.typeName), expected an object"))
            }
            var entries: [String: AuthorizationDecision] = [:]
            for (app, stateValue) in apps {
                do {
                    try AppIdentity.validate(id: app)
                } catch {
                    return .failure(StoreFileProblem(reason: "user \(uidText): invalid app id \(logQuoted(app, limit: AppIdentity.maximumIDLength)): \(error)"))
                }
                guard case .string(let name) = stateValue,
                      let state = AuthorizationDecision(name: name), state == .authorized || state == .denied else {
                    return .failure(StoreFileProblem(reason: "user \(uidText), app \(logQuoted(app, limit: AppIdentity.maximumIDLength)): the state must be \"authorized\" or \"denied\""))
                }
                entries[app] = state
            }
            if !entries.isEmpty { decisions[uid] = entries }
        }
        return .success(decisions)
    }

    /// Renames `file` to `<name>.damaged-<yyyyMMdd'T'HHmmss'Z'>` (with `-2`, `-3`, … when taken).
    private static func moveAside(_ file: URL) -> Result<URL, StoreFileProblem> {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        let stamp = String(
            format: "%04d%02d%02dT%02d%02d%02dZ",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec)
        )
        let base = file.path + ".damaged-" + stamp
        var candidate = base
        var suffix = 1
        var info = stat()
        while lstat(candidate, &info) == 0 {
            suffix += 1
            candidate = base + "-\(suffix)"
        }
        guard rename(file.path, candidate) == 0 else {
            return .failure(StoreFileProblem(reason: "rename: \(SmallFile.describe(errno: errno))"))
        }
        return .success(URL(fileURLWithPath: candidate))
    }
}
