import ArgumentParser
import Foundation
import MotionAuthorization
import MotionDaemonClient

/// `coremotion permissions`: the user's decisions per app, as kept by `coremotiond`.
struct PermissionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "permissions",
        abstract: "List, grant, deny or reset an app's access to motion data (kept by coremotiond per user and app).",
        discussion: """
            An app is identified by coremotiond from the kernel: its Flatpak or Snap id, its systemd app scope, \
            else its executable's name (what `coremotion service status` lists under "app"). Until a decision is \
            stored an app is notDetermined: live updates flow (unless the administrator's policy says otherwise) \
            but pedometer, activity and recorder history need `grant`. See docs/authorization.md.
            """,
        subcommands: [List.self, Grant.self, Deny.self, Reset.self]
    )

    /// What grant, deny and reset take.
    struct Target: ParsableArguments {
        @Argument(help: "The app id.") var app: String
        @OptionGroup var daemon: DaemonSocketOption
        @Option(help: "Another user's decision (root only).") var user: UInt32?
        @Flag(help: "Print JSON.") var json = false

        func perform(_ operation: PermissionOperation) throws {
            try PermissionsCommand.perform(operation, app: app, user: user, daemon: daemon, json: json)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List this user's decisions.")
        @OptionGroup var daemon: DaemonSocketOption
        @Option(help: "Another user's decisions (root only).") var user: UInt32?
        @Flag(help: "Print JSON.") var json = false
        func run() throws { try PermissionsCommand.perform(.list, app: "", user: user, daemon: daemon, json: json) }
    }

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Authorize APP for this user.")
        @OptionGroup var target: Target
        func run() throws { try target.perform(.grant) }
    }

    struct Deny: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Deny APP for this user.")
        @OptionGroup var target: Target
        func run() throws { try target.perform(.deny) }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Forget the decision for APP (it becomes notDetermined).")
        @OptionGroup var target: Target
        func run() throws { try target.perform(.reset) }
    }

    static func perform(_ operation: PermissionOperation, app: String, user: UInt32?, daemon: DaemonSocketOption, json: Bool) throws {
        let connection = try daemon.connect()
        defer { connection.close() }
        let document: String
        do {
            document = try connection.permissions(operation, app: app, uid: user)
        } catch {
            throw ValidationError("\(error)")
        }
        // A reply is checked whole before anything is printed: a document cut short (a frame limit) or
        // damaged must never pass for the user's decisions, and must not end with exit status 0.
        let doc: PermissionsDocument
        do {
            doc = try PermissionsDocument.decode(document)
        } catch {
            throw PermissionsReplyFailure(operation: operation, problem: error)
        }
        if json {
            print(document)
            return
        }
        let changed = doc.changed
        if let changed {
            let now = doc.decisions.first { $0.app == changed }?.status ?? .notDetermined
            print("\(changed): \(now.name) for user \(doc.uid)")
        } else if doc.decisions.isEmpty {
            print("no decisions stored for user \(doc.uid): every app is notDetermined")
        } else {
            print(Output.table(["app", "status"], doc.decisions.map { [$0.app, $0.status.name] }))
        }
    }
}

/// coremotiond's reply to a permissions request is not a whole, valid document.
struct PermissionsReplyFailure: Error, CustomStringConvertible {
    var operation: PermissionOperation
    var problem: PermissionsDocumentError

    var description: String {
        let what = operation == .list
            ? "nothing is printed"
            : "the change was probably made; run `coremotion permissions list` to see the stored decisions"
        return "coremotiond's reply is \(problem) (cut short, or from a daemon of another version); \(what)"
    }
}
