import Foundation
import Glibc

extension AppIdentity {
    /// Bytes read at most from `.flatpak-info` (real ones are a few KiB).
    static let flatpakInfoLimit = 256 * 1024
    /// Bytes read at most from an AppArmor label file.
    static let labelLimit = 4096
    /// Bytes read at most from `/proc/<pid>/cgroup` and `/proc/<pid>/stat`.
    static let procTextLimit = 64 * 1024

    /// Identifies the app of process `pid` from the kernel's view of it under `procRoot`.
    ///
    /// The sources are tried in this order; the first that applies decides:
    ///
    /// 1. **Flatpak**: `<procRoot>/<pid>/root/.flatpak-info` (opened without following a final symbolic
    ///    link, never a FIFO or device, at most 256 KiB). Present and valid → ``Kind/flatpak`` with the
    ///    `name` of `[Application]` (see ``ProcessIdentityParser/flatpakAppID(fromInfo:)``). Present but
    ///    unusable (not a regular file, too large, not UTF-8, a NUL byte, no valid name) → unidentified,
    ///    kind ``Kind/flatpak``, sandboxed: the process is in a sandbox we cannot name, and must not be
    ///    taken for a host app.
    /// 2. **Snap**: the AppArmor label in `<procRoot>/<pid>/attr/apparmor/current`, else
    ///    `<procRoot>/<pid>/attr/current` (at most 4 KiB). `snap.spotify.spotify (enforce)` →
    ///    ``Kind/snap`` with id `snap.spotify`; a label starting with `snap.` but malformed →
    ///    unidentified, kind ``Kind/snap``, sandboxed; anything else (no AppArmor, `unconfined`,
    ///    another profile) → next source. See ``ProcessIdentityParser/snapLabel(_:)``.
    /// 3. **systemd app unit**: the unit in `<procRoot>/<pid>/cgroup` (at most 64 KiB), when it follows the
    ///    `app[-<launcher>]-<AppID>…` convention → ``Kind/systemdScope`` with `<AppID>`. See
    ///    ``ProcessIdentityParser/systemdAppID(fromUnit:)``.
    /// 4. **Executable**: the file name of `readlink <procRoot>/<pid>/exe`, a ` (deleted)` suffix removed
    ///    → ``Kind/executable``.
    /// 5. Nothing usable (the process is gone, a kernel thread, a read was refused, an unreadable
    ///    `.flatpak-info`, an executable name that is not a valid id) → `unknown-pid-<pid>`,
    ///    ``Kind/executable``, not sandboxed, ``isIdentified`` false.
    ///
    /// ``executable`` is filled whenever the `exe` link could be read, whatever the kind.
    ///
    /// When `<procRoot>/<pid>/stat` can be read before and after, and the process's start time
    /// differs, the pid was reused by another process while reading: the result is unidentified.
    ///
    /// Never throws and never crashes: every file is treated as hostile input.
    ///
    /// - Parameters:
    ///   - pid: the peer's pid from `SO_PEERCRED`.
    ///   - procRoot: the procfs mount (tests pass a folder that imitates it).
    public static func identify(pid: Int32, procRoot: String = "/proc") -> AppIdentity {
        guard pid > 0 else { return .unidentified(pid: pid) }
        let base = procRoot.hasSuffix("/") ? procRoot + String(pid) : procRoot + "/" + String(pid)
        let startedBefore = startTime(base: base)
        let identity = identifyOnce(pid: pid, base: base)
        let startedAfter = startTime(base: base)
        guard startedBefore == startedAfter else { return .unidentified(pid: pid) }
        return identity
    }

    private static func identifyOnce(pid: Int32, base: String) -> AppIdentity {
        let executable = SmallFile.readLink(base + "/exe").flatMap(ProcessIdentityParser.executableID(fromLinkTarget:))

        // 1. Flatpak.
        switch SmallFile.read(base + "/root/.flatpak-info", limit: flatpakInfoLimit, followFinalSymlink: false) {
        case .missing:
            break
        case .contents(let bytes):
            guard let text = cleanText(bytes), let id = ProcessIdentityParser.flatpakAppID(fromInfo: text) else {
                return .unidentified(pid: pid, kind: .flatpak, executable: executable?.path, isSandboxed: true)
            }
            return AppIdentity(id: id, kind: .flatpak, executable: executable?.path, isSandboxed: true)
        case .notRegularFile, .tooLarge:
            return .unidentified(pid: pid, kind: .flatpak, executable: executable?.path, isSandboxed: true)
        case .failed:
            // We cannot tell whether the process is sandboxed (permission refused, I/O error).
            return .unidentified(pid: pid, executable: executable?.path)
        }

        // 2. Snap.
        for file in ["/attr/apparmor/current", "/attr/current"] {
            guard case .contents(let bytes) = SmallFile.read(base + file, limit: labelLimit) else { continue }
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            switch ProcessIdentityParser.snapLabel(text) {
            case .snap(let id):
                return AppIdentity(id: id, kind: .snap, executable: executable?.path, isSandboxed: true)
            case .malformedSnap:
                return .unidentified(pid: pid, kind: .snap, executable: executable?.path, isSandboxed: true)
            case .notSnap:
                break
            }
            break
        }

        // 3. systemd app scope or service.
        if case .contents(let bytes) = SmallFile.read(base + "/cgroup", limit: procTextLimit),
           let text = cleanText(bytes),
           let unit = ProcessIdentityParser.systemdUnit(fromCgroup: text),
           let id = ProcessIdentityParser.systemdAppID(fromUnit: unit) {
            return AppIdentity(id: id, kind: .systemdScope, executable: executable?.path, isSandboxed: false)
        }

        // 4. Executable.
        if let executable {
            return AppIdentity(id: executable.id, kind: .executable, executable: executable.path, isSandboxed: false)
        }
        return .unidentified(pid: pid)
    }

    private static func startTime(base: String) -> UInt64? {
        guard case .contents(let bytes) = SmallFile.read(base + "/stat", limit: procTextLimit),
              let text = cleanText(bytes) else { return nil }
        return ProcessIdentityParser.processStartTime(fromStat: text)
    }

    /// UTF-8 text without NUL bytes, or `nil`.
    private static func cleanText(_ bytes: [UInt8]) -> String? {
        guard !bytes.contains(0) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
