import Foundation
import MotionEngine
import Testing

/// The World Magnetic Model 2025 against NOAA's published test values.
@Suite("World Magnetic Model 2025")
struct GeomagnetismTests {
    /// Rows of `WMM2025_TestValues.txt` (NOAA NCEI, in `WMM2025COF.zip`): decimal year, height (km),
    /// latitude, longitude (degrees), declination, inclination (degrees), H, X, Y, Z, F (nT).
    static let officialRows: [[Double]] = [
        [2025.0, 28, 89, -121, -99.77, 88.47, 1504.298146, -255.388723, -1482.460628, 56194.288771, 56214.419888],
        [2025.0, 65, 43, 93, 0.50, 64.10, 24300.764692, 24299.852822, 210.517066, 50037.923998, 55626.621348],
        [2025.0, 51, -33, 109, -5.49, -67.50, 21838.046477, 21737.778822, -2090.274098, -52710.00392, 57054.752538],
        [2025.5, 6, -36, -137, 20.28, -52.11, 25353.230658, 23781.930678, 8786.698927, -32577.518648, 41280.516301],
        [2025.5, 8, -66, 17, -33.14, -59.55, 18154.870136, 15201.438652, -9925.501123, -30881.123197, 35822.382382],
        [2026.0, 74, -57, 3, -22.51, -58.65, 14362.206593, 13268.119649, -5498.179626, -23576.062921, 27606.226129],
        [2026.0, 62, -14, 99, -1.43, -44.70, 33448.275663, 33437.82863, -835.919473, -33100.922253, 47058.03012],
        [2026.5, 14, 0, 80, -3.10, -17.15, 39489.089663, 39431.415992, -2133.456168, -12188.838466, 41327.424134],
        [2027.0, 37, -66, -5, -17.22, -59.04, 17159.8365, 16390.771268, -5079.626554, -28608.243575, 33360.029814],
        [2027.5, 73, -72, 95, -102.64, -76.49, 13306.747292, -2912.418045, -12984.118939, -55399.217725, 56974.931751],
    ]

    /// Declinations of the WMM2025 report's test table (decimal year, height km, latitude, longitude,
    /// declination in degrees, given to 0.01°) and four more rows of the full test file.
    static let declinations: [[Double]] = [
        [2025.0, 0, 80, 0, 1.28], [2025.0, 0, 0, 120, -0.16], [2025.0, 0, -80, 240, 68.78],
        [2025.0, 100, 80, 0, 0.85], [2025.0, 100, 0, 120, -0.15], [2025.0, 100, -80, 240, 68.21],
        [2027.5, 0, 80, 0, 2.59], [2027.5, 0, 0, 120, -0.24], [2027.5, 0, -80, 240, 68.49],
        [2027.5, 100, 80, 0, 2.16], [2027.5, 100, 0, 120, -0.23], [2027.5, 100, -80, 240, 67.93],
        [2025.0, 48, 80, -96, -29.91], [2025.0, 18, 0, 21, 1.29],
    ]

    @Test("every official test point: X, Y, Z, H, F within 0.01 nT, D and I within 0.005°")
    func officialTestValues() throws {
        let wmm = try WorldMagneticModel.wmm2025()
        #expect(wmm.name == "WMM-2025")
        #expect(wmm.epoch == 2025.0)
        #expect(wmm.maximumDegree == 12)
        var worstComponent = 0.0
        for row in Self.officialRows {
            let f = wmm.field(latitude: row[2], longitude: row[3], altitude: row[1], decimalYear: row[0])
            #expect(abs(f.declination - row[4]) <= 0.005, "D at \(row[2]), \(row[3])")
            #expect(abs(f.inclination - row[5]) <= 0.005, "I at \(row[2]), \(row[3])")
            for (ours, theirs) in [(f.horizontal, row[6]), (f.north, row[7]), (f.east, row[8]), (f.down, row[9]), (f.total, row[10])] {
                worstComponent = max(worstComponent, abs(ours - theirs))
            }
        }
        // Measured: worst component difference 0.00044 nT over the ten points.
        #expect(worstComponent < 0.01, "worst component difference \(worstComponent) nT")
    }

    @Test("declinations of the report's test table within 0.006°")
    func reportDeclinations() throws {
        let wmm = try WorldMagneticModel.wmm2025()
        for row in Self.declinations {
            let d = wmm.field(latitude: row[2], longitude: row[3], altitude: row[1], decimalYear: row[0]).declination
            #expect(abs(d - row[4]) <= 0.006, "D at \(row) was \(d)")
        }
    }

    @Test("decimal years and the declination helper")
    func decimalYear() throws {
        let start = try #require(ISO8601DateFormatter().date(from: "2025-01-01T00:00:00Z"))
        #expect(abs(WorldMagneticModel.decimalYear(of: start) - 2025.0) < 1e-12)
        let mid = try #require(ISO8601DateFormatter().date(from: "2027-07-02T12:00:00Z"))
        #expect(abs(WorldMagneticModel.decimalYear(of: mid) - 2027.5) < 0.001)
        let wmm = try WorldMagneticModel.wmm2025()
        let viaDate = wmm.declination(latitude: 0, longitude: 120, altitude: 0, date: start)
        #expect(abs(viaDate - (-0.16)) <= 0.006)
    }

    @Test("malformed coefficient files are rejected with the line")
    func malformed() {
        #expect(throws: WorldMagneticModel.FormatError.self) { try WorldMagneticModel(coefficients: "") }
        #expect(throws: WorldMagneticModel.FormatError.self) { try WorldMagneticModel(coefficients: "garbage\n") }
        do {
            _ = try WorldMagneticModel(coefficients: "2025.0 WMM-2025 11/13/2024\n  1  0  -29351.8  0.0  x  0.0\n")
            Issue.record("accepted a bad row")
        } catch let error as WorldMagneticModel.FormatError {
            #expect(error.line == 2)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
