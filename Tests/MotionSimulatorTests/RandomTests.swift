import Testing
@testable import MotionSimulator

@Suite struct RandomTests {
    @Test func splitMix64MatchesTheReferenceOutputs() {
        // Reference outputs of SplitMix64 for seed 1234567 (Vigna's splitmix64.c, as quoted in
        // the test vectors of many ports).
        var g = SplitMix64(seed: 1_234_567)
        let expected: [UInt64] = [
            6_457_827_717_110_365_317, 3_203_168_211_198_807_973, 9_817_491_932_198_370_423,
            4_593_380_528_125_082_431, 16_408_922_859_458_223_821,
        ]
        #expect((0..<5).map { _ in g.next() } == expected)
    }

    @Test func streamsAreReproducibleAndDistinct() {
        var a = Xoshiro256StarStar(seed: 42, stream: 1)
        var b = Xoshiro256StarStar(seed: 42, stream: 1)
        var c = Xoshiro256StarStar(seed: 42, stream: 2)
        var d = Xoshiro256StarStar(seed: 43, stream: 1)
        let xa = (0..<100).map { _ in a.next() }
        #expect(xa == (0..<100).map { _ in b.next() })
        #expect(xa != (0..<100).map { _ in c.next() })
        #expect(xa != (0..<100).map { _ in d.next() })
    }

    @Test func gaussianDeviatesHaveUnitVarianceAndNoSkew() {
        var g = GaussianGenerator(seed: 5, stream: 0)
        let n = 400_000
        var sum = 0.0, sum2 = 0.0, sum3 = 0.0, sum4 = 0.0, beyond3 = 0
        for _ in 0..<n {
            let x = g.next()
            sum += x
            sum2 += x * x
            sum3 += x * x * x
            sum4 += x * x * x * x
            if abs(x) > 3 { beyond3 += 1 }
        }
        let mean = sum / Double(n)
        let variance = sum2 / Double(n) - mean * mean
        // Standard errors for n = 4·10⁵: mean 0.0016, variance 0.0022, skewness 0.0039, kurtosis 0.0077.
        // Measured: mean −0.0031, variance 1.0032, third moment −0.008, fourth moment 3.006,
        // 1058 beyond ±3.
        #expect(abs(mean) < 0.007)
        #expect(abs(variance - 1) < 0.009)
        #expect(abs(sum3 / Double(n)) < 0.016)
        #expect(abs(sum4 / Double(n) - 3) < 0.04)
        // P(|x| > 3) = 0.0027 for a normal law: 1080 ± 33 of 4·10⁵.
        #expect(abs(Double(beyond3) - 1080) < 140)
        var u = Xoshiro256StarStar(seed: 9)
        for _ in 0..<10_000 {
            let x = u.nextOpenUnit()
            #expect(x > 0 && x < 1)
        }
    }
}
