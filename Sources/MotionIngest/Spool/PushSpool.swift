#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import MotionSamples
import NIOConcurrencyHelpers

/// An ingest node's local queue of pushes that the database could not take yet: bounded, crash-safe, replayed
/// in order when the database is back.
///
/// A push is durable once ``append(_:)`` returns: its record is written and `fdatasync`ed, so the node may
/// answer 200. Records go to files of at most ``Limits/fileBytes`` in the spool's folder (`spool-<n>.cmspool`),
/// each record framed as `CMS1`, the payload's length (UInt32 LE), its CRC-32 (UInt32 LE), then the payload
/// (``PushSpoolRecord``). ``drain(into:node:)`` closes the file being written, stores every record of the
/// closed files in order and deletes each file once all its records are stored; a push stored twice (a drain
/// cut short by a crash) is recognised by the store's receipt and kept once.
///
/// Bounds: at most ``Limits/maximumBytes`` bytes on disk; past that ``append(_:)`` throws
/// ``PushSpoolError/full(bytes:limit:)`` and the node answers 503 (the phone keeps the push and resends).
/// After a crash, a record cut short at a file's end was never acknowledged and is dropped with a notice; a
/// record whose checksum fails is reported and skipped.
public final class PushSpool: Sendable {
    /// Size limits.
    public struct Limits: Sendable, Hashable {
        /// Bytes on disk at most, all files together (default 1 GiB: about 20 minutes of 200 phones).
        public var maximumBytes: Int
        /// A file is closed and a new one begun past this many bytes (default 16 MiB).
        public var fileBytes: Int

        public init(maximumBytes: Int = 1 << 30, fileBytes: Int = 16 << 20) {
            self.maximumBytes = maximumBytes
            self.fileBytes = fileBytes
        }
    }

    /// What one drain did.
    public struct DrainResult: Sendable, Hashable {
        /// Pushes handed to the store and accepted (new or already stored).
        public var stored = 0
        /// Of those, pushes the store already had.
        public var duplicates = 0
        /// Records skipped: checksum failures, torn tails and pushes the store refuses (``RawPushRefused``).
        public var skipped = 0
        /// Why the drain stopped early (the store's error), or `nil` when the spool is empty.
        public var stoppedBy: String?
    }

    /// The spool's folder.
    public let folder: URL
    /// Its limits.
    public let limits: Limits
    /// Called with notices (records skipped); never while a lock is held.
    private let notify: @Sendable (String) -> Void
    private let state: NIOLockedValueBox<State>

    private struct State {
        /// The file being appended to, its number and size.
        var writer: Int32 = -1
        var writerNumber = 0
        var writerBytes = 0
        /// Numbers of closed files waiting for a drain, oldest first.
        var closed: [Int] = []
        /// Bytes of every file, and records waiting.
        var bytes = 0
        var pushes = 0
        var draining = false
    }

    static let magic: [UInt8] = Array("CMS1".utf8)
    static let headerBytes = 12

