import Foundation

/// Bytes that are not a valid frame. Every case names what is wrong, so that the peer's log says it.
public enum ProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The frame ends inside `field`.
    case truncated(String)
    /// `field` holds a value outside its domain.
    case invalidValue(field: String, value: String)
    /// The frame's declared length is 0 or above the limit.
    case frameLength(Int, limit: Int)
    /// A message type this version does not know.
    case unknownMessageType(UInt8)
    /// A message type that this side never receives (a daemon message sent to the daemon).
    case unexpectedMessageType(MessageType)
    /// Bytes left after a message's last field.
    case trailingBytes(message: String, count: Int)
    /// The first frame is not a hello, or the magic is wrong: not our protocol at all.
    case notCoreMotion(String)

    public var description: String {
        switch self {
        case .truncated(let field): "frame ends inside \(field)"
        case .invalidValue(let field, let value): "\(field) is invalid: \(value)"
        case .frameLength(let length, let limit): "frame length \(length) is outside 1…\(limit)"
        case .unknownMessageType(let type): "unknown message type 0x\(String(type, radix: 16))"
        case .unexpectedMessageType(let type): "message \(type) is not expected from this peer"
        case .trailingBytes(let message, let count): "\(count) bytes after the end of \(message)"
        case .notCoreMotion(let why): "not a Core Motion protocol peer: \(why)"
        }
    }
}
