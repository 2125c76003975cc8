import Foundation
import MotionEngine

/// Where the device is, for the magnetic declination that turns magnetic north into true north.
///
/// On an iPhone Core Motion takes this from Core Location; here it comes from
/// `COREMOTION_LOCATION=lat,lon[,alt_m]` (degrees north, degrees east, metres above the WGS-84
/// ellipsoid; altitude 0 when omitted), or from ``MotionService/location`` in tests.
public struct GeographicLocation: Sendable, Hashable, CustomStringConvertible {
    /// Degrees north, −90…90.
    public var latitude: Double
    /// Degrees east, −180…360 (values above 180 are taken modulo 360).
    public var longitude: Double
    /// Metres above the WGS-84 ellipsoid.
    public var altitude: Double

    public init(latitude: Double, longitude: Double, altitude: Double = 0) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// The environment variable that gives the location.
    public static let environmentVariable = "COREMOTION_LOCATION"

    /// Parses `lat,lon[,alt_m]`, e.g. `52.52,13.40` or `-33.87,151.21,58`.
    ///
    /// - Throws: ``GeographicLocationError`` naming the field that is missing, not a number or out of range.
    public static func parse(_ text: String) throws -> GeographicLocation {
        func fail(_ why: String) -> GeographicLocationError { GeographicLocationError(value: text, reason: why) }
        let fields = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard fields.count == 2 || fields.count == 3 else {
            throw fail("expected 2 or 3 comma-separated numbers, found \(fields.count) field\(fields.count == 1 ? "" : "s")")
        }
        func number(_ index: Int, _ name: String, _ range: ClosedRange<Double>) throws -> Double {
            guard let value = Double(fields[index]), value.isFinite else {
                throw fail("\(name) (field \(index + 1)) '\(fields[index])' is not a number")
            }
            guard range.contains(value) else {
                throw fail("\(name) (field \(index + 1)) \(fields[index]) is outside \(range.lowerBound)…\(range.upperBound)")
            }
            return value
        }
        let latitude = try number(0, "latitude", -90...90)
        let longitude = try number(1, "longitude", -180...360)
        let altitude = fields.count == 3 ? try number(2, "altitude in metres", -1_000...100_000) : 0
        return GeographicLocation(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// The location `COREMOTION_LOCATION` gives, `nil` when it is unset or empty.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> GeographicLocation? {
        guard let text = environment[environmentVariable], !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        return try parse(text)
    }

    /// The magnetic declination here on `date` from the World Magnetic Model 2025, radians, east
    /// positive (true heading = magnetic heading + declination).
    public func declination(on date: Date) -> Double? {
        guard let model = GeographicLocation.model else { return nil }
        let degrees = model.declination(latitude: latitude, longitude: longitude, altitude: altitude / 1000, date: date)
        return degrees.isFinite ? degrees * Double.pi / 180 : nil
    }

    /// The bundled coefficients, read once.
    private static let model: WorldMagneticModel? = try? WorldMagneticModel.wmm2025()

    public var description: String { "\(latitude),\(longitude),\(altitude)" }
}

/// A `COREMOTION_LOCATION` value that cannot be used.
public struct GeographicLocationError: Error, Sendable, CustomStringConvertible {
    /// The value that was given.
    public var value: String
    /// What is wrong with it.
    public var reason: String

    public var description: String {
        "\(GeographicLocation.environmentVariable)=\"\(value)\": \(reason); expected lat,lon[,alt_m] in degrees north, degrees east and metres, e.g. 52.52,13.40,34"
    }
}
