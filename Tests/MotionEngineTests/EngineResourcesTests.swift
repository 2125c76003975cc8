import Foundation
@testable import MotionEngine
import Testing

/// The engine finds its bundled files without `Bundle.module`, which would stop a daemon copied without
/// its resource bundle.
@Suite struct EngineResourcesTests {
    @Test("COREMOTION_RESOURCES is looked in first, then beside the executable")
    func order() {
        let folders = EngineResources.candidateFolders(environment: ["COREMOTION_RESOURCES": "/opt/cm"]).map(\.path)
        #expect(folders.first == "/opt/cm/\(EngineResources.bundleName)")
        #expect(folders.dropFirst().first == "/opt/cm")
        #expect(folders.contains("/usr/lib/coremotion/\(EngineResources.bundleName)"))
    }

    @Test("the bundled models are found; a missing file is an error naming where it looked, never a crash")
    func missing() throws {
        #expect(FileManager.default.fileExists(atPath: try EngineResources.url("activity-forest", "json").path))
        #expect(FileManager.default.fileExists(atPath: try EngineResources.url("WMM2025", "COF").path))
        do {
            _ = try EngineResources.url("no-such-model", "json")
            Issue.record("a missing file was found")
        } catch {
            #expect(error.description.contains("no-such-model.json is missing"))
            #expect(error.description.contains("COREMOTION_RESOURCES"))
        }
    }
}
