import Foundation

/// The administrator's rules, read from a JSON file (``defaultPath``: `/etc/coremotion/policy.json`).
///
/// ```json
/// {
///   "restrictedUsers": ["guest", "1001"],
///   "restrictedGroups": ["kiosk"],
///   "restrictedApps": ["com.example.Tracker"],
///   "allowedUsers": ["alice", "bob", "root"],
///   "liveMotionWhenNotDetermined": true,
///   "authorizeUnsandboxedApps": false,
///   "historyReaderUsers": ["root", "alice"],
///   "historyReaderGroups": ["coremotion-history"]
/// }
/// ```
///
/// **Machine history** (the pedometer, activity and sensor-recorder history the system instance records
/// from the machine's own sensors) belongs to the machine, not to whoever asks: the sensors cannot tell
/// who carried the device. Only the administrator decides who may read it, with `historyReaderUsers`
/// and `historyReaderGroups` (defaults ``defaultHistoryReaderUsers``: root, and
/// ``defaultHistoryReaderGroups``: members of `coremotion-history`). A user's own `authorized` decision
/// gives their app live updates; it opens history only when the policy also names the user
/// (``AuthorizationAuthority/allowsHistory(status:peer:)``).
///
/// Every key is optional; a missing file is the default policy (nobody restricted). Users and groups
/// are names or numeric ids: an entry of decimal digits only is an id, anything else a name (looked up
/// with `getpwnam_r`/`getgrnam_r` at each check, so accounts created later are matched without a
/// restart). A name that matches no account or group is reported by ``unknownNames(in:)`` (the
/// ``AuthorizationAuthority`` logs it as a warning) and matches nobody: the daemon keeps running, a
/// typo in `restrictedUsers` restricts nobody, a typo in `allowedUsers` admits nobody more.
///
/// Unknown keys, wrong types and bad entries are errors (``AdminPolicyError``): a policy the daemon
/// cannot read exactly must not be half-applied.
public struct AdminPolicy: Sendable, Hashable, Codable {
    /// `/etc/coremotion/policy.json`.
    public static let defaultPath = "/etc/coremotion/policy.json"
    /// Files larger than this (1 MiB) are refused.
    public static let maximumFileSize = 1024 * 1024

    /// Users (names or uids) that are restricted: every app reads `restricted` for them.
    public var restrictedUsers: [String]
    /// Groups (names or gids): a user is restricted when any of their groups (primary, supplementary
    /// from the group database via `getgrouplist`, or the effective gid of the connecting process) is
    /// listed.
    public var restrictedGroups: [String]
    /// App ids (``AppIdentity/id``) that are restricted for every user.
    public var restrictedApps: [String]
    /// When present, only these users (names or uids) may use the service at all; everyone else,
    /// root included, is restricted. `nil` (the default): every user may.
    public var allowedUsers: [String]?
    /// Live pedometer, activity and altitude updates flow to an undecided app (default true, as on
    /// iOS once the user has answered the prompt); history still needs `authorized`.
    public var liveMotionWhenNotDetermined: Bool
    /// An unsandboxed app with no stored decision reads `authorized` (default false). Sandboxed apps
    /// (Flatpak, Snap) are never authorized by this.
    public var authorizeUnsandboxedApps: Bool
    /// Users (names or uids) who may read the machine's history; `nil` (the default):
    /// ``defaultHistoryReaderUsers`` (root only). A list replaces the default: root is not added to it.
    public var historyReaderUsers: [String]?
    /// Groups (names or gids) whose members may read the machine's history; `nil` (the default):
    /// ``defaultHistoryReaderGroups`` (`coremotion-history`). Membership is what the group database
    /// says (primary group and `getgrouplist`), never the group of the connecting process alone.
    public var historyReaderGroups: [String]?

    /// The history readers when `historyReaderUsers` is absent: `["0"]`, root.
    public static let defaultHistoryReaderUsers = ["0"]
    /// The history-reader groups when `historyReaderGroups` is absent: `["coremotion-history"]`. The
    /// group is not the socket's group (`coremotion`): being allowed to connect gives live motion, not
    /// the machine's history. When the group does not exist it matches nobody (only root reads).
    public static let defaultHistoryReaderGroups = ["coremotion-history"]

