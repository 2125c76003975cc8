import Testing
@testable import MotionIIO

@Suite("sampling rates")
struct RatesTests {
    @Test("a discrete list: round up to the nearest offered rate")
    func list() throws {
        // lsm6dsx: "12.500 26.000 52.000 104.000 208.000 416.000".
        let r = try #require(IIORates(parsing: "12.500 26.000 52.000 104.000 208.000 416.000\n"))
        #expect(r.minimum == 12.5 && r.maximum == 416)
        #expect(r.availableRates == [12.5, 26, 52, 104, 208, 416])
        #expect(r.choose(50) == 52)     // 50 Hz asked: 52 is the slowest rate giving at least 50
        #expect(r.choose(52) == 52)
        #expect(r.choose(52.0000000001) == 52)  // float noise from 1/interval does not skip a rate
        #expect(r.choose(100) == 104)
        #expect(r.choose(1) == 12.5)
        #expect(r.choose(1000) == 416)  // faster than offered: the fastest
        #expect(r.choose(0) == 12.5)
    }

    @Test("zero and duplicates are not rates")
    func cleanList() throws {
        let r = try #require(IIORates(parsing: "0 2 4 4 6 8"))
        #expect(r.availableRates == [2, 4, 6, 8])
        #expect(IIORates(parsing: "0") == nil)
    }

    @Test("a [min step max] range")
    func range() throws {
        let r = try #require(IIORates(parsing: "[1 0.5 100]\n"))
        #expect(r.minimum == 1 && r.maximum == 100)
        #expect(r.availableRates == nil)
        #expect(r.choose(50.2) == 50.5)  // 1 + ceil((50.2 − 1) / 0.5) · 0.5 = 1 + 99 · 0.5 = 50.5
        #expect(r.choose(50.5) == 50.5)
        #expect(r.choose(0.2) == 1)
        #expect(r.choose(500) == 100)
        // A range starting at 0 (0 = off) starts one step up.
        let fromZero = try #require(IIORates(parsing: "[0 10 100]"))
        #expect(fromZero.minimum == 10)
    }

    @Test("malformed lists are rejected")
    func malformed() {
        for text in ["", "abc", "[1 2]", "[1 2 3", "1,2,3", "[a b c]", "[5 1 2]"] {
            #expect(IIORates(parsing: text) == nil, "\(text)")
        }
    }

    @Test("no list: free within the polled range")
    func unspecified() {
        let r = IIORates(unspecifiedFrom: 1, to: 100)
        #expect(r.choose(37.5) == 37.5)
        #expect(r.choose(1000) == 100)
        #expect(r.choose(0.1) == 1)
    }
}