    /// Opens (creating when needed) the spool in `folder`; counts what an earlier run left there.
    public init(folder: URL, limits: Limits = Limits(), notify: @escaping @Sendable (String) -> Void = { _ in }) throws {
        self.folder = folder
        self.limits = limits
        self.notify = notify
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw PushSpoolError.io(path: folder.path, operation: "creating the folder", reason: "\(error)")
        }
        var state = State()
        for number in try Self.fileNumbers(in: folder) {
            let url = Self.file(number, in: folder)
            let data = (try? Data(contentsOf: url)) ?? Data()
            state.closed.append(number)
            state.bytes += data.count
            state.pushes += Self.frames(in: data).records.count
            state.writerNumber = max(state.writerNumber, number)
        }
        self.state = NIOLockedValueBox(state)
    }

    deinit {
        state.withLockedValue { s in
            if s.writer >= 0 { close(s.writer) }
        }
    }

    /// Pushes waiting and their bytes on disk.
    public var depth: (pushes: Int, bytes: Int) { state.withLockedValue { ($0.pushes, $0.bytes) } }

    /// Writes `push` durably (written and `fdatasync`ed before returning).
    ///
    /// - Throws: ``PushSpoolError/full(bytes:limit:)`` when the spool would grow past
    ///   ``Limits/maximumBytes``; ``PushSpoolError/io(path:operation:reason:)`` when the disk refuses.
    public func append(_ push: RawPush) throws {
        let payload = PushSpoolRecord.encode(push)
        var record = Self.magic
        record.reserveCapacity(Self.headerBytes + payload.count)
        Self.appendUInt32(UInt32(payload.count), to: &record)
        Self.appendUInt32(CRC32.checksum(payload), to: &record)
        record += payload
        try state.withLockedValue { s in
            guard s.bytes + record.count <= limits.maximumBytes else {
                throw PushSpoolError.full(bytes: s.bytes, limit: limits.maximumBytes)
            }
            if s.writer < 0 || s.writerBytes + record.count > limits.fileBytes {
                try rotate(&s)
            }
            let path = Self.file(s.writerNumber, in: folder).path
            let written = record.withUnsafeBytes { raw -> Int in
                var offset = 0
                while offset < raw.count {
                    let n = write(s.writer, raw.baseAddress! + offset, raw.count - offset)
                    if n < 0 { if errno == EINTR { continue }; return -1 }
                    offset += n
                }
                return offset
            }
            guard written == record.count else {
                // Leave no partial record behind for the next append: truncate back.
                _ = ftruncate(s.writer, off_t(s.writerBytes))
                throw PushSpoolError.io(path: path, operation: "writing", reason: String(cString: strerror(errno)))
            }
            guard fdatasync(s.writer) == 0 else {
                _ = ftruncate(s.writer, off_t(s.writerBytes))
                throw PushSpoolError.io(path: path, operation: "fdatasync", reason: String(cString: strerror(errno)))
            }
            s.writerBytes += record.count
            s.bytes += record.count
            s.pushes += 1
        }
    }

    /// Stores every spooled push in `storage`, oldest first, and deletes each file whose records are all
    /// stored. Stops at the first push the store cannot take (the rest stay for the next drain). One drain
    /// runs at a time; a second caller returns at once with nothing done.
    public func drain(into storage: any RawPushStorage, node: String) -> DrainResult {
        var result = DrainResult()
        let files: [Int]? = state.withLockedValue { s in
            guard !s.draining else { return nil }
            s.draining = true
            // The file being written is closed, so that every push appended so far is drained.
            if s.writer >= 0, s.writerBytes > 0 {
                close(s.writer)
                s.writer = -1
                s.closed.append(s.writerNumber)
            }
            return s.closed
        }
        guard let files else { return result }
        defer { state.withLockedValue { $0.draining = false } }
        for number in files {
            let url = Self.file(number, in: folder)
            let data = (try? Data(contentsOf: url)) ?? Data()
            let frames = Self.frames(in: data)
            for (index, frame) in frames.records.enumerated() {
                let push: RawPush
                do {
                    push = try PushSpoolRecord.decode(frame)
                } catch {
                    result.skipped += 1
                    notify("spool \(url.lastPathComponent): record \(index + 1) unreadable (\(error)); skipped")
                    continue
                }
                do {
                    let isNew = try storage.store(push, node: node)
                    result.stored += 1
                    if !isNew { result.duplicates += 1 }
                } catch let refused as RawPushRefused {
                    // Never storable: kept, it would hold up every push after it until the spool is full.
                    result.skipped += 1
                    notify("spool \(url.lastPathComponent): record \(index + 1) (device \(push.device.debugDescription.prefix(80)), message \(push.messageID)) refused by the store (\(refused.reason.prefix(300))); skipped")
                    continue
                } catch {
                    // The file stays whole: the records of it already stored are recognised by their receipts
                    // next time.
                    result.stoppedBy = "\(error)"
                    return result
                }
            }
            if frames.corrupt > 0 {
                result.skipped += frames.corrupt
                notify("spool \(url.lastPathComponent): \(frames.corrupt) record(s) failed their checksum; skipped")
            }
            if frames.tornBytes > 0 {
                notify("spool \(url.lastPathComponent): \(frames.tornBytes) bytes of a record cut short at the end (written when the node stopped, never acknowledged); dropped")
            }
            try? FileManager.default.removeItem(at: url)
            state.withLockedValue { s in
                s.closed.removeAll { $0 == number }
                s.bytes = max(0, s.bytes - data.count)
                s.pushes = max(0, s.pushes - frames.records.count - frames.corrupt)
            }
        }
        return result
    }

    // MARK: - Files

    private func rotate(_ s: inout State) throws {
        if s.writer >= 0 {
            close(s.writer)
            s.writer = -1
            if s.writerBytes > 0 { s.closed.append(s.writerNumber) }
        }
        s.writerNumber += 1
        s.writerBytes = 0
        let path = Self.file(s.writerNumber, in: folder).path
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw PushSpoolError.io(path: path, operation: "creating", reason: String(cString: strerror(errno)))
        }
        s.writer = fd
        // The new file's name must survive a crash as well as its contents.
        let dir = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dir >= 0 {
            _ = fsync(dir)
            close(dir)
        }
    }

    static func file(_ number: Int, in folder: URL) -> URL {
        folder.appendingPathComponent(String(format: "spool-%010d.cmspool", number))
    }

    static func fileNumbers(in folder: URL) throws -> [Int] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw PushSpoolError.io(path: folder.path, operation: "listing", reason: "\(error)")
        }
        return names.compactMap { name -> Int? in
            guard name.hasPrefix("spool-"), name.hasSuffix(".cmspool") else { return nil }
            return Int(name.dropFirst(6).dropLast(8))
        }.sorted()
    }

    /// The records of a spool file: payloads whose checksum holds, the count of records whose checksum
    /// fails, and the bytes of a record cut short at the end. The file's bytes are not trusted (fuzzed).
    public static func frames(in data: Data) -> (records: [[UInt8]], corrupt: Int, tornBytes: Int) {
        let bytes = [UInt8](data)
        var records: [[UInt8]] = []
        var corrupt = 0
        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= headerBytes else { return (records, corrupt, bytes.count - offset) }
            guard Array(bytes[offset..<offset + 4]) == magic else {
                // Lost framing: nothing after this point can be trusted to start a record.
                return (records, corrupt + 1, 0)
            }
            let length = Int(readUInt32(bytes, offset + 4))
            let checksum = readUInt32(bytes, offset + 8)
            let start = offset + headerBytes
            guard length <= bytes.count - start else { return (records, corrupt, bytes.count - offset) }
            let payload = Array(bytes[start..<start + length])
            if CRC32.checksum(payload) == checksum { records.append(payload) } else { corrupt += 1 }
            offset = start + length
        }
        return (records, corrupt, 0)
    }

    static func appendUInt32(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    static func readUInt32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << UInt32(8 * $1) }
    }
}

/// What can go wrong with a spool.
public enum PushSpoolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The spool holds `bytes` and another push would pass its limit.
    case full(bytes: Int, limit: Int)
    /// The disk refused.
    case io(path: String, operation: String, reason: String)

    public var description: String {
        switch self {
        case .full(let bytes, let limit):
            "the push spool is full (\(bytes) of \(limit) bytes): the database has been unreachable too long"
        case .io(let path, let operation, let reason):
            "push spool '\(LogSafeText.logSafe(path, limit: 1024))': \(operation) failed: \(LogSafeText.logSafe(reason, limit: 2048))"
        }
    }
}

/// CRC-32 (IEEE 802.3, the polynomial of zlib and gzip).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
