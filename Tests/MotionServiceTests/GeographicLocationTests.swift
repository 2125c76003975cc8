import Foundation
import MotionSamples
import MotionService
import Testing

@Suite("COREMOTION_LOCATION and the true-north declination")
struct GeographicLocationTests {
    @Test("lat,lon and lat,lon,alt parse; blanks around fields are allowed")
    func parses() throws {
        #expect(try GeographicLocation.parse("52.52,13.40") == GeographicLocation(latitude: 52.52, longitude: 13.40, altitude: 0))
        #expect(try GeographicLocation.parse(" -33.87 , 151.21 , 58 ") == GeographicLocation(latitude: -33.87, longitude: 151.21, altitude: 58))
        #expect(try GeographicLocation.fromEnvironment([:]) == nil)
        #expect(try GeographicLocation.fromEnvironment(["COREMOTION_LOCATION": ""]) == nil)
        #expect(try GeographicLocation.fromEnvironment(["COREMOTION_LOCATION": "0,0"]) == GeographicLocation(latitude: 0, longitude: 0))
    }

    @Test("bad values name the field and the accepted form", arguments: [
        ("52.52", "found 1 field"),
        ("1,2,3,4", "found 4 fields"),
        ("north,13", "latitude (field 1) 'north' is not a number"),
        ("52,nan", "longitude (field 2) 'nan' is not a number"),
        ("91,0", "latitude (field 1) 91 is outside"),
        ("0,0,abc", "altitude in metres (field 3) 'abc' is not a number"),
        ("0,,0", "longitude (field 2) '' is not a number"),
    ])
    func rejects(value: String, expected: String) {
        do {
            _ = try GeographicLocation.parse(value)
            Issue.record("accepted \(value)")
        } catch let error as GeographicLocationError {
            #expect(error.description.contains(expected))
            #expect(error.description.contains("COREMOTION_LOCATION=\"\(value)\""))
            #expect(error.description.contains("lat,lon[,alt_m]"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test("the service's declination is the WMM2025 value at the location on the clock's date")
    func declination() throws {
        // NOAA WMM2025 test values (WMM2025_Report, table of test points): 2025.0, h = 0 km,
        // lat 80, lon 0 → D = 1.28°; lat 0, lon 120 → D = −0.16°; lat −80, lon 240 → D = 68.78°
        // (checked in full by GeomagnetismTests); here the service's wiring: degrees→radians, km→m, date.
        let clock = VirtualClock()  // 2025-01-01T00:00Z
        let cases: [(Double, Double, Double)] = [(80, 0, 1.28), (0, 120, -0.16), (-80, 240, 68.78)]
        for (lat, lon, expected) in cases {
            let service = MotionService(device: NoDevice(clock: clock), location: GeographicLocation(latitude: lat, longitude: lon))
            let radians = try #require(service.magneticDeclination())
            #expect(abs(radians * 180 / .pi - expected) < 0.01)
        }
        let nowhere = MotionService(device: NoDevice(clock: clock))
        #expect(nowhere.magneticDeclination() == nil)
    }

    @Test("a malformed COREMOTION_LOCATION leaves true north unavailable instead of stopping the process")
    func malformedEnvironment() throws {
        let service = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "none", "COREMOTION_LOCATION": "here"])
        #expect(service.location == nil)
        #expect(service.magneticDeclination() == nil)
        let placed = try MotionService.fromEnvironment(["COREMOTION_DEVICE": "none", "COREMOTION_LOCATION": "40,-105.25,1650"])
        #expect(placed.location == GeographicLocation(latitude: 40, longitude: -105.25, altitude: 1650))
    }
}
