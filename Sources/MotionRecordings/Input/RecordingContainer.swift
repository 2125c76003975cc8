import Foundation
import ZIPFoundation

/// Where the files of a recording are: one file, a folder, or a `.zip` archive.
///
/// Readers see every layout the same way: a list of relative paths and a way to read one of them
/// as bytes. Archive members are read into memory (they are inflated once, never written to disk).
final class RecordingContainer {
    enum Kind {
        case file
        case directory
        case zip(Archive)
    }

    /// The file, folder or archive.
    let url: URL
    let kind: Kind

    /// Opens `url`: a folder, a zip archive (recognised by its signature, not its extension) or a
    /// plain file.
    init(_ url: URL) throws {
        self.url = url
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw RecordingError(file: url.path, expected: "an existing file or folder", found: "nothing at this path")
        }
        if isDirectory.boolValue {
            kind = .directory
        } else if RecordingContainer.hasZipSignature(url) {
            do {
                kind = .zip(try Archive(url: url, accessMode: .read))
            } catch {
                throw RecordingError(file: url.path, expected: "a readable zip archive", found: "\(error)")
            }
        } else {
            kind = .file
        }
    }

    /// True when the file starts with a zip local-header or end-of-central-directory signature.
    static func hasZipSignature(_ url: URL) -> Bool {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 4), head.count == 4 else { return false }
        return head[0] == 0x50 && head[1] == 0x4B && (head[2] == 0x03 || head[2] == 0x05) && (head[3] == 0x04 || head[3] == 0x06)
    }

    var isZip: Bool { if case .zip = kind { true } else { false } }
    var isDirectory: Bool { if case .directory = kind { true } else { false } }

    /// Relative paths of the files inside (folders: recursively; zip: every file entry). For a plain
    /// file, its own name.
    lazy var paths: [String] = {
        switch kind {
        case .file:
            return [url.lastPathComponent]
        case .directory:
            let base = url.standardizedFileURL.path
            guard let walker = FileManager.default.enumerator(atPath: base) else { return [] }
            var out: [String] = []
            while let item = walker.nextObject() as? String {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: base + "/" + item, isDirectory: &isDirectory), !isDirectory.boolValue {
                    out.append(item)
                }
            }
            return out.sorted()
        case .zip(let archive):
            return archive.compactMap { $0.type == .file ? $0.path : nil }.sorted()
        }
    }()

    /// The display name of member `path` for messages: `archive.zip#path`, `folder/path`, or the file.
    func displayName(_ path: String) -> String {
        switch kind {
        case .file: url.path
        case .directory: url.appendingPathComponent(path).path
        case .zip: url.path + "#" + path
        }
    }

    /// True when `path` is one of ``paths``.
    func contains(_ path: String) -> Bool {
        switch kind {
        case .file: return path == url.lastPathComponent
        case .directory: return FileManager.default.fileExists(atPath: url.appendingPathComponent(path).path)
        case .zip(let archive): return archive[path] != nil
        }
    }

    /// Reads member `path` (for a plain file: the file itself).
    func read(_ path: String) throws -> TextFile {
        let name = displayName(path)
        switch kind {
        case .file:
            return TextFile(name: name, bytes: try RecordingContainer.readBytes(url))
        case .directory:
            return TextFile(name: name, bytes: try RecordingContainer.readBytes(url.appendingPathComponent(path)))
        case .zip(let archive):
            guard let entry = archive[path] else {
                throw RecordingError(file: name, expected: "this member in the archive", found: "no such member")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(clamping: entry.uncompressedSize))
            do {
                _ = try archive.extract(entry, bufferSize: 1 << 16) { chunk in bytes.append(contentsOf: chunk) }
            } catch {
                throw RecordingError(file: name, expected: "an intact archive member", found: "\(error)")
            }
            return TextFile(name: name, bytes: bytes)
        }
    }

    /// Reads a whole file into memory.
    static func readBytes(_ url: URL) throws -> [UInt8] {
        do {
            let data = try Data(contentsOf: url, options: [.mappedIfSafe])
            return [UInt8](data)
        } catch {
            throw RecordingError(file: url.path, expected: "a readable file", found: "\(error.localizedDescription)")
        }
    }

    /// The first `count` bytes of member `path` (format sniffing), without reading all of it when
    /// the container allows.
    func head(_ path: String, count: Int = 4096) -> [UInt8] {
        switch kind {
        case .file, .directory:
            let fileURL = isDirectory ? url.appendingPathComponent(path) : url
            guard let handle = try? FileHandle(forReadingFrom: fileURL) else { return [] }
            defer { try? handle.close() }
            return [UInt8]((try? handle.read(upToCount: count)) ?? Data())
        case .zip(let archive):
            guard let entry = archive[path] else { return [] }
            var bytes: [UInt8] = []
            struct Enough: Error {}
            _ = try? archive.extract(entry, bufferSize: 1 << 14, skipCRC32: true) { chunk in
                bytes.append(contentsOf: chunk.prefix(count - bytes.count))
                if bytes.count >= count { throw Enough() }
            }
            return bytes
        }
    }
}
