/// Why the administrator's policy file cannot be used. Every case names the file; field problems
/// name the key.
public enum AdminPolicyError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but cannot be read (permissions, I/O, not a regular file, too large).
    case unreadable(file: String, reason: String)
    /// The file is not a JSON object.
    case malformed(file: String, reason: String)
    /// A key the policy does not know (a typo would otherwise silently weaken the policy).
    case unknownKey(file: String, key: String, accepted: [String])
    /// A key holds a value of the wrong type.
    case wrongType(file: String, key: String, expected: String, found: String)
    /// One entry of a list is not acceptable (an empty name, a uid out of range, an invalid app id).
    case invalidEntry(file: String, key: String, index: Int, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            return "\(file): cannot be read: \(reason)"
        case .malformed(let file, let reason):
            return "\(file): \(reason)"
        case .unknownKey(let file, let key, let accepted):
            return "\(file): unknown key \(logQuoted(key)); accepted keys: \(accepted.joined(separator: ", "))"
        case .wrongType(let file, let key, let expected, let found):
            return "\(file): \"\(key)\" must be \(expected), found \(found)"
        case .invalidEntry(let file, let key, let index, let reason):
            return "\(file): \"\(key)\"[\(index)]: \(reason)"
        }
    }
}
