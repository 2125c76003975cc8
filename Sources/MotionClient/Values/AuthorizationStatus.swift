import Foundation

/// Whether this process may have motion data, with `CMAuthorizationStatus`'s raw values.
public enum AuthorizationStatus: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Nobody decided yet.
    case notDetermined = 0
    /// An administrator's policy forbids it.
    case restricted = 1
    /// The user said no.
    case denied = 2
    /// The user said yes.
    case authorized = 3

    public var description: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .restricted: "restricted"
        case .denied: "denied"
        case .authorized: "authorized"
        }
    }

    /// Parses a name as written in `COREMOTION_AUTHORIZATION` (case-insensitive).
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description.lowercased() == name.lowercased() }) else { return nil }
        self = match
    }
}

/// Why a provider could not answer.
public enum MotionProviderError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The history cannot be read or written (the reason says why).
    case historyUnavailable(String)
    /// The user or the administrator has not authorized this app for the operation.
    case notAuthorized(AuthorizationStatus, String)
    /// The device lacks what the operation needs.
    case notAvailable(String)
    /// A parameter is out of range.
    case invalidParameter(String)
    /// The system service is not reachable or broke the protocol.
    case serviceUnavailable(String)

    public var description: String {
        switch self {
        case .historyUnavailable(let reason): "the motion history is unavailable: \(reason)"
        case .notAuthorized(let status, let reason): "not authorized (\(status)): \(reason)"
        case .notAvailable(let reason): "not available: \(reason)"
        case .invalidParameter(let reason): "invalid parameter: \(reason)"
        case .serviceUnavailable(let reason): "the motion service is unavailable: \(reason)"
        }
    }
}
