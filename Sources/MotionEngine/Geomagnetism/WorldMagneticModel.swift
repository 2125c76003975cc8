import Foundation
import MotionSamples

/// The Earth's main magnetic field from a World Magnetic Model coefficient file (WMM2025 bundled).
///
/// Evaluates the degree-12 spherical-harmonic expansion of the model at a geodetic position and
/// decimal year, as the WMM technical report describes it: WGS-84 geodetic coordinates are
/// converted to geocentric spherical ones, the Gauss coefficients are moved to the date with
/// their linear secular variation, Schmidt semi-normalised associated Legendre functions give the
/// field in the geocentric frame, which is finally rotated back to the geodetic (ellipsoidal)
/// vertical. Pure and allocation-free per evaluation.
///
/// ```swift
/// let wmm = try WorldMagneticModel.wmm2025()
/// let field = wmm.field(latitude: 39.30, longitude: -76.59, altitude: 0.01, decimalYear: 2025.32)
/// field.declination   // degrees, east positive
/// ```
public struct WorldMagneticModel: Sendable {
    /// Model name from the file header, e.g. `"WMM-2025"`.
    public let name: String
    /// Epoch of the coefficients, decimal year (2025.0).
    public let epoch: Double
    /// Release date as written in the file header.
    public let releaseDate: String
    /// Highest degree of the expansion.
    public let maximumDegree: Int
    /// g, h, ġ, ḣ indexed by n(n+1)/2 + m, nT and nT/year.
    private let g: [Double], h: [Double], gDot: [Double], hDot: [Double]

    /// The years the model is published for: epoch ..< epoch + 5.
    public var validity: Range<Double> { epoch..<(epoch + 5) }

    /// Errors reading a coefficient file.
    public struct FormatError: Error, CustomStringConvertible, Sendable {
        /// The line of the file, from 1.
        public var line: Int
        /// What is wrong.
        public var message: String
        /// The line and the message.
        public var description: String { "WMM coefficient file, line \(line): \(message)" }
    }

