/// The quintic smoothstep S(u) = 10u³ − 15u⁴ + 6u⁵ on [0, 1] (0 before, 1 after): the blend
/// used for every transition. Its first and second derivatives vanish at both ends, so a quantity
/// blended with it keeps a continuous velocity and acceleration.
enum Smoothstep {
    /// S(u), clamped.
    @inlinable
    static func value(_ u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 1 }
        return u * u * u * (10 + u * (-15 + 6 * u))
    }

    /// S′(u) = 30u²(1 − u)², zero outside (0, 1).
    @inlinable
    static func slope(_ u: Double) -> Double {
        if u <= 0 || u >= 1 { return 0 }
        let v = u * (1 - u)
        return 30 * v * v
    }

    /// S″(u) = 60u(1 − u)(1 − 2u), zero outside (0, 1).
    @inlinable
    static func curvature(_ u: Double) -> Double {
        if u <= 0 || u >= 1 { return 0 }
        return 60 * u * (1 - u) * (1 - 2 * u)
    }

    /// ∫₀ᵘ S = u⁴(5/2 − 3u + u²) for u in [0, 1] (1/2 at u = 1; continued linearly after).
    @inlinable
    static func integral(_ u: Double) -> Double {
        if u <= 0 { return 0 }
        if u >= 1 { return 0.5 + (u - 1) }
        return u * u * u * u * (2.5 + u * (-3 + u))
    }

    /// S((τ − start)/length) as a jet of time τ.
    @inlinable
    static func jet(_ tau: Double, start: Double = 0, length: Double) -> Jet {
        let u = (tau - start) / length
        if u <= 0 { return .zero }
        if u >= 1 { return .one }
        return Jet(value(u), slope(u) / length, curvature(u) / (length * length))
    }
}
