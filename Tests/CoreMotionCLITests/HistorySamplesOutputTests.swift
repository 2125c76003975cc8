@testable import CoreMotionCLI
import Foundation
import Testing

/// How `coremotion history samples --sensor` prints a phone's stored readings: field names from the phone as
/// CSV fields, float4 values as the float4 they were stored as.
@Suite("history samples --sensor: output")
struct HistorySamplesOutputTests {
    @Test("a field name with a comma, a quote or a line break is quoted as one CSV field")
    func quotesFieldNames() {
        #expect(HistoryCommand.Samples.csvField("x") == "x")
        #expect(HistoryCommand.Samples.csvField("a,b") == "\"a,b\"")
        #expect(HistoryCommand.Samples.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(HistoryCommand.Samples.csvField("two\nlines") == "\"two\nlines\"")
    }

    @Test("values stored as real print as their float4; doubles keep every digit")
    func printsStoredPrecision() {
        #expect(HistoryCommand.Samples.storedSingle(Double(Float(0.1))).map { "\($0)" } == "0.1")
        #expect(HistoryCommand.Samples.storedSingle(47.376_886_123_456) == nil)
        #expect(HistoryCommand.Samples.storedSingle(.infinity) == nil)
    }

    @Test("a JSON line keeps values under `values`, so a field called `time` cannot clash; NaN is null")
    func jsonLine() throws {
        let line = HistoryCommand.Samples.RawReadingLine(
            sensor: "odd", time: Date(timeIntervalSince1970: 1_790_000_000.5), fields: ["time", "v"], values: [Double(Float(0.25)), .nan])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .secondsSince1970
        let text = String(decoding: try encoder.encode(line), as: UTF8.self)
        #expect(text == #"{"sensor":"odd","time":1790000000.5,"unix_time":1790000000.5,"values":{"time":0.25,"v":null}}"#)
    }
}