    /// Parses a coefficient file in NOAA's `.COF` layout: a header line `epoch name date`, then one
    /// line `n m g h ġ ḣ` per coefficient, ended by a line of nines (or the end of the text).
    public init(coefficients text: String) throws {
        var lines = text.split(whereSeparator: \.isNewline).map(String.init)
        while let first = lines.first, first.trimmingCharacters(in: .whitespaces).isEmpty { lines.removeFirst() }
        guard let header = lines.first else { throw FormatError(line: 1, message: "empty file") }
        let headerFields = header.split(whereSeparator: \.isWhitespace).map(String.init)
        guard headerFields.count >= 2, let epoch = Double(headerFields[0]), epoch.isFinite else {
            throw FormatError(line: 1, message: "expected a header 'epoch name date', found '\(header)'")
        }
        self.epoch = epoch
        name = headerFields[1]
        releaseDate = headerFields.count > 2 ? headerFields[2] : ""
        var rows: [(Int, Int, Double, Double, Double, Double)] = []
        var maxDegree = 0
        for (index, line) in lines.dropFirst().enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            if trimmed.allSatisfy({ $0 == "9" }) { break }
            let f = trimmed.split(whereSeparator: \.isWhitespace)
            guard f.count >= 6, let n = Int(f[0]), let m = Int(f[1]), n >= 1, m >= 0, m <= n, n <= 30,
                  let gv = Double(f[2]), let hv = Double(f[3]), let gd = Double(f[4]), let hd = Double(f[5]),
                  gv.isFinite, hv.isFinite, gd.isFinite, hd.isFinite else {
                throw FormatError(line: index + 2, message: "expected 'n m g h gdot hdot' with 1 ≤ n ≤ 30 and 0 ≤ m ≤ n, found '\(trimmed)'")
            }
            rows.append((n, m, gv, hv, gd, hd))
            maxDegree = max(maxDegree, n)
        }
        guard maxDegree > 0 else { throw FormatError(line: 2, message: "no coefficients") }
        maximumDegree = maxDegree
        let size = (maxDegree + 1) * (maxDegree + 2) / 2
        var g = [Double](repeating: 0, count: size), h = g, gDot = g, hDot = g
        for (n, m, gv, hv, gd, hd) in rows {
            let i = n * (n + 1) / 2 + m
            g[i] = gv; h[i] = hv; gDot[i] = gd; hDot[i] = hd
        }
        self.g = g; self.h = h; self.gDot = gDot; self.hDot = hDot
    }

    /// The bundled WMM2025 model (loaded once).
    public static func wmm2025() throws -> WorldMagneticModel {
        try bundled.get()
    }

    private static let bundled: Result<WorldMagneticModel, any Error> = Result {
        let url: URL
        do {
            url = try EngineResources.url("WMM2025", "COF")
        } catch {
            throw FormatError(line: 0, message: "\(error)")
        }
        return try WorldMagneticModel(coefficients: String(contentsOf: url, encoding: .utf8))
    }

    /// The field at a geodetic position.
    /// - Parameters:
    ///   - latitude: geodetic latitude, degrees north (−90…90).
    ///   - longitude: degrees east.
    ///   - altitude: height above the WGS-84 ellipsoid, kilometres.
    ///   - decimalYear: e.g. 2027.5 (outside ``validity`` the secular variation is extrapolated).
    public func field(latitude: Double, longitude: Double, altitude: Double, decimalYear: Double) -> GeomagneticField {
        let deg = Double.pi / 180
        // WGS-84 geodetic → geocentric spherical.
        let a = 6378.137, flattening = 1 / 298.257223563
        let e2 = flattening * (2 - flattening)
        let lat = max(-90, min(90, latitude)) * deg
        let sinLat = sin(lat), cosLat = cos(lat)
        let rc = a / (1 - e2 * sinLat * sinLat).squareRoot()
        let p = (rc + altitude) * cosLat
        let zc = (rc * (1 - e2) + altitude) * sinLat
        let r = (p * p + zc * zc).squareRoot()
        let geocentricLatitude = atan2(zc, p)
        // Colatitude θ: cos θ = sin φ', sin θ = cos φ' (kept off zero at the poles).
        let cosTheta = zc / r
        let sinTheta = max(p / r, 1e-12)
        let lon = longitude * deg
        let dt = decimalYear - epoch
        let reference = 6371.2
        let nMax = maximumDegree
        let size = (nMax + 1) * (nMax + 2) / 2

        var north = 0.0, east = 0.0, down = 0.0
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * size + 2 * (nMax + 1)) { scratch in
            let pnm = UnsafeMutableBufferPointer(rebasing: scratch[0..<size])
            let dpnm = UnsafeMutableBufferPointer(rebasing: scratch[size..<(2 * size)])
            let cosM = UnsafeMutableBufferPointer(rebasing: scratch[(2 * size)..<(2 * size + nMax + 1)])
            let sinM = UnsafeMutableBufferPointer(rebasing: scratch[(2 * size + nMax + 1)..<(2 * size + 2 * (nMax + 1))])
            Self.schmidtLegendre(nMax: nMax, cosTheta: cosTheta, sinTheta: sinTheta, p: pnm, dp: dpnm)
            let c1 = cos(lon), s1 = sin(lon)
            cosM[0] = 1
            sinM[0] = 0
            for m in 1...nMax {
                cosM[m] = cosM[m - 1] * c1 - sinM[m - 1] * s1
                sinM[m] = sinM[m - 1] * c1 + cosM[m - 1] * s1
            }
            let ratio = reference / r
            var power = ratio * ratio  // (a/r)^(n+2) starts at n = 0
            for n in 1...nMax {
                power *= ratio
                let base = n * (n + 1) / 2
                for m in 0...n {
                    let i = base + m
                    let gt = g[i] + dt * gDot[i]
                    let ht = h[i] + dt * hDot[i]
                    let cosTerm = gt * cosM[m] + ht * sinM[m]
                    // X′ = Σ (a/r)^(n+2) (g cos mλ + h sin mλ) dP/dθ (north = −θ direction).
                    north += power * cosTerm * dpnm[i]
                    east += power * Double(m) * (gt * sinM[m] - ht * cosM[m]) * pnm[i]
                    down -= power * Double(n + 1) * cosTerm * pnm[i]
                }
            }
        }
        east /= sinTheta
        // Rotate from the geocentric to the geodetic vertical.
        let psi = geocentricLatitude - lat
        let x = north * cos(psi) - down * sin(psi)
        let z = north * sin(psi) + down * cos(psi)
        return GeomagneticField(north: x, east: east, down: z)
    }

    /// Schmidt semi-normalised associated Legendre functions P(n, m)(cos θ) and their derivatives
    /// with respect to θ, from the Gauss-normalised recursion and the Schmidt factors.
    private static func schmidtLegendre(
        nMax: Int, cosTheta c: Double, sinTheta s: Double,
        p: UnsafeMutableBufferPointer<Double>, dp: UnsafeMutableBufferPointer<Double>
    ) {
        @inline(__always) func idx(_ n: Int, _ m: Int) -> Int { n * (n + 1) / 2 + m }
        p[0] = 1
        dp[0] = 0
        for n in 1...nMax {
            for m in 0...n {
                let i = idx(n, m)
                if m == n {
                    let j = idx(n - 1, m - 1)
                    p[i] = s * p[j]
                    dp[i] = s * dp[j] + c * p[j]
                } else if n == 1 || m == n - 1 {
                    let j = idx(n - 1, m)
                    p[i] = c * p[j]
                    dp[i] = c * dp[j] - s * p[j]
                } else {
                    let j = idx(n - 1, m), k = idx(n - 2, m)
                    let kk = Double((n - 1) * (n - 1) - m * m) / Double((2 * n - 1) * (2 * n - 3))
                    p[i] = c * p[j] - kk * p[k]
                    dp[i] = c * dp[j] - s * p[j] - kk * dp[k]
                }
            }
        }
        // Gauss → Schmidt: S(n,0) = S(n−1,0)(2n−1)/n, S(n,m) = S(n,m−1)√((n−m+1)(δ(m,1)+1)/(n+m)).
        var sn0 = 1.0
        for n in 1...nMax {
            sn0 *= Double(2 * n - 1) / Double(n)
            var snm = sn0
            p[idx(n, 0)] *= snm
            dp[idx(n, 0)] *= snm
            for m in 1...n {
                snm *= (Double((n - m + 1) * (m == 1 ? 2 : 1)) / Double(n + m)).squareRoot()
                p[idx(n, m)] *= snm
                dp[idx(n, m)] *= snm
            }
        }
    }

    /// The magnetic declination (degrees, east positive) at a position and date.
    public func declination(latitude: Double, longitude: Double, altitude: Double = 0, date: Date) -> Double {
        field(latitude: latitude, longitude: longitude, altitude: altitude, decimalYear: Self.decimalYear(of: date)).declination
    }

    /// The decimal year of `date` in UTC (2025-07-02T12:00Z ≈ 2025.5).
    public static func decimalYear(of date: Date) -> Double {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let year = calendar.component(.year, from: date)
        guard let start = calendar.date(from: DateComponents(year: year, month: 1, day: 1)),
              let next = calendar.date(from: DateComponents(year: year + 1, month: 1, day: 1)) else { return .nan }
        return Double(year) + date.timeIntervalSince(start) / next.timeIntervalSince(start)
    }
}

/// The geomagnetic field at a point: components in the geodetic north-east-down frame, nT.
public struct GeomagneticField: Sendable, Hashable, Codable {
    /// Northward component X, nT.
    public var north: Double
    /// Eastward component Y, nT.
    public var east: Double
    /// Downward component Z, nT.
    public var down: Double

    /// A field of these components, nT.
    public init(north: Double, east: Double, down: Double) {
        self.north = north
        self.east = east
        self.down = down
    }

    /// Horizontal intensity H, nT.
    public var horizontal: Double { (north * north + east * east).squareRoot() }
    /// Total intensity F, nT.
    public var total: Double { (north * north + east * east + down * down).squareRoot() }
    /// Inclination (dip) I, degrees, positive downward.
    public var inclination: Double { atan2(down, horizontal) * 180 / Double.pi }
    /// Declination D, degrees, positive east of true north.
    public var declination: Double { atan2(east, north) * 180 / Double.pi }
}
