import Foundation
import Glibc
import Logging
import MotionAuthorization

/// A fresh folder under the system's temporary folder, removed after `body`.
func withTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("motion-authorization-tests-\(getpid())-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// A folder imitating `/proc`: one subfolder per fake process.
struct FakeProc {
    let root: URL

    /// Lays out process `pid`; every argument left `nil` is absent from the tree.
    @discardableResult
    func process(
        _ pid: Int32,
        exe: String? = nil,
        flatpakInfo: String? = nil,
        label: String? = nil,
        labelFile: String = "attr/current",
        cgroup: String? = nil,
        stat: String? = nil
    ) throws -> URL {
        let folder = root.appendingPathComponent(String(pid), isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        if let exe {
            try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("exe").path, withDestinationPath: exe)
        }
        if let flatpakInfo {
            try write(flatpakInfo, to: folder.appendingPathComponent("root/.flatpak-info"))
        }
        if let label {
            try write(label, to: folder.appendingPathComponent(labelFile))
        }
        if let cgroup {
            try write(cgroup, to: folder.appendingPathComponent("cgroup"))
        }
        if let stat {
            try write(stat, to: folder.appendingPathComponent("stat"))
        }
        return folder
    }

    func identify(_ pid: Int32) -> AppIdentity {
        AppIdentity.identify(pid: pid, procRoot: root.path)
    }

    private func write(_ text: String, to file: URL) throws {
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
    }
}

/// Runs `body` with a fake `/proc` in a temporary folder.
func withFakeProc<Result>(_ body: (FakeProc) throws -> Result) throws -> Result {
    try withTemporaryFolder { folder in try body(FakeProc(root: folder)) }
}

/// A logger that drops everything.
let quietLogger = Logger(label: "test.authorization.quiet") { _ in SwiftLogNoOpLogHandler() }

/// A user database with fixed accounts, for the authority's decision table.
struct FakeUserDatabase: UserDatabase {
    var users: [UserRecord]
    var groups: [String: UInt32]
    /// Supplementary groups by user name.
    var memberships: [String: [UInt32]]

    func user(named name: String) -> UserRecord? { users.first { $0.name == name } }
    func user(uid: UInt32) -> UserRecord? { users.first { $0.uid == uid } }
    func groupID(named name: String) -> UInt32? { groups[name] }
    func groupIDs(of user: UserRecord) -> [UInt32] { [user.primaryGID] + (memberships[user.name] ?? []) }
}
