import Foundation
import MotionSamples

/// Where `coremotion view` takes its token from: `--token-file FILE`, the environment
/// (`COREMOTION_VIEW_TOKEN`) or `--token TOKEN`.
///
/// A token on the command line is readable by every user of the machine (`/proc/PID/cmdline`, `ps`);
/// a file readable only by its owner, or the environment (`/proc/PID/environ` is readable only by the
/// same user), is not.
public enum LiveViewToken {
    /// The environment variable holding the token.
    public static let environmentVariable = "COREMOTION_VIEW_TOKEN"
    /// The largest token file read, bytes.
    public static let maximumFileSize = 4096

    /// The token and, when its file can be read by other users, a warning for the user.
    public struct Resolved: Sendable, Equatable {
        /// The token, if any was given.
        public var token: String?
        /// A warning to print (the token file is readable by group or others), or nil.
        public var warning: String?
    }

    /// The token from, in order: `--token` (`option`), `--token-file` (`file`), the environment. Giving
    /// both options is refused. A file holds the token alone; one final line break is ignored.
    ///
    /// - Throws: ``LiveViewTokenError``.
    public static func resolve(
        option: String?, file: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(LiveViewTokenError) -> Resolved {
        if option != nil && file != nil { throw .bothOptions }
        if let option { return Resolved(token: option) }
        if let file { return try read(file) }
        if let value = environment[environmentVariable], !value.isEmpty { return Resolved(token: value) }
        return Resolved(token: nil)
    }

    static func read(_ path: String) throws(LiveViewTokenError) -> Resolved {
        let bytes: Data
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            bytes = try handle.read(upToCount: maximumFileSize + 1) ?? Data()
        } catch {
            throw .unreadable(path: path, reason: (error as NSError).localizedDescription)
        }
        guard bytes.count <= maximumFileSize else { throw .tooLarge(path: path) }
        var text = Array(bytes)
        if text.last == UInt8(ascii: "\n") { text.removeLast() }
        if text.last == UInt8(ascii: "\r") { text.removeLast() }
        guard !text.isEmpty else { throw .empty(path: path) }
        guard let token = String(validating: text, as: UTF8.self) else { throw .notText(path: path) }
        var warning: String?
        if let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? NSNumber,
           mode.intValue & 0o077 != 0 {
            warning = "the token file '\(path.logSafePath)' can be read by other users (mode \(String(mode.intValue & 0o777, radix: 8))); chmod 600 it"
        }
        return Resolved(token: token, warning: warning)
    }
}

/// Why the token could not be read.
public enum LiveViewTokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `--token` and `--token-file` were both given.
    case bothOptions
    /// The token file could not be read.
    case unreadable(path: String, reason: String)
    /// The token file is larger than ``LiveViewToken/maximumFileSize``.
    case tooLarge(path: String)
    /// The token file is empty.
    case empty(path: String)
    /// The token file is not UTF-8 text.
    case notText(path: String)

    /// The message for the user.
    public var description: String {
        switch self {
        case .bothOptions: "give --token or --token-file, not both"
        case .unreadable(let path, let reason): "cannot read the token file '\(path.logSafePath)': \(reason.logSafe)"
        case .tooLarge(let path): "the token file '\(path.logSafePath)' is larger than \(LiveViewToken.maximumFileSize) bytes"
        case .empty(let path): "the token file '\(path.logSafePath)' is empty"
        case .notText(let path): "the token file '\(path.logSafePath)' is not UTF-8 text"
        }
    }
}

extension String {
    /// A path for a message: escaped as any outside text, but kept whole up to 1 024 characters.
    var logSafePath: String { LogSafeText.logSafe(self, limit: 1024) }
}
