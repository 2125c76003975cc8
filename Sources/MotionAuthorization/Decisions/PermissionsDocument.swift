import Foundation

/// The JSON document `coremotiond` answers a `coremotion permissions` request with: one user's stored
/// decisions, and the app a grant, deny or reset changed.
///
/// ```json
/// {
///   "changed" : "org.gnome.Maps",
///   "decisions" : [
///     {
///       "app" : "org.gnome.Maps",
///       "status" : "authorized"
///     }
///   ],
///   "uid" : 1000
/// }
/// ```
///
/// The daemon builds it with ``init(uid:decisions:changed:)`` and ``encoded(limit:)``; the tool checks
/// what it received with ``decode(_:)`` (a reply cut short is refused, never printed as if whole).
///
/// **Size.** A user keeps at most ``PermissionStore/Limits/decisionsPerUser`` (256) decisions of app
/// ids of at most 255 bytes, so the document is at most ``maximumEncodedLength`` (147,519 bytes), which
/// fits the protocol's document limit (512 KiB, `DaemonMessage.maximumDocumentLength`). Only a file
/// written by an older version, over the quota, can give a longer one: ``encoded(limit:)`` then throws
/// rather than letting the frame cut it.
public struct PermissionsDocument: Sendable, Hashable {
    /// One stored decision.
    public struct Entry: Sendable, Hashable {
        /// The app id.
        public var app: String
        /// ``AuthorizationDecision/authorized`` or ``AuthorizationDecision/denied`` as stored (the
        /// decoder accepts any of the four names).
        public var status: AuthorizationDecision

        public init(app: String, status: AuthorizationDecision) {
            self.app = app
            self.status = status
        }
    }

    /// The user whose decisions these are.
    public var uid: UInt32
    /// The user's decisions, sorted by app id.
    public var decisions: [Entry]
    /// The app a grant, deny or reset changed; `nil` for a list.
    public var changed: String?

    public init(uid: UInt32, decisions: [Entry], changed: String?) {
        self.uid = uid
        self.decisions = decisions
        self.changed = changed
    }

    /// A document of what ``PermissionStore/list(uid:)`` returns.
    public init(uid: UInt32, decisions: [(app: String, decision: AuthorizationDecision)], changed: String?) {
        self.init(uid: uid, decisions: decisions.map { Entry(app: $0.app, status: $0.decision) }, changed: changed)
    }

    /// The longest document of a user within the quota, in bytes: 147,519 for 256 decisions.
    ///
    /// Every app id (and `changed`) is 255 bytes of characters JSON escapes with two bytes (`"`, `\`),
    /// every status the longest name (`notDetermined`), the uid ten digits: 575 bytes for the frame and
    /// `changed`, 574 per decision.
    public static let maximumEncodedLength = maximumEncodedLength(decisions: PermissionStore.Limits.standard.decisionsPerUser)

    /// The longest document with `decisions` decisions, in bytes (see ``maximumEncodedLength``).
    public static func maximumEncodedLength(decisions: Int) -> Int {
        let escapedID = 2 * AppIdentity.maximumIDLength
        let appLine = 15 + escapedID + 3               // `      "app" : "…",` and a line break
        let statusLine = 6 + 8 + 3 + 1 + 13 + 1 + 1     // `      "status" : "notDetermined"` and a line break
        let perDecision = 6 + appLine + statusLine + 7   // `    {`, the two lines, `    },`
        let frame = 2 + (15 + escapedID + 3) + 18 + 5 + 21 + 1
        return frame + decisions * perDecision
    }

    private struct Body: Codable {
        struct Item: Codable {
            var app: String
            var status: String
        }
        var uid: UInt32
        var decisions: [Item]
        var changed: String?
    }

    /// The document as pretty-printed JSON with sorted keys.
    ///
    /// - Parameter limit: the longest text the caller can carry, in UTF-8 bytes (the daemon passes
    ///   `DaemonMessage.maximumDocumentLength`).
    /// - Throws: ``PermissionsDocumentError/tooLong(bytes:limit:decisions:)`` when the text is longer
    ///   than `limit`: a document must never be cut.
    public func encoded(limit: Int = .max) throws(PermissionsDocumentError) -> String {
        let body = Body(uid: uid, decisions: decisions.map { Body.Item(app: $0.app, status: $0.status.name) }, changed: changed)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text: String
        do {
            text = String(decoding: try encoder.encode(body), as: UTF8.self)
        } catch {
            throw .invalid(bytes: 0, reason: "encoding failed: \(error)")
        }
        guard text.utf8.count <= limit else {
            throw .tooLong(bytes: text.utf8.count, limit: limit, decisions: decisions.count)
        }
        return text
    }

    /// Reads a document and checks it whole: valid JSON (a document cut short is not), `uid` a uid,
    /// every entry a valid app id and one of the four state names, `changed` absent, `null` or a valid
    /// app id. Keys it does not know are ignored (a newer daemon may add some).
    ///
    /// - Throws: ``PermissionsDocumentError/invalid(bytes:reason:)``.
    public static func decode(_ text: String) throws(PermissionsDocumentError) -> PermissionsDocument {
        let bytes = text.utf8.count
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw .invalid(bytes: bytes, reason: describe(error))
        } catch {
            throw .invalid(bytes: bytes, reason: "\(error)")
        }
        var entries: [Entry] = []
        for (index, item) in body.decisions.enumerated() {
            guard AppIdentity.isValid(id: item.app) else {
                throw .invalid(bytes: bytes, reason: "decisions[\(index)]: \(logQuoted(item.app, limit: AppIdentity.maximumIDLength)) is not an app id")
            }
            guard let status = AuthorizationDecision(name: item.status) else {
                throw .invalid(bytes: bytes, reason: "decisions[\(index)]: \(logQuoted(item.status)) is not an authorization state")
            }
            entries.append(Entry(app: item.app, status: status))
        }
        if let changed = body.changed, !AppIdentity.isValid(id: changed) {
            throw .invalid(bytes: bytes, reason: "\"changed\": \(logQuoted(changed, limit: AppIdentity.maximumIDLength)) is not an app id")
        }
        return PermissionsDocument(uid: body.uid, decisions: entries, changed: body.changed)
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "" : keys.joined(separator: ".") + ": "
        }
        switch error {
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "not complete JSON" : "\(path(context))\(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "\(path(context))no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context))\(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// Why a permissions document cannot be sent or used.
public enum PermissionsDocumentError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The document would be longer than the carrier allows (only a permission file written by an
    /// older version, over the per-user quota, can give one).
    case tooLong(bytes: Int, limit: Int, decisions: Int)
    /// The text is not a whole, valid document (cut short, not JSON, a field missing or wrong).
    case invalid(bytes: Int, reason: String)

    public var description: String {
        switch self {
        case .tooLong(let bytes, let limit, let decisions):
            return "the list of \(decisions) decisions is \(bytes) bytes, more than the \(limit) a reply can carry; reset some decisions (`coremotion permissions reset APP`)"
        case .invalid(let bytes, let reason):
            return "not a valid permissions document (\(bytes) bytes): \(reason)"
        }
    }
}