    /// `historyReaderUsers`, or its default.
    public var effectiveHistoryReaderUsers: [String] { historyReaderUsers ?? Self.defaultHistoryReaderUsers }
    /// `historyReaderGroups`, or its default.
    public var effectiveHistoryReaderGroups: [String] { historyReaderGroups ?? Self.defaultHistoryReaderGroups }

    /// A policy with these values; the defaults are the default policy.
    public init(
        restrictedUsers: [String] = [],
        restrictedGroups: [String] = [],
        restrictedApps: [String] = [],
        allowedUsers: [String]? = nil,
        liveMotionWhenNotDetermined: Bool = true,
        authorizeUnsandboxedApps: Bool = false,
        historyReaderUsers: [String]? = nil,
        historyReaderGroups: [String]? = nil
    ) {
        self.restrictedUsers = restrictedUsers
        self.restrictedGroups = restrictedGroups
        self.restrictedApps = restrictedApps
        self.allowedUsers = allowedUsers
        self.liveMotionWhenNotDetermined = liveMotionWhenNotDetermined
        self.authorizeUnsandboxedApps = authorizeUnsandboxedApps
        self.historyReaderUsers = historyReaderUsers
        self.historyReaderGroups = historyReaderGroups
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case restrictedUsers, restrictedGroups, restrictedApps, allowedUsers
        case liveMotionWhenNotDetermined, authorizeUnsandboxedApps
        case historyReaderUsers, historyReaderGroups
    }

    /// The keys a policy file may hold, sorted.
    public static let acceptedKeys: [String] = CodingKeys.allCases.map(\.rawValue).sorted()

    // MARK: - Reading

    /// Reads the policy in `path`; a missing file (or folder) is the default policy.
    ///
    /// - Throws: ``AdminPolicyError`` naming the file and, for field problems, the key.
    public static func load(from path: String = defaultPath) throws(AdminPolicyError) -> AdminPolicy {
        switch SmallFile.read(path, limit: maximumFileSize) {
        case .missing:
            return AdminPolicy()
        case .contents(let bytes):
            return try parse(Data(bytes), file: path)
        case .tooLarge:
            throw .unreadable(file: path, reason: "larger than \(maximumFileSize) bytes")
        case .notRegularFile:
            throw .unreadable(file: path, reason: "not a regular file")
        case .failed(let code):
            throw .unreadable(file: path, reason: SmallFile.describe(errno: code))
        }
    }

    /// Parses the text of a policy file; `file` names it in errors.
    public static func parse(_ data: Data, file: String) throws(AdminPolicyError) -> AdminPolicy {
        switch JSONValue.parse(data) {
        case .success(let value):
            return try parse(value, file: file)
        case .failure(let failure):
            throw .malformed(file: file, reason: "not JSON: \(failure.detail)")
        }
    }

    /// Decodes a policy with the same checks as ``load(from:)`` (errors are ``AdminPolicyError`` with
    /// the file named `(decoded policy)`).
    public init(from decoder: any Decoder) throws {
        self = try Self.parse(JSONValue(from: decoder), file: "(decoded policy)")
    }

    private static func parse(_ root: JSONValue, file: String) throws(AdminPolicyError) -> AdminPolicy {
        guard case .object(let fields) = root else {
            throw .malformed(file: file, reason: "the top level is \(root.typeName), expected an object")
        }
        if let unknown = fields.keys.sorted().first(where: { !acceptedKeys.contains($0) }) {
            throw .unknownKey(file: file, key: unknown, accepted: acceptedKeys)
        }
        var policy = AdminPolicy()
        for (key, value) in fields {
            switch CodingKeys(rawValue: key)! {
            case .restrictedUsers:
                policy.restrictedUsers = try accountList(value, key: key, file: file, kind: "user", idName: "uid")
            case .restrictedGroups:
                policy.restrictedGroups = try accountList(value, key: key, file: file, kind: "group", idName: "gid")
            case .allowedUsers:
                if case .null = value { continue }
                policy.allowedUsers = try accountList(value, key: key, file: file, kind: "user", idName: "uid")
            case .restrictedApps:
                policy.restrictedApps = try appList(value, key: key, file: file)
            case .liveMotionWhenNotDetermined:
                policy.liveMotionWhenNotDetermined = try boolean(value, key: key, file: file)
            case .authorizeUnsandboxedApps:
                policy.authorizeUnsandboxedApps = try boolean(value, key: key, file: file)
            case .historyReaderUsers:
                if case .null = value { continue }
                policy.historyReaderUsers = try accountList(value, key: key, file: file, kind: "user", idName: "uid")
            case .historyReaderGroups:
                if case .null = value { continue }
                policy.historyReaderGroups = try accountList(value, key: key, file: file, kind: "group", idName: "gid")
            }
        }
        return policy
    }

