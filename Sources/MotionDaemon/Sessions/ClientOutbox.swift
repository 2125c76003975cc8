import DequeModule
import Foundation
import MotionProtocol
import NIOCore

/// The values waiting for one client: appended by the engines' threads, written to the client's socket
/// by its event loop. The engines never wait for a client.
///
/// **Bound**: at most ``capacity`` values wait (8,192 by default: 8 s of a 1 kHz stream; 256 KiB of raw
/// samples, 1.2 MiB of device motion). They wait only while the socket cannot take more (the kernel's
/// socket buffer and NIO's 64 KiB write buffer are full, i.e. the client does not read). Past the bound
/// the **oldest** value is dropped and counted per stream; the client receives `dropped(stream, n)`
/// before its next values, and its API logs it. A client whose socket stays full for ``stallLimit``
/// (30 s) while values are being dropped is disconnected; other clients never notice.
///
/// **Never calls out on the pushing thread.** ``push(_:stream:)`` runs on the device's thread, under
/// `MotionService`'s delivery lock: the stall handler (which ends the client's streams, taking that lock
/// again) is run later on ``cleanup``, never inline, so a stalled client cannot stop the device thread.
final class ClientOutbox: @unchecked Sendable {
    /// Default bound on waiting values per client.
    static let defaultCapacity = 8192
    /// How long a client may leave its socket full while values are dropped before it is disconnected.
    static let stallLimit: TimeInterval = 30
    /// Bytes written before yielding the event loop, so that one client never monopolises it.
    static let bytesPerTurn = 256 * 1024

    struct Item {
        var stream: UInt32
        var value: StreamValue
    }

    let capacity: Int
    /// How long the socket may stay full while values are dropped (``stallLimit`` by default).
    let stallSeconds: TimeInterval
    private let channel: any Channel
    private let lock = NSLock()
    private var items = Deque<Item>()
    private var dropped: [UInt32: UInt64] = [:]
    private var flushScheduled = false
    private var closed = false
    private var stalledSince: Double?
    private var dropCount: UInt64 = 0
    private var sendCount: UInt64 = 0
    private var writer = ByteWriter(capacity: 64 * 1024)
    /// Called (once, on ``cleanup``) when the client stalled too long.
    var onStall: (@Sendable () -> Void)?
    /// Where ``onStall`` runs: never the thread that pushes.
    private let cleanup: DispatchQueue

    init(
        channel: any Channel, capacity: Int = ClientOutbox.defaultCapacity, stallLimit: TimeInterval = ClientOutbox.stallLimit,
        cleanup: DispatchQueue = .global(qos: .utility)
    ) {
        self.channel = channel
        self.capacity = max(1, capacity)
        self.stallSeconds = stallLimit
        self.cleanup = cleanup
    }

    /// Queues a value of `stream` (any thread; never blocks on the client).
    func push(_ value: StreamValue, stream: UInt32) {
        lock.lock()
        guard !closed else {
            lock.unlock()
            return
        }
        var stalled = false
        if items.count >= capacity {
            let oldest = items.removeFirst()
            dropped[oldest.stream, default: 0] += 1
            dropCount += 1
            let now = ProcessInfo.processInfo.systemUptime
            if let since = stalledSince {
                stalled = now - since > stallSeconds
            } else {
                stalledSince = now
            }
        }
        items.append(Item(stream: stream, value: value))
        let schedule = !flushScheduled
        flushScheduled = true
        if stalled {
            closed = true
            items.removeAll()
        }
        let stallHandler = stalled ? onStall : nil
        lock.unlock()
        if stalled {
            // Off this thread: the handler ends streams, which takes the lock this thread may hold.
            if let stallHandler { cleanup.async(execute: stallHandler) }
            return
        }
        if schedule { channel.eventLoop.execute { self.flush() } }
    }

    /// Values waiting, dropped so far and sent so far.
    var figures: (waiting: Int, dropped: UInt64, sent: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        return (items.count, dropCount, sendCount)
    }

    /// Stops accepting values and forgets those waiting.
    func close() {
        lock.lock()
        closed = true
        items.removeAll()
        lock.unlock()
    }

    /// Writes waiting values while the socket takes them (on the channel's event loop).
    func flush() {
        channel.eventLoop.preconditionInEventLoop()
        lock.lock()
        flushScheduled = false
        lock.unlock()
        var wroteAny = false
        while channel.isWritable {
            lock.lock()
            if items.isEmpty && dropped.isEmpty {
                stalledSince = nil
                lock.unlock()
                break
            }
            let drops = dropped
            dropped.removeAll()
            writer.removeAll()
            for (stream, count) in drops.sorted(by: { $0.key < $1.key }) {
                DaemonMessage.dropped(stream: stream, count: count).encode(into: &writer)
            }
            var sent: UInt64 = 0
            // Consecutive values of one stream and kind make one samples frame.
            while let first = items.first, writer.count < Self.bytesPerTurn {
                let kind = first.value.kind
                let limit = DaemonMessage.recordsPerFrame(kind)
                writer.beginFrame(.samples)
                writer.u32(first.stream)
                writer.u8(kind.rawValue)
                writer.u16(0)
                let countOffset = writer.count - 2
                var count = 0
                while count < limit, let next = items.first, next.stream == first.stream, next.value.kind == kind {
                    RecordCodec.encode(next.value, into: &writer)
                    items.removeFirst()
                    count += 1
                }
                writer.endFrame()
                writer.patchU16(at: countOffset, UInt16(count))
                sent += UInt64(count)
            }
            sendCount += sent
            lock.unlock()
            var buffer = channel.allocator.buffer(capacity: writer.count)
            buffer.writeBytes(writer.bytes)
            channel.write(buffer, promise: nil)
            wroteAny = true
            if writer.count >= Self.bytesPerTurn {
                // Let other clients of this event loop have their turn; come back for the rest.
                channel.flush()
                lock.lock()
                let again = !flushScheduled && !items.isEmpty
                if again { flushScheduled = true }
                lock.unlock()
                if again { channel.eventLoop.execute { self.flush() } }
                return
            }
        }
        if wroteAny { channel.flush() }
    }
}
