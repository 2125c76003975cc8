/// Why a decision could not be stored.
public enum PermissionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The app id is not valid.
    case invalidAppID(String, AppIDError)
    /// Only ``AuthorizationDecision/authorized`` and ``AuthorizationDecision/denied`` are stored
    /// (``AuthorizationDecision/notDetermined`` removes the entry); ``AuthorizationDecision/restricted``
    /// belongs to the administrator's policy.
    case notStorable(AuthorizationDecision)
    /// The user already keeps `limit` decisions (``PermissionStore/Limits/decisionsPerUser``, 256 by
    /// default); a new one is refused (changing or resetting a stored one is not).
    case userQuotaFull(uid: UInt32, limit: Int)
    /// All users together already keep `limit` decisions (``PermissionStore/Limits/decisions``, 16,384
    /// by default); a new one is refused.
    case storeFull(limit: Int)
    /// Writing the file failed; the stored decisions are unchanged (in memory and on disk).
    case writeFailed(file: String, reason: String)

    public var description: String {
        switch self {
        case .invalidAppID(let id, let problem):
            return "invalid app id \(logQuoted(id, limit: AppIdentity.maximumIDLength)): \(problem)"
        case .notStorable(let decision):
            return "\(decision.name) cannot be stored: \"restricted\" comes only from the administrator's policy (/etc/coremotion/policy.json)"
        case .userQuotaFull(let uid, let limit):
            return "user \(uid) already keeps \(limit) decisions, the most one user may keep; nothing was stored: remove one first (`coremotion permissions reset APP`)"
        case .storeFull(let limit):
            return "the permission store already keeps \(limit) decisions, the most it keeps for all users together; nothing was stored: the administrator can remove unused decisions (`coremotion permissions reset APP --user UID`)"
        case .writeFailed(let file, let reason):
            return "could not write \(file): \(reason)"
        }
    }
}
