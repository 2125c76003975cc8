import MotionLiveViewProtocol
import Testing

@Suite("Commands from the page")
struct PageCommandTests {
    private func decode(_ text: String) throws(PageCommandError) -> PageCommand {
        try PageCommand.decode(Array(text.utf8))
    }

    @Test("every command decodes")
    func commands() throws {
        #expect(try decode(#"{"type":"play"}"#) == .play)
        #expect(try decode(#" { "type" : "pause" } "#) == .pause)
        #expect(try decode(#"{"type":"seek","time":12.5}"#) == .seek(time: 12.5))
        #expect(try decode(#"{"time":0,"type":"seek"}"#) == .seek(time: 0))
        #expect(try decode(#"{"type":"speed","value":2e0}"#) == .speed(2))
        #expect(try decode(#"{"type":"frame","frame":"xArbitraryZVertical"}"#) == .referenceFrame("xArbitraryZVertical"))
        #expect(try decode(#"{"type":"p\u006cay","extra":null,"flag":true}"#) == .play)
        #expect(try decode(#"{"type":"ping","id":7}"#) == .ping(id: 7))
    }

    @Test("garbage is refused with an error, never a crash", arguments: [
        "", "{", "}", "[]", "null", "\"play\"", "{\"type\":}", "{\"type\":\"play\"", "{\"type\":\"play\"}}",
        "{\"type\":\"play\",}", "{type:\"play\"}", "{\"type\":\"dance\"}", "{\"type\":7}", "{\"type\":\"seek\"}",
        "{\"type\":\"seek\",\"time\":-1}", "{\"type\":\"seek\",\"time\":1e400}", "{\"type\":\"seek\",\"time\":\"3\"}",
        "{\"type\":\"speed\",\"value\":0}", "{\"type\":\"speed\",\"value\":1000}", "{\"type\":\"frame\",\"frame\":\"up\"}",
        "{\"type\":\"seek\",\"time\":01}", "{\"type\":\"seek\",\"time\":1.}", "{\"type\":\"seek\",\"time\":-}",
        "{\"type\":\"play\",\"type\":\"pause\"}", "{\"type\":\"play\",\"x\":{\"y\":1}}", "{\"type\":\"play\",\"x\":[1]}",
        "{\"type\":\"pl\\ud800ay\"}", "{\"type\":\"pl\\qay\"}", "{\"type\":\"pl\nay\"}", "{\"type\":\"ping\",\"id\":1.5}",
        "{\"type\":\"play\"} x", "{\"type\":tru}", "\u{FEFF}{\"type\":\"play\"}",
    ])
    func garbage(_ text: String) {
        #expect(throws: PageCommandError.self) { try decode(text) }
    }

    @Test("invalid UTF-8 and control bytes are refused")
    func bytes() {
        #expect(throws: PageCommandError.self) { try PageCommand.decode([0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x3A, 0x31, 0x7D]) }
        #expect(throws: PageCommandError.self) { try PageCommand.decode([0x00, 0x01, 0x02]) }
    }

    @Test("a message over the limit is refused before it is parsed")
    func oversized() {
        let long = "{\"type\":\"play\",\"pad\":\"" + String(repeating: "x", count: 2000) + "\"}"
        #expect(throws: PageCommandError.tooLong(long.utf8.count)) { try decode(long) }
        let many = "{" + (0..<20).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
        #expect(throws: PageCommandError.self) { try decode(many) }
    }
}
