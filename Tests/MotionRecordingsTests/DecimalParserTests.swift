import Foundation
@testable import MotionRecordings
import Testing

/// The byte-level number parser must give exactly the standard library's correctly rounded value.
@Suite struct DecimalParserTests {
    func parse(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBufferPointer { DecimalParser.parseDouble($0, 0, $0.count) }
    }

    func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case let (x?, y?): x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
        default: false
        }
    }

    @Test func shortestRoundTripOfRandomDoublesIsBitExact() {
        var rng = SystemRandomNumberGenerator()
        var failures: [String] = []
        for _ in 0..<200_000 {
            // Random bit patterns cover every exponent; keep finite ones.
            let x = Double(bitPattern: rng.next())
            guard x.isFinite else { continue }
            let text = x.description
            if !same(parse(text), x) { failures.append(text) }
        }
        for _ in 0..<200_000 {
            // Values in the range sensors produce.
            let x = Double.random(in: -100...100, using: &rng) * pow(10, Double(Int.random(in: -8...4, using: &rng)))
            let text = x.description
            if !same(parse(text), x) { failures.append(text) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func randomDecimalStringsMatchTheStandardLibrary() {
        var rng = SystemRandomNumberGenerator()
        var failures: [String] = []
        for _ in 0..<200_000 {
            let digits = Int.random(in: 1...22, using: &rng)
            var s = Int.random(in: 0...1, using: &rng) == 0 ? "" : "-"
            var mantissa = ""
            for k in 0..<digits { mantissa.append(Character(String(k == 0 ? Int.random(in: 1...9, using: &rng) : Int.random(in: 0...9, using: &rng)))) }
            let point = Int.random(in: 0...digits, using: &rng)
            mantissa.insert(".", at: mantissa.index(mantissa.startIndex, offsetBy: point))
            s += mantissa
            if Bool.random(using: &rng) { s += "e\(Int.random(in: -40...40, using: &rng))" }
            if !same(parse(s), Double(s)) { failures.append(s) }
        }
        #expect(failures.isEmpty, "\(failures.prefix(5))")
    }

    @Test func halfwayAndBoundaryCases() {
        let cases = [
            "0", "-0", "-0.0", "0.0000", "1", "1.", ".5", "+2.5", "1e-05", "6.05841121503447e-05", "3.2462616333848516E-5",
            "9007199254740993", "9007199254740992.5", "2.2250738585072011e-308", "2.2250738585072014e-308",
            "4.9406564584124654e-324", "5e-324", "1.7976931348623157e308", "1.7976931348623159e308", "1e400",
            "0.1", "0.2", "0.30000000000000004", "123456789012345678901234567890", "0.000000000000000000000000000001",
            "1745877875760478500", "-0.9183502197265625", "0.19109014261066912", "285.71428571428572",
            "  7.5 ", "1e+3", "1E3", "00001.5000",
        ]
        for text in cases {
            #expect(same(parse(text), Double(text.trimmingCharacters(in: .whitespaces))), "\(text)")
        }
    }

    @Test func specialsAndMalformedText() {
        #expect(parse("nan")!.isNaN)
        #expect(parse("NaN")!.isNaN)
        #expect(parse("inf") == .infinity)
        #expect(parse("-Infinity") == -.infinity)
        for bad in ["", " ", "-", "+", ".", "e5", "1e", "1e+", "1.2.3", "1,5", "abc", "0x1p3", "1e5x", "--1", "nan1", "in"] {
            #expect(parse(bad) == nil, "\(bad)")
        }
    }

    @Test func integers() {
        func int(_ text: String) -> Int64? {
            Array(text.utf8).withUnsafeBufferPointer { DecimalParser.parseInt64($0.baseAddress!, 0, $0.count) }
        }
        #expect(int("1745877875760478500") == 1_745_877_875_760_478_500)
        #expect(int("-42") == -42)
        #expect(int("9223372036854775807") == .max)
        #expect(int("9223372036854775808") == nil)
        #expect(int("12.5") == nil)
        #expect(int("") == nil)
    }
}
