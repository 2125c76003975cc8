import MotionSamples

/// The app a client process belongs to, as the daemon derives it from the kernel (never from what the
/// client says about itself).
///
/// ``id`` is the key under which the user's decisions are stored. It comes from, in this order:
///
/// | source | ``Kind`` | ``id`` | example |
/// |---|---|---|---|
/// | `/proc/<pid>/root/.flatpak-info`, `name=` in `[Application]` | ``Kind/flatpak`` | the Flatpak app id | `org.gnome.Maps` |
/// | AppArmor label `snap.<snap>.<app>` | ``Kind/snap`` | `snap.<snap>` (one id per snap, all its apps) | `snap.spotify` |
/// | systemd unit `app[-<launcher>]-<AppID>…` in `/proc/<pid>/cgroup` | ``Kind/systemdScope`` | the `<AppID>` | `org.gnome.Maps` |
/// | `/proc/<pid>/exe` | ``Kind/executable`` | the executable's file name | `CompatClients` |
///
/// A process that cannot be identified (gone, unreadable, a sandbox marker that is present but
/// damaged) gets the id `unknown-pid-<pid>` (``isIdentified`` is false); no decision is ever stored
/// or read for such an id, so it reads `.notDetermined` (or `.restricted` by policy).
/// See ``identify(pid:procRoot:)`` for every rule.
///
/// The app-identity hint a client sends in its hello message is only shown in logs
/// (``displayName(hint:)``): an app must not be able to claim another app's decisions.
public struct AppIdentity: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Where the identity came from.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// A Flatpak sandbox: the app id from `.flatpak-info` in the process's root.
        case flatpak
        /// A Snap confined by AppArmor: `snap.<snap name>` from the AppArmor label.
        case snap
        /// An unsandboxed app that a desktop launcher placed in a systemd app scope or service
        /// (`app-gnome-org.gnome.Maps-12345.scope`): the app id from the unit name.
        case systemdScope
        /// Any other process: the file name of its executable.
        case executable
    }

    /// The key decisions are stored under (1…255 bytes of UTF-8, no control characters).
    public var id: String
    /// Where ``id`` came from.
    public var kind: Kind
    /// The resolved path of the process's executable (`/proc/<pid>/exe`, without a ` (deleted)`
    /// suffix), when it could be read. Inside a sandbox this is the path in the sandbox
    /// (`/app/bin/gnome-maps`).
    public var executable: String?
    /// True for Flatpak and Snap: the process runs in a sandbox that it cannot leave, so the
    /// identity is trustworthy. False for everything a process of the same user could imitate.
    public var isSandboxed: Bool

    /// An identity with these values (tests and tools; the daemon uses ``identify(pid:procRoot:)``).
    public init(id: String, kind: Kind, executable: String? = nil, isSandboxed: Bool) {
        self.id = id
        self.kind = kind
        self.executable = executable
        self.isSandboxed = isSandboxed
    }

    /// The identity of a process that could not be identified: `unknown-pid-<pid>`.
    public static func unidentified(pid: Int32, kind: Kind = .executable, executable: String? = nil, isSandboxed: Bool = false) -> AppIdentity {
        AppIdentity(id: unidentifiedPrefix + String(pid), kind: kind, executable: executable, isSandboxed: isSandboxed)
    }

    /// False for `unknown-pid-<pid>` identities: no decision is stored or read for them.
    public var isIdentified: Bool { !id.hasPrefix(Self.unidentifiedPrefix) }

    /// `org.gnome.Maps [flatpak]`, for logs: the id comes from `/proc` (an executable's name, a unit
    /// name, a sandbox's metadata), so it is made log-safe (``LogSafeText/logSafe(_:limit:)``: control,
    /// bidirectional and other invisible format characters escaped; whole up to 255 characters).
    public var description: String { "\(LogSafeText.logSafe(id, limit: Self.maximumIDLength)) [\(kind.rawValue)]" }

    /// The executable's path made safe for a log line (``LogSafeText/logSafe(_:limit:)``), or `nil`.
    public var logSafeExecutable: String? { executable.map { LogSafeText.logSafe($0, limit: 4096) } }

    /// A name for logs: the kernel-derived id and kind, and the client's own hint when it differs
    /// from the id.
    ///
    /// The hint is the app identity the client claims in its hello message. It is never used for a
    /// decision, only shown here, made log-safe (``LogSafeText/logSafe(_:limit:)``) and cut to 64
    /// characters: `CompatClients [executable, hint "com.example.Compat"]`.
    public func displayName(hint: String?) -> String {
        guard let hint, !hint.isEmpty, hint != id else { return description }
        return "\(LogSafeText.logSafe(id, limit: Self.maximumIDLength)) [\(kind.rawValue), hint \(logQuoted(hint, limit: 64))]"
    }
}
