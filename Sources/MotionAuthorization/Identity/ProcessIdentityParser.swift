import Foundation

/// The parsers behind ``AppIdentity/identify(pid:procRoot:)``, one per source, each taking the text of
/// one file (or a unit name) and giving an app id or `nil`.
///
/// All input is hostile: a sandboxed app writes its own files and, through user namespaces, can even
/// build its own root folder. Every parser accepts only the documented shape and answers `nil` for
/// anything else (junk, ambiguity, duplicates, ids that fail ``AppIdentity/validate(id:)``).
public enum ProcessIdentityParser {
    // MARK: - Flatpak

    /// The app id in the text of a `.flatpak-info` file (GLib key-file syntax): the `name` key of the
    /// `[Application]` group, or, for a sandbox running a bare runtime, of the `[Runtime]` group.
    ///
    /// Blank lines and `#` comments are skipped; spaces around `=` are ignored; localized keys
    /// (`name[de]=`) are not the name. `nil` when a line is neither a group, a comment nor `key=value`,
    /// when the group holds `name` twice, or when the value is not a valid D-Bus-style name (elements
    /// of `A–Z a–z 0–9 _ -` separated by dots, at least two elements, none empty or starting with a
    /// digit, at most 255 bytes), which is what Flatpak requires of app ids.
    public static func flatpakAppID(fromInfo text: String) -> String? {
        var group: String?
        var applicationName: String?
        var runtimeName: String?
        for rawLine in lines(text) {
            let line = rawLine.drop(while: { $0 == " " || $0 == "\t" })
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let trimmed = trimmingSpaces(line)
                guard trimmed.hasSuffix("]"), trimmed.count >= 3 else { return nil }
                group = String(trimmed.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { return nil }
            let key = trimmingSpaces(line[..<equals])
            let value = trimmingSpaces(line[line.index(after: equals)...])
            guard key == "name" else { continue }
            switch group {
            case "Application":
                guard applicationName == nil else { return nil }
                applicationName = String(value)
            case "Runtime":
                guard runtimeName == nil else { return nil }
                runtimeName = String(value)
            default:
                continue
            }
        }
        guard let name = applicationName ?? runtimeName, isDBusStyleName(name) else { return nil }
        return name
    }

    /// True for a D-Bus-style well-known name: elements of `A–Z a–z 0–9 _ -` separated by dots, at
    /// least two elements, none empty or starting with a digit, at most 255 bytes.
    public static func isDBusStyleName(_ name: String) -> Bool {
        guard name.utf8.count <= 255 else { return false }
        let elements = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard elements.count >= 2 else { return false }
        for element in elements {
            guard let first = element.first, !isDigit(first) else { return false }
            guard element.allSatisfy({ isASCIILetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }) else {
                return false
            }
        }
        return true
    }

    // MARK: - Snap

    /// What an AppArmor label says about Snap confinement.
    public enum SnapLabel: Sendable, Hashable {
        /// Not a snap's label (`unconfined`, another profile, an SELinux context, junk).
        case notSnap
        /// A snap's app or hook: the id `snap.<snap instance>`.
        case snap(id: String)
        /// A label that starts like a snap's (`snap.`) but does not have its shape: a sandbox that
        /// cannot be named.
        case malformedSnap
    }

    /// Reads a label from `/proc/<pid>/attr/apparmor/current` or `/proc/<pid>/attr/current`.
    ///
    /// The label is `snap.<snap>[_<instance key>].<app>` or `snap.<snap>[_<instance key>].hook.<hook>`,
    /// followed by the mode (` (enforce)`, ` (complain)`); trailing NULs and line breaks are dropped.
    /// Stacked labels (`A//&B`, each possibly with a `:namespace:` prefix, as seen from the host for
    /// a snap inside an LXD container) are checked part by part; a child profile (`snap.x.y//child`)
    /// counts as its parent. The id is `snap.<snap>[_<instance key>]`: every app and hook of one snap
    /// (one instance of a parallel install) shares one set of decisions, as snap interfaces are
    /// granted per snap, and the `snap.` prefix keeps it apart from an unsandboxed executable
    /// of the same name.
    ///
    /// Snap names: 1–40 of `a–z 0–9 -`, with a letter, no leading, trailing or double hyphen; the
    /// instance key: 1–10 of `a–z 0–9`; the app or hook name: 1–255 of `A–Z a–z 0–9 -`.
    public static func snapLabel(_ text: String) -> SnapLabel {
        var label = Substring(text)
        while let last = label.last, last == "\0" || last.isWhitespace { label = label.dropLast() }  // "\r\n" is one Character
        if label.hasSuffix(")"), let open = label.range(of: " (", options: .backwards) {
            label = label[..<open.lowerBound]
        }
        var sawMalformed = false
        for part in label.components(separatedBy: "//&") {
            var profile = Substring(part)
            if profile.hasPrefix(":") {
                // `:namespace:` or `:namespace//subnamespace:` before the profile.
                guard let close = profile.dropFirst().firstIndex(of: ":") else { continue }
                profile = profile[profile.index(after: close)...]
            }
            if let child = profile.range(of: "//") { profile = profile[..<child.lowerBound] }
            guard profile.hasPrefix("snap.") else { continue }
            if let id = snapID(fromProfile: profile) { return .snap(id: id) }
            sawMalformed = true
        }
        return sawMalformed ? .malformedSnap : .notSnap
    }

    private static func snapID(fromProfile profile: Substring) -> String? {
        let parts = profile.split(separator: ".", omittingEmptySubsequences: false)
        // snap . <instance> . <app>   or   snap . <instance> . hook . <hook>
        guard parts.count == 3 || (parts.count == 4 && parts[2] == "hook") else { return nil }
        let instance = parts[1]
        let app = parts[parts.count - 1]
        guard !app.isEmpty, app.utf8.count <= 255,
              app.utf8.allSatisfy({ isASCIILetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) else { return nil }
        let pieces = instance.split(separator: "_", omittingEmptySubsequences: false)
        guard pieces.count == 1 || pieces.count == 2 else { return nil }
        guard isSnapName(pieces[0]) else { return nil }
        if pieces.count == 2 {
            let key = pieces[1]
            guard (1...10).contains(key.utf8.count),
                  key.utf8.allSatisfy({ isLowercaseLetter($0) || isDigit($0) }) else { return nil }
        }
        return "snap." + instance
    }

    private static func isSnapName(_ name: Substring) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...40).contains(bytes.count), bytes.contains(where: isLowercaseLetter) else { return false }
        guard bytes.first != UInt8(ascii: "-"), bytes.last != UInt8(ascii: "-") else { return false }
        guard bytes.allSatisfy({ isLowercaseLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") }) else { return false }
        return !name.contains("--")
    }

    // MARK: - systemd

    /// The systemd unit a process belongs to, from the text of `/proc/<pid>/cgroup`.
    ///
    /// The path is taken from the unified-hierarchy line (`0::/…`), or, on a legacy cgroup-v1 system
    /// without one, from the `name=systemd` line. Below the user manager (`user@<uid>.service`, when
    /// present), the first path element ending in `.service` or `.scope` is the unit (as systemd's
    /// own `sd_pid_get_user_unit` sees it): `…/app.slice/app-gnome-org.gnome.Maps-12345.scope` gives
    /// `app-gnome-org.gnome.Maps-12345.scope`. `nil` when there is no such element.
    public static func systemdUnit(fromCgroup text: String) -> String? {
        var unifiedPath: Substring?
        var legacyPath: Substring?
        for line in lines(text) {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { continue }
            if fields[0] == "0" && fields[1].isEmpty {
                if unifiedPath == nil { unifiedPath = fields[2] }
            } else if fields[1].split(separator: ",").contains("name=systemd") {
                if legacyPath == nil { legacyPath = fields[2] }
            }
        }
        for path in [unifiedPath, legacyPath].compactMap({ $0 }) {
            if let unit = unit(inCgroupPath: path) { return unit }
        }
        return nil
    }

    private static func unit(inCgroupPath path: Substring) -> String? {
        let elements = path.split(separator: "/")
        var start = elements.startIndex
        if let manager = elements.lastIndex(where: { $0.hasPrefix("user@") && $0.hasSuffix(".service") }) {
            start = elements.index(after: manager)
        }
        guard start < elements.endIndex else { return nil }
        return elements[start...].first(where: { $0.hasSuffix(".service") || $0.hasSuffix(".scope") }).map(String.init)
    }

    /// The app id in a systemd unit name that follows the desktop-environment convention
    /// (systemd.io/DESKTOP_ENVIRONMENTS): `app[-<launcher>]-<AppID>-<RANDOM>.scope`,
    /// `app[-<launcher>]-<AppID>@<RANDOM>.scope`, or `app[-<launcher>]-<AppID>[@<RANDOM>].service`.
    ///
    /// Dashes inside the launcher and the app id are escaped as `\x2d` (systemd's unit-name escaping,
    /// undone here), so after dropping the random part at most two dash-separated parts remain:
    /// `app-gnome-org.gnome.Maps-12345.scope` → `org.gnome.Maps`, `app-org.kde.konsole@12.service` →
    /// `org.kde.konsole`, `app-gnome-google\x2dchrome-9.scope` → `google-chrome`.
    ///
    /// The random part of a scope without `@` must be ASCII letters, digits and `_` (GNOME uses the
    /// pid, others hex): `app-gnome-org.gnome.Maps.scope` has none, since `org.gnome.Maps` is not random.
    ///
    /// `nil` for any other unit (`vte-spawn-….scope`, `run-r….scope`, `session-2.scope`), for a scope
    /// without a random part, for a name with more parts (unescaped dashes make it ambiguous: which
    /// part is the launcher?), for characters systemd does not allow in unit names, for a broken
    /// escape, and for an app id that fails ``AppIdentity/validate(id:)``.
    public static func systemdAppID(fromUnit unit: String) -> String? {
        let body: Substring
        let isScope: Bool
        if unit.hasSuffix(".scope") {
            body = unit.dropLast(".scope".count)
            isScope = true
        } else if unit.hasSuffix(".service") {
            body = unit.dropLast(".service".count)
            isScope = false
        } else {
            return nil
        }
        guard unit.utf8.count <= 255,
              body.utf8.allSatisfy(isUnitNameByte),
              body.hasPrefix("app-") else { return nil }
        var rest = body.dropFirst("app-".count)
        if let at = rest.firstIndex(of: "@") {
            rest = rest[..<at]
        } else if isScope {
            guard let dash = rest.lastIndex(of: "-") else { return nil }
            let random = rest[rest.index(after: dash)...]
            guard !random.isEmpty, random.utf8.allSatisfy({ isASCIILetter($0) || isDigit($0) || $0 == UInt8(ascii: "_") }) else { return nil }
            rest = rest[..<dash]
        }
        let parts = rest.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, parts.allSatisfy({ !$0.isEmpty }) else { return nil }
        guard let appID = unescapeUnitName(parts[parts.count - 1]), AppIdentity.isValid(id: appID) else { return nil }
        if parts.count == 2 { guard unescapeUnitName(parts[0]) != nil else { return nil } }
        return appID
    }

    /// Undoes systemd's `\xNN` escaping; `nil` for a backslash not followed by `x` and two hex digits,
    /// or bytes that are not UTF-8.
    static func unescapeUnitName(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var input = Array(text.utf8)[...]
        while let byte = input.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            guard input.count >= 3, input.first == UInt8(ascii: "x"),
                  let high = hexValue(input[input.startIndex + 1]),
                  let low = hexValue(input[input.startIndex + 2]) else { return nil }
            bytes.append(high << 4 | low)
            input = input.dropFirst(3)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    // MARK: - Process start time

    /// The start time of a process (field 22 of `/proc/<pid>/stat`, in clock ticks since boot), used to
    /// notice that a pid was reused while the identity was being read. `nil` for anything else.
    ///
    /// The command name (field 2) is in parentheses and may itself contain spaces and parentheses, so
    /// the fields are counted after the last `)`.
    public static func processStartTime(fromStat text: String) -> UInt64? {
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ", omittingEmptySubsequences: true)
        // Fields after the name start at field 3 (state); field 22 is the 20th of them.
        guard fields.count >= 20 else { return nil }
        return UInt64(fields[19].trimmingCharacters(in: .whitespacesAndNewlines))
    }

    // MARK: - Executable

    /// The app id of an executable, from the target of `/proc/<pid>/exe`: its file name, after removing
    /// the ` (deleted)` the kernel appends when the file was replaced or removed since the process
    /// started (as during a package upgrade). `nil` when the target is not UTF-8 or the name fails
    /// ``AppIdentity/validate(id:)``.
    ///
    /// - Returns: the id and the executable's path without the suffix.
    public static func executableID(fromLinkTarget target: [UInt8]) -> (id: String, path: String)? {
        guard var path = String(validating: target, as: UTF8.self) else { return nil }
        let deleted = " (deleted)"
        if path.hasSuffix(deleted) { path = String(path.dropLast(deleted.count)) }
        guard let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init),
              AppIdentity.isValid(id: name) else { return nil }
        return (name, path)
    }

    // MARK: - Character classes

    /// The lines of `text`, split at `\n` and at `\r\n` (one `Character` in Swift, so `split(separator: "\n")`
    /// alone would not split there).
    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    }

    private static func trimmingSpaces(_ text: Substring) -> Substring {
        var result = text
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isLowercaseLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        isLowercaseLetter(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    /// Bytes systemd accepts in unit names: ASCII letters, digits, `:`, `-`, `_`, `.`, `\`, and `@`.
    private static func isUnitNameByte(_ byte: UInt8) -> Bool {
        isASCIILetter(byte) || isDigit(byte) || ":-_.\\@".utf8.contains(byte)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
