/// Why a decision could not be stored.
public enum PermissionStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The app id is not valid.
    case invalidAppID(String, AppIDError)
    /// Only ``AuthorizationDecision/authorized`` and ``AuthorizationDecision/denied`` are stored
    /// (``AuthorizationDecision/notDetermined`` removes the entry); ``AuthorizationDecision/restricted``
    /// belongs to the administrator's policy.
    case notStorable(AuthorizationDecision)
    /// Writing the file failed; the stored decisions are unchanged (in memory and on disk).
    case writeFailed(file: String, reason: String)

    public var description: String {
        switch self {
        case .invalidAppID(let id, let problem):
            return "invalid app id \(String(reflecting: id)): \(problem)"
        case .notStorable(let decision):
            return "\(decision.name) cannot be stored: \"restricted\" comes only from the administrator's policy (/etc/coremotion/policy.json)"
        case .writeFailed(let file, let reason):
            return "could not write \(file): \(reason)"
        }
    }
}
