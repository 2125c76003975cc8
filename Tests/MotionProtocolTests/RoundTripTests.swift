import Foundation
import MotionProtocol
import Testing

@Suite struct RoundTripTests {
    @Test func everyClientMessageTypeIsCovered() {
        #expect(Set(everyClientMessage.map(\.type)) == Set(MessageType.allCases.filter(\.isFromClient)))
    }

    @Test func everyDaemonMessageTypeRecordKindReplyAndEventIsCovered() {
        #expect(Set(everyDaemonMessage.map(\.type)) == Set(MessageType.allCases.filter { !$0.isFromClient }))
        var kinds = Set<RecordKind>()
        var replies = Set<Int>()
        var events = Set<Int>()
        for message in everyDaemonMessage {
            switch message {
            case .samples(_, let values): kinds.formUnion(values.map(\.kind))
            case .reply(_, let reply):
                switch reply {
                case .done: replies.insert(0)
                case .pedometer: replies.insert(1)
                case .activities: replies.insert(2)
                case .recorded: replies.insert(3)
                case .document: replies.insert(4)
                case .error: replies.insert(5)
                }
            case .event(let event):
                switch event {
                case .sensorLost: events.insert(1)
                case .sensorReturned: events.insert(2)
                case .endOfData: events.insert(3)
                case .authorizationChanged: events.insert(4)
                case .streamEnded: events.insert(5)
                }
            default: break
            }
        }
        #expect(kinds == Set(RecordKind.allCases))
        #expect(replies == Set(0...5))
        #expect(events == Set(1...5))
    }

    @Test(arguments: everyClientMessage)
    func clientMessage(_ message: ClientMessage) throws {
        let bytes = message.encoded
        #expect(bytes.withUnsafeBytes { FrameHeader.declaredLength($0) } == bytes.count - 4)
        #expect(bytes[4] == message.type.rawValue)
        let decoded = try decodeClient(payloadOf(bytes))
        #expect(decoded == message)
        #expect(decoded.encoded == bytes)
    }

    @Test(arguments: everyDaemonMessage)
    func daemonMessage(_ message: DaemonMessage) throws {
        let bytes = message.encoded
        #expect(bytes.withUnsafeBytes { FrameHeader.declaredLength($0) } == bytes.count - 4)
        #expect(bytes[4] == message.type.rawValue)
        let decoded = try decodeDaemon(payloadOf(bytes))
        #expect(decoded == message)
        #expect(decoded.encoded == bytes)
    }

    @Test(arguments: RecordKind.allCases)
    func recordSizeMatchesTheTable(_ kind: RecordKind) throws {
        for value in valuesOfEveryKind[kind]! {
            var w = ByteWriter()
            RecordCodec.encode(value, into: &w)
            #expect(w.count == kind.size)
            #expect(value.kind == kind)
            let decoded = try w.bytes.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                let value = try RecordCodec.decode(kind, from: &r)
                #expect(r.remaining == 0)
                return value
            }
            #expect(decoded == value)
        }
    }

    /// "None" travels as NaN and comes back as `nil`; any NaN means none, whatever its payload.
    @Test func nanIsNone() throws {
        let message = DaemonMessage.samples(stream: 1, values: [.sensor(.barometer(PressureReading(time: 1, kilopascals: 100)))])
        let bytes = payloadOf(message.encoded)
        #expect(Array(bytes.suffix(8)) == withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { Array($0) })
        var signalling = bytes
        signalling.replaceSubrange((bytes.count - 8)..., with: [0x01, 0, 0, 0, 0, 0, 0xF0, 0xFF])  // a negative NaN with a payload
        #expect(try decodeDaemon(signalling) == message)
    }

    @Test func theHelloKeepsItsLayoutAndTheFlagsAreIgnored() throws {
        let frame = FrameBytes(.hello).u32(ProtocolVersion.magic).u16(3).u16(0xFFFF).string("app").bytes
        #expect(Array(frame[1...4]) == Array("CMOT".utf8))
        #expect(try decodeClient(frame) == .hello(ClientHello(version: 3, appHint: "app")))
    }

    @Test func aLongAppHintIsCutAtACharacterBoundary() throws {
        let hint = String(repeating: "a", count: 254) + "é"  // 256 bytes: é does not fit
        let decoded = try decodeClient(payloadOf(ClientMessage.hello(ClientHello(appHint: hint)).encoded))
        #expect(decoded == .hello(ClientHello(appHint: String(repeating: "a", count: 254))))
    }

    /// Version 2 added the headphones; a hello of version 1 still decodes (the daemon then refuses it by
    /// its version, naming both), and the welcome's headphone source sits between the device name and the
    /// sensors.
    @Test func versionTwoCarriesTheHeadphones() throws {
        #expect(ProtocolVersion.current == 2)
        #expect(try decodeClient(payloadOf(ClientMessage.hello(ClientHello(version: 1, appHint: "old")).encoded))
            == .hello(ClientHello(version: 1, appHint: "old")))
        let frame = FrameBytes(.welcome).u16(2).u8(3).u8(4).u8(1).u32(1).string("a").string("d").string("sim:head-nod").u8(0).bytes
        guard case .welcome(let welcome) = try decodeDaemon(frame) else {
            Issue.record("not a welcome")
            return
        }
        #expect(welcome.headphones == "sim:head-nod")
        #expect(RecordKind.headphoneMotion.rawValue == 12 && RecordKind.headphoneConnection.rawValue == 13)
        #expect(MessageType.subscribeHeadphoneConnection.rawValue == 0x09 && MessageType.subscribeHeadphoneActivity.rawValue == 0x0B)
    }

    @Test func anUnknownFailureCodeIsStillReadable() throws {
        let frame = FrameBytes(.failure).u16(999).string("a newer daemon's reason").bytes
        #expect(try decodeDaemon(frame) == .failure(.malformedFrame, message: "a newer daemon's reason"))
    }

    @Test func unknownReferenceFrameBitsAreIgnored() throws {
        let frame = FrameBytes(.welcome).u16(1).u8(3).u8(0).u8(0xF4).u32(1).string("a").string("d").string("").u8(0).bytes
        guard case .welcome(let welcome) = try decodeDaemon(frame) else {
            Issue.record("not a welcome")
            return
        }
        #expect(welcome.referenceFrames == [.xMagneticNorthZVertical])
    }
}

