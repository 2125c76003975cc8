// The checks both fuzz targets run on one input, read as the byte stream a peer sends on the socket.
//
// 1. `FrameSplitter` splits the stream (all at once); every frame goes to the message's `decode`. A
//    `ProtocolError` is an expected answer to hostile bytes; anything else (a trap, an ASan report, a leak,
//    a timeout, an allocation past libFuzzer's limit) is a bug.
// 2. Every frame that decodes is re-encoded; the bytes must frame correctly, decode again to an equal
//    message with the same hash, and re-encode to the same bytes (the encoding of a decoded message is
//    canonical).
// 3. The same stream fed in small pieces must give the same frames and the same error.
// 4. The daemon's own NIO decoder (`MessageFrameDecoder` in a `ByteToMessageHandler`, in an
//    `EmbeddedChannel`) must deliver the same messages up to the first error, and then that error.
import MotionProtocol
import NIOCore
import NIOEmbedded

/// A message type of the protocol: `ClientMessage` or `DaemonMessage`.
public protocol WireMessage: Hashable, Sendable {
    static func decode(_ frame: UnsafeRawBufferPointer) throws(ProtocolError) -> Self
    var encoded: [UInt8] { get }
    var type: MessageType { get }
}

extension ClientMessage: WireMessage {}
extension DaemonMessage: WireMessage {}

public enum FrameFuzzing {
    /// What the reader makes of a byte stream: one result per whole frame, then how the stream ends.
    struct Reading<Message: WireMessage>: Equatable {
        var frames: [[UInt8]] = []
        var results: [Result<Message, ProtocolError>] = []
        /// A bad length field ends the stream (the peer is disconnected at once).
        var lengthError: ProtocolError?
        /// Bytes of an incomplete frame left at the end.
        var pending = 0
    }

    /// Runs every check on `input`; traps on a bug.
    public static func check<Message: WireMessage>(_ input: UnsafeBufferPointer<UInt8>, as _: Message.Type, limit: Int) {
        let whole = read(input, as: Message.self, limit: limit, chunked: false)
        for case (let frame, .success(let message)) in zip(whole.frames, whole.results) {
            roundTrip(message, frame: frame, limit: limit)
        }
        for case .failure(let error) in whole.results { _ = error.description }
        if let error = whole.lengthError { _ = error.description }

        let pieces = read(input, as: Message.self, limit: limit, chunked: true)
        guard pieces == whole else {
            fail("FrameSplitter gives other frames when the stream comes in pieces", input)
        }

        compareWithNIO(input, whole, limit: limit)
    }

    // MARK: - FrameSplitter

    /// Sizes of the pieces the stream is fed in by the chunked reading (cycled).
    static let pieceSizes = [1, 3, 7, 64, 2, 500, 4, 5]

    static func read<Message: WireMessage>(
        _ input: UnsafeBufferPointer<UInt8>, as _: Message.Type, limit: Int, chunked: Bool
    ) -> Reading<Message> {
        var splitter = FrameSplitter(limit: limit)
        var reading = Reading<Message>()
        var offset = 0
        var piece = 0
        func feed() -> Bool {
            guard offset < input.count else { return false }
            let n = chunked ? min(pieceSizes[piece % pieceSizes.count], input.count - offset) : input.count
            piece += 1
            splitter.append(UnsafeBufferPointer(rebasing: input[offset..<(offset + n)]))
            offset += n
            return true
        }
        _ = feed()
        while true {
            let next: [UInt8]?
            do {
                next = try splitter.nextFrame()
            } catch {
                reading.lengthError = error
                return reading
            }
            guard let frame = next else {
                if feed() { continue }
                break
            }
            precondition(!frame.isEmpty && frame.count <= limit, "FrameSplitter returned a frame of \(frame.count) bytes")
            reading.frames.append(frame)
            reading.results.append(decode(frame, dropping: 0))
        }
        reading.pending = splitter.pendingByteCount
        precondition(reading.pending < FrameHeader.lengthFieldSize + limit, "FrameSplitter holds \(reading.pending) bytes")
        return reading
    }

