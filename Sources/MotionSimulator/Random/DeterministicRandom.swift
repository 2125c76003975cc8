/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
/// 2014): a 64-bit generator used here to expand one seed into independent stream states.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The generator's 64-bit state.
    public private(set) var state: UInt64

    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// xoshiro256** 1.0 (Blackman & Vigna, "Scrambled linear pseudorandom number generators", ACM
/// TOMS 2021): the simulator's noise generator. Seeded through ``SplitMix64`` as its authors
/// recommend; the output depends only on the seed and is identical on every platform.
public struct Xoshiro256StarStar: RandomNumberGenerator, Sendable, Hashable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator for `seed`, stream `stream`: distinct streams of one seed are independent for
    /// all practical purposes (their states come from different SplitMix64 outputs).
    public init(seed: UInt64, stream: UInt64 = 0) {
        var mixer = SplitMix64(seed: seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        // Mix the stream number in twice so that nearby (seed, stream) pairs do not share states.
        _ = mixer.next()
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }  // the all-zero state is the one state to avoid
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    private func rotateLeft(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniform double in the open interval (0, 1): the top 53 bits, offset by half an ulp so
    /// that 0 never occurs (Box–Muller takes its logarithm).
    public mutating func nextOpenUnit() -> Double {
        (Double(next() >> 11) + 0.5) * 0x1.0p-53
    }
}

/// Standard normal deviates by the Box–Muller transform (Box & Muller, Ann. Math. Statist. 29,
/// 1958), using ``PortableMath`` so that the deviates are bit-identical on every platform.
public struct GaussianGenerator: Sendable, Hashable {
    private var uniform: Xoshiro256StarStar
    private var spare: Double?

    /// Deviates from stream `stream` of `seed`.
    public init(seed: UInt64, stream: UInt64) {
        uniform = Xoshiro256StarStar(seed: seed, stream: stream)
    }

    /// The next N(0, 1) deviate.
    public mutating func next() -> Double {
        if let s = spare {
            spare = nil
            return s
        }
        let u1 = uniform.nextOpenUnit()
        let u2 = uniform.nextOpenUnit()
        let r = (-2 * PortableMath.log(u1)).squareRoot()
        let (s, c) = PortableMath.sinCos(turns: u2)
        spare = r * s
        return r * c
    }

    /// A uniform double in (0, 1) from the same stream.
    public mutating func nextUniform() -> Double { uniform.nextOpenUnit() }
}
