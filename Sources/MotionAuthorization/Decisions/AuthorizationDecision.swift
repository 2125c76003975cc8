/// The authorization state of one app for one user, with the raw values of Apple's
/// `CMAuthorizationStatus`.
///
/// | state | meaning in `coremotiond` |
/// |---|---|
/// | ``notDetermined`` | the user has not decided (nothing stored) |
/// | ``restricted`` | the administrator's policy forbids it; the user cannot change that |
/// | ``denied`` | the user said no |
/// | ``authorized`` | the user said yes, or the policy authorizes unsandboxed apps |
///
/// Only ``authorized`` and ``denied`` are stored (``PermissionStore``); ``restricted`` comes from
/// ``AdminPolicy``. `Codable` encodes the raw value (`0…3`); the permission file uses ``name``.
public enum AuthorizationDecision: Int, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// Undecided: `CMAuthorizationStatus.notDetermined`.
    case notDetermined = 0
    /// Forbidden by the administrator: `CMAuthorizationStatus.restricted`.
    case restricted = 1
    /// Refused by the user: `CMAuthorizationStatus.denied`.
    case denied = 2
    /// Granted: `CMAuthorizationStatus.authorized`.
    case authorized = 3

    /// Apple's case name: `"notDetermined"`, `"restricted"`, `"denied"`, `"authorized"`.
    public var name: String {
        switch self {
        case .notDetermined: return "notDetermined"
        case .restricted: return "restricted"
        case .denied: return "denied"
        case .authorized: return "authorized"
        }
    }

    /// The state named `name` (``name``, compared without regard to ASCII case); `nil` for any other text.
    public init?(name: String) {
        let lowered = name.lowercased()
        guard let match = Self.allCases.first(where: { $0.name.lowercased() == lowered }) else { return nil }
        self = match
    }

    /// Same as ``name``.
    public var description: String { name }
}