    /// Decodes `bytes` after its first `dropping` bytes.
    static func decode<Message: WireMessage>(_ bytes: [UInt8], dropping: Int) -> Result<Message, ProtocolError> {
        bytes.withUnsafeBytes { raw in
            Result { () throws(ProtocolError) in try Message.decode(UnsafeRawBufferPointer(rebasing: raw.dropFirst(dropping))) }
        }
    }

    // MARK: - Round trip

    static func roundTrip<Message: WireMessage>(_ message: Message, frame: [UInt8], limit: Int) {
        guard message.type.rawValue == frame[0] else {
            fail("a frame of type 0x\(String(frame[0], radix: 16)) decoded as \(message.type)", frame)
        }
        let bytes = message.encoded
        guard bytes.count > FrameHeader.lengthFieldSize,
            let declared = bytes.withUnsafeBytes({ FrameHeader.declaredLength($0) }),
            declared == bytes.count - FrameHeader.lengthFieldSize, declared <= limit
        else {
            fail("\(message) re-encodes to a badly framed \(bytes.count) bytes", frame)
        }
        let again: Message
        switch decode(bytes, dropping: FrameHeader.lengthFieldSize) as Result<Message, ProtocolError> {
        case .success(let message): again = message
        case .failure(let error): fail("\(message) re-encoded does not decode: \(error)", frame)
        }
        guard again == message else {
            fail("round trip changes the message:\n  decoded    \(message)\n  round trip \(again)", frame)
        }
        guard again.hashValue == message.hashValue else {
            fail("equal messages with different hashes: \(message)", frame)
        }
        guard again.encoded == bytes else {
            fail("the encoding of \(message) is not stable", frame)
        }
    }

    // MARK: - NIO

    static func compareWithNIO<Message: WireMessage>(
        _ input: UnsafeBufferPointer<UInt8>, _ reading: Reading<Message>, limit: Int
    ) {
        // What the channel must deliver: the messages before the first error, then that error.
        var expected: [Message] = []
        var expectedError = reading.lengthError
        for result in reading.results {
            if case .failure(let error) = result {
                expectedError = error
                break
            }
            if case .success(let message) = result { expected.append(message) }
        }

        let channel = EmbeddedChannel(handler: ByteToMessageHandler(
            MessageFrameDecoder<Message>(limit: limit, decode: { (raw) throws(ProtocolError) in try Message.decode(raw) })))
        defer { _ = try? channel.finish(acceptAlreadyClosed: true) }
        var received: [Message] = []
        var caught: (any Error)?
        var offset = 0
        var piece = 0
        while offset < input.count && caught == nil {
            let n = min(pieceSizes[(piece + 3) % pieceSizes.count], input.count - offset)
            piece += 1
            var buffer = channel.allocator.buffer(capacity: n)
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(input)[offset..<(offset + n)]))
            offset += n
            do {
                try channel.writeInbound(buffer)
            } catch {
                caught = error
            }
            do {
                while let message = try channel.readInbound(as: Message.self) { received.append(message) }
            } catch {
                fail("EmbeddedChannel.readInbound: \(error)", input)
            }
        }
        guard received == expected else {
            fail("MessageFrameDecoder delivers \(received.count) messages, FrameSplitter + decode \(expected.count)", input)
        }
        switch (caught, expectedError) {
        case (nil, nil):
            break
        case (let error as ProtocolError, let wanted?) where error == wanted:
            break
        default:
            fail("MessageFrameDecoder ends with \(String(describing: caught)), FrameSplitter + decode with \(String(describing: expectedError))", input)
        }
    }

    // MARK: - Failing

    static func fail(_ why: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Never {
        fail(why, Array(bytes))
    }

    static func fail(_ why: String, _ bytes: [UInt8]) -> Never {
        let shown = bytes.prefix(256).map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
        fatalError("\(why)\n  bytes (\(bytes.count)): \(shown.joined(separator: " "))\(bytes.count > 256 ? " …" : "")")
    }
}