@Suite struct FrameSplitterTests {
    static let stream = everyClientMessage.flatMap(\.encoded)

    @Test func aStreamInAnyPiecesGivesTheSameFrames() throws {
        for pieceSize in [1, 2, 3, 5, 64, Self.stream.count] {
            var splitter = FrameSplitter(limit: FrameHeader.maximumClientFrame)
            var messages: [ClientMessage] = []
            var offset = 0
            while offset < Self.stream.count {
                let end = min(offset + pieceSize, Self.stream.count)
                splitter.append(Self.stream[offset..<end])
                offset = end
                while let frame = try splitter.nextFrame() { messages.append(try decodeClient(frame)) }
            }
            #expect(messages == everyClientMessage, "pieces of \(pieceSize) bytes")
            #expect(splitter.pendingByteCount == 0)
        }
    }

    /// Thousands of frames in one piece: the splitter drops what it has read as it goes.
    @Test func manyFramesInOnePiece() throws {
        let messages = (0..<20_000).map { ClientMessage.status(request: UInt32($0)) }
        var splitter = FrameSplitter(limit: FrameHeader.maximumClientFrame)
        splitter.append(messages.flatMap(\.encoded))
        var decoded: [ClientMessage] = []
        while let frame = try splitter.nextFrame() { decoded.append(try decodeClient(frame)) }
        #expect(decoded == messages)
        #expect(splitter.pendingByteCount == 0)
    }

    /// The most records the daemon puts in one frame fit the client's limit.
    @Test(arguments: RecordKind.allCases)
    func aFullSamplesFrameFitsTheDaemonLimit(_ kind: RecordKind) throws {
        let count = DaemonMessage.recordsPerFrame(kind)
        let message = DaemonMessage.samples(stream: 1, values: Array(repeating: valuesOfEveryKind[kind]![0], count: count))
        var splitter = FrameSplitter(limit: FrameHeader.maximumDaemonFrame)
        splitter.append(message.encoded)
        let frame = try #require(try splitter.nextFrame())
        #expect(try decodeDaemon(frame) == message)
    }

    @Test func aFullRecordedPageFitsTheDaemonLimit() throws {
        let count = DaemonMessage.recordsPerFrame(.recordedAccelerometer)
        let message = DaemonMessage.reply(request: 1, .recorded(Array(repeating: sampleRecorded, count: count), more: true))
        var splitter = FrameSplitter(limit: FrameHeader.maximumDaemonFrame)
        splitter.append(message.encoded)
        let frame = try #require(try splitter.nextFrame())
        #expect(try decodeDaemon(frame) == message)
    }

    @Test func aFrameAtTheLimitIsWaitedFor() throws {
        var splitter = FrameSplitter(limit: FrameHeader.maximumClientFrame)
        splitter.append(FrameBytes(.status).raw([UInt8](repeating: 0, count: FrameHeader.maximumClientFrame - 1)).framed.prefix(100))
        #expect(try splitter.nextFrame() == nil)
        #expect(splitter.pendingByteCount == 100)
    }

    /// The length is judged as soon as it arrives, so a hostile peer cannot make the reader hold more than
    /// the limit.
    @Test(arguments: [0, FrameHeader.maximumClientFrame + 1, Int(UInt32.max)])
    func aBadLengthIsRefusedBeforeThePayload(_ length: Int) {
        var splitter = FrameSplitter(limit: FrameHeader.maximumClientFrame)
        var w = ByteWriter()
        w.u32(UInt32(length))
        splitter.append(w.bytes)
        #expect(throws: ProtocolError.frameLength(length, limit: FrameHeader.maximumClientFrame)) { try splitter.nextFrame() }
    }
}