    private static func boolean(_ value: JSONValue, key: String, file: String) throws(AdminPolicyError) -> Bool {
        guard case .bool(let flag) = value else {
            throw .wrongType(file: file, key: key, expected: "true or false", found: value.typeName)
        }
        return flag
    }

    /// Names (strings) or ids (decimal strings or JSON integers) of users or groups.
    private static func accountList(_ value: JSONValue, key: String, file: String, kind: String, idName: String) throws(AdminPolicyError) -> [String] {
        let expected = "an array of \(kind) names or numeric \(idName)s"
        guard case .array(let items) = value else {
            throw .wrongType(file: file, key: key, expected: expected, found: value.typeName)
        }
        var entries: [String] = []
        for (index, item) in items.enumerated() {
            switch item {
            case .integer(let number):
                guard number >= 0, number < Int64(UInt32.max) else {
                    throw .invalidEntry(file: file, key: key, index: index, reason: "\(number) is not a valid \(idName) (0…\(UInt32.max - 1))")
                }
                entries.append(String(number))
            case .string(let text):
                if text.isEmpty {
                    throw .invalidEntry(file: file, key: key, index: index, reason: "an empty \(kind) name")
                }
                if text.unicodeScalars.contains(where: AppIdentity.isForbidden) || text.utf8.count > 255 {
                    throw .invalidEntry(file: file, key: key, index: index, reason: "\(logQuoted(text)) is not a \(kind) name (control characters, or longer than 255 bytes)")
                }
                if text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
                    guard let id = UInt32(text), id < UInt32.max else {
                        throw .invalidEntry(file: file, key: key, index: index, reason: "\(text) is not a valid \(idName) (0…\(UInt32.max - 1))")
                    }
                    entries.append(String(id))
                } else {
                    entries.append(text)
                }
            default:
                throw .wrongType(file: file, key: key, expected: expected, found: "\(item.typeName) at index \(index)")
            }
        }
        return entries
    }

    private static func appList(_ value: JSONValue, key: String, file: String) throws(AdminPolicyError) -> [String] {
        guard case .array(let items) = value else {
            throw .wrongType(file: file, key: key, expected: "an array of app ids", found: value.typeName)
        }
        var ids: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let id) = item else {
                throw .wrongType(file: file, key: key, expected: "an array of app ids", found: "\(item.typeName) at index \(index)")
            }
            do {
                try AppIdentity.validate(id: id)
            } catch {
                throw .invalidEntry(file: file, key: key, index: index, reason: error.description)
            }
            ids.append(id)
        }
        return ids
    }

    // MARK: - Names

    /// The user and group names the policy file lists that match no account or group in `database`,
    /// as `restrictedUsers: "bob" (no such user)`, made safe for a log line. Such names match nobody.
    /// Defaults (``defaultHistoryReaderGroups``) are not reported.
    public func unknownNames(in database: any UserDatabase) -> [String] {
        var unknown: [String] = []
        let userLists = [
            ("restrictedUsers", restrictedUsers), ("allowedUsers", allowedUsers ?? []), ("historyReaderUsers", historyReaderUsers ?? []),
        ]
        for (key, list) in userLists {
            for entry in list where Self.numericID(entry) == nil && database.user(named: entry) == nil {
                unknown.append("\(key): \(logQuoted(entry)) (no such user)")
            }
        }
        for (key, list) in [("restrictedGroups", restrictedGroups), ("historyReaderGroups", historyReaderGroups ?? [])] {
            for entry in list where Self.numericID(entry) == nil && database.groupID(named: entry) == nil {
                unknown.append("\(key): \(logQuoted(entry)) (no such group)")
            }
        }
        return unknown
    }

    /// The id an entry of decimal digits stands for; `nil` for a name.
    static func numericID(_ entry: String) -> UInt32? {
        guard !entry.isEmpty, entry.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return UInt32(entry)
    }
}
