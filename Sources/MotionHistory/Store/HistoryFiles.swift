#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// The history's files on disk are private to their owner: the folder 0700, the database and every
/// companion SQLite makes beside it (`-wal`, `-shm`, `-journal`) and every damaged copy 0600, whoever runs
/// the store (a process using the device in process, or `coremotiond`) and whatever its umask.
///
/// The database file is created here, empty and 0600, before SQLite opens it: SQLite gives its `-wal`,
/// `-shm` and `-journal` the database file's permissions. Files and folders that already exist and are
/// looser are tightened when this user owns them (another user's are left as they are).
enum HistoryFiles {
    /// Permissions of the folder the store creates.
    static let folderMode: mode_t = 0o700
    /// Permissions of every file of the store.
    static let fileMode: mode_t = 0o600
    /// The companions SQLite keeps beside the database.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// The name of a folder that is the store's own even when other files live in it (the default
    /// `…/coremotion/` and the system unit's `StateDirectory=coremotion`).
    static let ownFolderName = "coremotion"

    /// Creates the folder of `file` (0700) when it is missing, its parents with the default permissions.
    static func createFolder(of file: URL) throws {
        let folder = file.deletingLastPathComponent()
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) { return }
        let parent = folder.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        if mkdir(folder.path, folderMode) != 0 {
            let code = errno
            // Another process may have created it meanwhile.
            guard code == EEXIST else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
            return
        }
        // mkdir's mode passes through the umask, which may have taken more than group and others' bits.
        chmod(folder.path, folderMode)
    }

    /// Creates the database file, empty and 0600, when it does not exist (an empty file is an empty
    /// database to SQLite). A file that exists is left to ``tighten(file:)``.
    static func createFile(_ file: URL) {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, fileMode)
        guard fd >= 0 else { return }  // it exists (or cannot be made: opening it will say why)
        fchmod(fd, fileMode)
        close(fd)
    }

    /// Makes the database and its companions 0600 and the folder 0700 where this user owns them and they
    /// are looser. The folder is tightened only when it is the store's own: named `coremotion`, or holding
    /// nothing but this history's files (never a home folder or a shared folder such as `/tmp`).
    static func tighten(file: URL) {
        restrict(file.path, to: fileMode)
        for suffix in companionSuffixes { restrict(file.path + suffix, to: fileMode) }
        let folder = file.deletingLastPathComponent()
        guard isOwnFolder(folder, of: file) else { return }
        restrict(folder.path, to: folderMode)
    }

    /// Whether `folder` is the store's own (see ``tighten(file:)``).
    static func isOwnFolder(_ folder: URL, of file: URL) -> Bool {
        if folder.lastPathComponent == ownFolderName { return true }
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return false }
        return names.allSatisfy { $0.hasPrefix(file.lastPathComponent) }
    }

    /// Removes group and other permissions from `path` when this user owns it and it has any (a symbolic
    /// link is not followed; a missing file is nothing to do).
    static func restrict(_ path: String, to mode: mode_t) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_uid == geteuid() else { return }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR, info.st_mode & 0o077 != 0 else { return }
        chmod(path, mode)
    }

    /// The device and inode of `path`, to tell whether the file at a path is still the one opened.
    static func identity(_ path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }
}

/// A file's device and inode.
struct FileIdentity: Sendable, Hashable {
    let device: UInt64
    let inode: UInt64
}
