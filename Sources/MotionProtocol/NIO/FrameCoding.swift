import NIOCore

/// Splits a NIO byte stream into frames and decodes each with `decode` (``ClientMessage/decode(_:)`` on the
/// daemon's side, ``DaemonMessage/decode(_:)`` on the client's).
///
/// A declared length of 0 or above `limit` throws as soon as the length field arrives, so a hostile peer
/// cannot make the reader hold more than `limit` bytes.
public struct MessageFrameDecoder<Message>: ByteToMessageDecoder {
    public typealias InboundOut = Message

    private let limit: Int
    private let decodeFrame: (UnsafeRawBufferPointer) throws(ProtocolError) -> Message

    public init(limit: Int, decode: @escaping (UnsafeRawBufferPointer) throws(ProtocolError) -> Message) {
        self.limit = limit
        self.decodeFrame = decode
    }

    public mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let raw = buffer.getInteger(at: buffer.readerIndex, endianness: .little, as: UInt32.self) else {
            return .needMoreData
        }
        let length = Int(raw)
        guard length >= 1, length <= limit else { throw ProtocolError.frameLength(length, limit: limit) }
        guard buffer.readableBytes >= FrameHeader.lengthFieldSize + length else { return .needMoreData }
        buffer.moveReaderIndex(forwardBy: FrameHeader.lengthFieldSize)
        let decode = decodeFrame
        let message = try buffer.readWithUnsafeReadableBytes { bytes throws(ProtocolError) -> (Int, Message) in
            (length, try decode(UnsafeRawBufferPointer(rebasing: bytes.prefix(length))))
        }
        context.fireChannelRead(wrapInboundOut(message))
        return .continue
    }

    public mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        // A peer that vanishes mid-frame leaves a partial frame: it is dropped with the connection.
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}

extension ByteBuffer {
    /// Appends bytes a ``ByteWriter`` made.
    public mutating func writeFrames(_ writer: ByteWriter) {
        writeBytes(writer.bytes)
    }
}
