import DequeModule
import Foundation
import MotionProtocol
import NIOConcurrencyHelpers
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
final class ClientOutbox: Sendable {
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
    private struct State {
        var items = Deque<Item>()
        var dropped: [UInt32: UInt64] = [:]
        var flushScheduled = false
        var closed = false
        var stalledSince: Double?
        var dropCount: UInt64 = 0
        var sendCount: UInt64 = 0
        var writer = ByteWriter(capacity: 64 * 1024)
        var onStall: (@Sendable () -> Void)?
    }
    private let state = NIOLockedValueBox(State())
    /// Called (once, on ``cleanup``) when the client stalled too long.
    var onStall: (@Sendable () -> Void)? {
        get { state.withLockedValue { $0.onStall } }
        set { state.withLockedValue { $0.onStall = newValue } }
    }
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
        let (capacity, stallSeconds) = (self.capacity, self.stallSeconds)
        let taken = state.withLockedValue { state -> (schedule: Bool, stalled: Bool, stallHandler: (@Sendable () -> Void)?)? in
            guard !state.closed else { return nil }
            var stalled = false
            if state.items.count >= capacity {
                let oldest = state.items.removeFirst()
                state.dropped[oldest.stream, default: 0] += 1
                state.dropCount += 1
                let now = ProcessInfo.processInfo.systemUptime
                if let since = state.stalledSince {
                    stalled = now - since > stallSeconds
                } else {
                    state.stalledSince = now
                }
            }
            state.items.append(Item(stream: stream, value: value))
            let schedule = !state.flushScheduled
            state.flushScheduled = true
            if stalled {
                state.closed = true
                state.items.removeAll()
            }
            return (schedule, stalled, stalled ? state.onStall : nil)
        }
        guard case let (schedule, stalled, stallHandler)? = taken else { return }
        if stalled {
            // Off this thread: the handler ends streams, which takes the lock this thread may hold.
            if let stallHandler { cleanup.async(execute: stallHandler) }
            return
        }
        if schedule { channel.eventLoop.execute { self.flush() } }
    }

    /// Values waiting, dropped so far and sent so far.
    var figures: (waiting: Int, dropped: UInt64, sent: UInt64) {
        state.withLockedValue { ($0.items.count, $0.dropCount, $0.sendCount) }
    }

    /// Stops accepting values and forgets those waiting.
    func close() {
        state.withLockedValue { state in
            state.closed = true
            state.items.removeAll()
        }
    }

    /// Writes waiting values while the socket takes them (on the channel's event loop).
    func flush() {
        channel.eventLoop.preconditionInEventLoop()
        state.withLockedValue { $0.flushScheduled = false }
        var wroteAny = false
        while channel.isWritable {
            // The frames, encoded under the lock; written to the socket after it.
            let encoded = state.withLockedValue { state -> [UInt8]? in
                if state.items.isEmpty && state.dropped.isEmpty {
                    state.stalledSince = nil
                    return nil
                }
                let drops = state.dropped
                state.dropped.removeAll()
                state.writer.removeAll()
                for (stream, count) in drops.sorted(by: { $0.key < $1.key }) {
                    DaemonMessage.dropped(stream: stream, count: count).encode(into: &state.writer)
                }
                var sent: UInt64 = 0
                // Consecutive values of one stream and kind make one samples frame.
                while let first = state.items.first, state.writer.count < Self.bytesPerTurn {
                    let kind = first.value.kind
                    let limit = DaemonMessage.recordsPerFrame(kind)
                    state.writer.beginFrame(.samples)
                    state.writer.u32(first.stream)
                    state.writer.u8(kind.rawValue)
                    state.writer.u16(0)
                    let countOffset = state.writer.count - 2
                    var count = 0
                    while count < limit, let next = state.items.first, next.stream == first.stream, next.value.kind == kind {
                        RecordCodec.encode(next.value, into: &state.writer)
                        state.items.removeFirst()
                        count += 1
                    }
                    state.writer.endFrame()
                    state.writer.patchU16(at: countOffset, UInt16(count))
                    sent += UInt64(count)
                }
                state.sendCount += sent
                return state.writer.bytes
            }
            guard let encoded else { break }
            var buffer = channel.allocator.buffer(capacity: encoded.count)
            buffer.writeBytes(encoded)
            channel.write(buffer, promise: nil)
            wroteAny = true
            if encoded.count >= Self.bytesPerTurn {
                // Let other clients of this event loop have their turn; come back for the rest.
                channel.flush()
                let again = state.withLockedValue { state in
                    let again = !state.flushScheduled && !state.items.isEmpty
                    if again { state.flushScheduled = true }
                    return again
                }
                if again { channel.eventLoop.execute { self.flush() } }
                return
            }
        }
        if wroteAny { channel.flush() }
    }
}
