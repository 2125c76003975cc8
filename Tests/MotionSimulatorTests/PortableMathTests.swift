import Foundation
import Testing
@testable import MotionSimulator

/// The simulator's own elementary functions against the C library: within a few ulps, so that the
/// physics is right, while being bit-identical on every platform (the C library is not).
@Suite struct PortableMathTests {
    private func ulps(_ a: Double, _ b: Double) -> Double {
        guard a != b else { return 0 }
        return abs(a - b) / max(b.ulp, Double.leastNormalMagnitude)
    }

    @Test func sineAndCosineAgreeWithTheCLibrary() {
        var random = Xoshiro256StarStar(seed: 11)
        var worst = 0.0, worstAbs = 0.0
        for i in 0..<200_000 {
            // Small, moderate and large arguments (phases of long scenes reach 10⁷ rad).
            let scale = [1.0, 10, 1000, 1e6][i % 4]
            let x = (random.nextOpenUnit() * 2 - 1) * scale
            let (s, c) = PortableMath.sinCos(x)
            if abs(x) < 1000 {
                worst = max(worst, ulps(s, sin(x)) * (abs(sin(x)) > 1e-3 ? 1 : 0), ulps(c, cos(x)) * (abs(cos(x)) > 1e-3 ? 1 : 0))
            }
            worstAbs = max(worstAbs, abs(s - sin(x)), abs(c - cos(x)))
        }
        // Measured: 1 ulp worst for |x| < 1000 (values away from zero); 1.1e-16 absolute up to 10⁶.
        #expect(worst <= 2)
        #expect(worstAbs < 1e-14)
    }

    @Test func turnsReduceExactly() {
        // sin(2π·(n + 0.25)) must be 1 for any whole n, even huge ones.
        for n in [0.0, 1, 12345, 1e9, 1e12] {
            #expect(abs(PortableMath.sinCos(turns: n + 0.25).sin - 1) < 1e-15)
        }
    }

    @Test func expLogPowAgreeWithTheCLibrary() {
        var random = Xoshiro256StarStar(seed: 12)
        var worstExp = 0.0, worstLog = 0.0, worstPow = 0.0
        for _ in 0..<100_000 {
            let x = (random.nextOpenUnit() * 2 - 1) * 700
            worstExp = max(worstExp, ulps(PortableMath.exp(x), exp(x)))
            let y = PortableMath.exp((random.nextOpenUnit() * 2 - 1) * 700)
            worstLog = max(worstLog, abs(PortableMath.log(y) - log(y)) / max(abs(log(y)).ulp, 1e-300))
            let base = 0.5 + random.nextOpenUnit()
            worstPow = max(worstPow, ulps(PortableMath.pow(base, 5.25588), pow(base, 5.25588)))
        }
        // Measured: exp 1 ulp, log 1 ulp, pow 6 ulps (exp(y·log x) amplifies the rounding of
        // y·log x by |y·log x| ≤ 3.6 here, the barometric formula's range).
        #expect(worstExp <= 2)
        #expect(worstLog <= 2)
        #expect(worstPow <= 8)
        #expect(PortableMath.log(1) == 0)
        #expect(PortableMath.exp(0) == 1)
        #expect(PortableMath.log(0) == -.infinity)
        #expect(PortableMath.log(-1).isNaN)
    }

    @Test func arctangentAgreesWithTheCLibrary() {
        var random = Xoshiro256StarStar(seed: 13)
        var worst = 0.0
        for _ in 0..<100_000 {
            let y = (random.nextOpenUnit() * 2 - 1) * 10
            let x = (random.nextOpenUnit() * 2 - 1) * 10
            worst = max(worst, abs(PortableMath.atan2(y, x) - atan2(y, x)))
        }
        // Measured: 8.9e-16 rad (4 ulps of π).
        #expect(worst < 2e-15)
        #expect(PortableMath.atan2(0, -1) == PortableMath.pi)
        #expect(abs(PortableMath.atan(1e300) - Double.pi / 2) < 1e-15)
        #expect(abs(PortableMath.acos(-1) - Double.pi) < 1e-15)
    }
}
