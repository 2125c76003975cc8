import Foundation

/// The framing of every message, in both directions and in every protocol version:
///
/// ```
/// u32 LE  length   bytes after this field (1 type byte + payload), 1 … limit
/// u8      type     ``MessageType``
/// …       payload  the message's fields, little-endian
/// ```
///
/// The framing, the hello (``ClientHello``) and the error message (``DaemonMessage/failure(_:)``) never
/// change between versions, so that a client and a daemon of different versions always understand why
/// they cannot talk.
public enum FrameHeader {
    /// Size of the length field, bytes.
    public static let lengthFieldSize = 4
    /// Largest frame a client may send (type + payload), bytes: 64 KiB. Larger is a hostile client.
    public static let maximumClientFrame = 64 * 1024
    /// Largest frame the daemon sends (type + payload), bytes: 1 MiB.
    public static let maximumDaemonFrame = 1024 * 1024

    /// The frame length declared at the start of `bytes`, when 4 bytes are there.
    public static func declaredLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard bytes.count >= lengthFieldSize else { return nil }
        return Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
    }
}

/// The protocol version this build speaks.
public enum ProtocolVersion {
    /// Version 2: headphones (the welcome's headphone source; subscribeHeadphoneConnection, …Motion, …Activity;
    /// records 12 headphone motion and 13 headphone connection). Version 1 was the first; a daemon and a client
    /// of different versions refuse each other with `failure(unsupportedVersion)` naming both.
    public static let current: UInt16 = 2
    /// The magic number that opens a hello: the bytes `CMOT`.
    public static let magic: UInt32 = 0x544F_4D43
}

/// Every message type. Client → daemon below 0x80, daemon → client from 0x80.
public enum MessageType: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Client → daemon.
    case hello = 0x01
    case subscribeSensor = 0x02
    case subscribeDeviceMotion = 0x03
    case subscribeAltitude = 0x04
    case subscribePedometer = 0x05
    case subscribePedometerEvents = 0x06
    case subscribeActivity = 0x07
    case unsubscribe = 0x08
    case subscribeHeadphoneConnection = 0x09
    case subscribeHeadphoneMotion = 0x0A
    case subscribeHeadphoneActivity = 0x0B
    case queryPedometer = 0x10
    case queryActivity = 0x11
    case recordAccelerometer = 0x12
    case queryRecordedAccelerometer = 0x13
    case status = 0x14
    case permissions = 0x15
    // Daemon → client.
    case welcome = 0x81
    case samples = 0x82
    case dropped = 0x83
    case reply = 0x84
    case event = 0x85
    case failure = 0xFF

    /// Whether clients send it.
    public var isFromClient: Bool { rawValue < 0x80 }

    public var description: String {
        switch self {
        case .hello: "hello"
        case .subscribeSensor: "subscribeSensor"
        case .subscribeDeviceMotion: "subscribeDeviceMotion"
        case .subscribeAltitude: "subscribeAltitude"
        case .subscribePedometer: "subscribePedometer"
        case .subscribePedometerEvents: "subscribePedometerEvents"
        case .subscribeActivity: "subscribeActivity"
        case .unsubscribe: "unsubscribe"
        case .subscribeHeadphoneConnection: "subscribeHeadphoneConnection"
        case .subscribeHeadphoneMotion: "subscribeHeadphoneMotion"
        case .subscribeHeadphoneActivity: "subscribeHeadphoneActivity"
        case .queryPedometer: "queryPedometer"
        case .queryActivity: "queryActivity"
        case .recordAccelerometer: "recordAccelerometer"
        case .queryRecordedAccelerometer: "queryRecordedAccelerometer"
        case .status: "status"
        case .permissions: "permissions"
        case .welcome: "welcome"
        case .samples: "samples"
        case .dropped: "dropped"
        case .reply: "reply"
        case .event: "event"
        case .failure: "failure"
        }
    }
}

/// Splits a byte stream into frames: feed bytes as they arrive, take complete frames out.
///
/// A declared length of 0 or above `limit` is an error at once (before the bytes arrive), so a hostile
/// peer cannot make the reader buffer more than `limit` bytes.
public struct FrameSplitter: Sendable {
    public let limit: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(limit: Int) {
        self.limit = limit
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        buffer.append(contentsOf: bytes)
    }

    /// Bytes held that do not make a whole frame yet.
    public var pendingByteCount: Int { buffer.count - start }

    /// The next complete frame (type byte and payload), `nil` when more bytes are needed.
    public mutating func nextFrame() throws(ProtocolError) -> [UInt8]? {
        let available = buffer.count - start
        guard available >= FrameHeader.lengthFieldSize else { return nil }
        let length = buffer.withUnsafeBytes { raw in
            Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
        }
        guard length >= 1, length <= limit else { throw .frameLength(length, limit: limit) }
        guard available >= FrameHeader.lengthFieldSize + length else { return nil }
        let from = start + FrameHeader.lengthFieldSize
        let frame = Array(buffer[from..<(from + length)])
        start = from + length
        if start > 65_536 || start == buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        return frame
    }
}
