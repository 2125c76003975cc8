/// Why a string cannot be an app id (the key decisions are stored under).
public enum AppIDError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The id is empty.
    case empty
    /// The id is longer than ``AppIdentity/maximumIDLength`` bytes of UTF-8.
    case tooLong(bytes: Int)
    /// The id contains a control character or a line break (U+0000–U+001F, U+007F–U+009F, U+0085,
    /// U+2028, U+2029) at this offset, counted in Unicode scalars.
    case controlCharacter(offset: Int)
    /// The id starts with `unknown-pid-`, the prefix of processes that could not be identified
    /// (``AppIdentity/unidentifiedPrefix``); no decision can be stored for them.
    case reserved

    public var description: String {
        switch self {
        case .empty:
            return "an app id must not be empty"
        case .tooLong(let bytes):
            return "an app id must be at most \(AppIdentity.maximumIDLength) bytes of UTF-8 (this one has \(bytes))"
        case .controlCharacter(let offset):
            return "an app id must not contain control characters or line breaks (one at character \(offset))"
        case .reserved:
            return "app ids starting with \"\(AppIdentity.unidentifiedPrefix)\" are reserved for processes that could not be identified"
        }
    }
}

extension AppIdentity {
    /// The longest app id, in bytes of UTF-8.
    public static let maximumIDLength = 255

    /// The prefix of the id given to a process that could not be identified: `unknown-pid-<pid>`.
    public static let unidentifiedPrefix = "unknown-pid-"

    /// Checks that `id` can be an app id: non-empty, at most ``maximumIDLength`` bytes of UTF-8, no
    /// control character or line break, not starting with ``unidentifiedPrefix``.
    public static func validate(id: String) throws(AppIDError) {
        if id.isEmpty { throw .empty }
        let bytes = id.utf8.count
        if bytes > maximumIDLength { throw .tooLong(bytes: bytes) }
        for (offset, scalar) in id.unicodeScalars.enumerated() where isForbidden(scalar) {
            throw .controlCharacter(offset: offset)
        }
        if id.hasPrefix(unidentifiedPrefix) { throw .reserved }
    }

    /// True when `id` passes ``validate(id:)``.
    public static func isValid(id: String) -> Bool {
        do {
            try validate(id: id)
            return true
        } catch {
            return false
        }
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default: return false
        }
    }
}
