import Foundation
@testable import MotionRecordings
import Testing
import TestSupport

@Suite struct OxfordStepCounterReaderTests {
    static let fixture = Fixture.url("oxford")
    static let trial = "Samsung_Carmelo_Hard_BackPocket_1"
    static var trialFolder: URL { fixture.appendingPathComponent("optimisation/data/\(trial)") }

    @Test func listsTheTrialWithItsConditions() throws {
        let members = try RecordingReader.members(of: Self.fixture)
        #expect(members.count == 1)
        let m = try #require(members.first)
        #expect(m.name == Self.trial)
        #expect(m.format == .oxfordStepCounter)
        #expect(m.properties["carryPosition"] == "BackPocket")
        #expect(m.properties["floor"] == "Hard")
        #expect(m.properties["phone"] == "Samsung")
        #expect(m.properties["sensor"] == "MPU6500 Acceleration Sensor")
        #expect(m.properties["stepTotal"] == "37")
    }

    @Test func readsTheExcerptInAppleUnitsWithFootStrikes() throws {
        let r = try RecordingReader.read(Self.fixture)  // the only trial
        let byName = try RecordingReader.read(Self.fixture.path + "#" + Self.trial)
        let byFile = try RecordingReader.read(Self.trialFolder.appendingPathComponent("accelerometer.csv"))
        #expect(byName.accelerometer == r.accelerometer)
        #expect(byFile.accelerometer == r.accelerometer)
        #expect(r.metadata.format == "Oxford Step Counter")
        #expect(r.metadata.deviceName == "Samsung")
        #expect(r.metadata.properties["notes"] == "steps 317")
        #expect(r.accelerometer.count == 4232)
        // Samsung at 200.7 Hz (median interval 4.983 ms).
        #expect(abs(1 / medianInterval(r.times(of: .accelerometer)) - 200.66) < 0.1)
        // First row −0.33399114, −6.353014, −3.192668 m/s² (Android) → Apple g.
        #expect(r.accelerometer[0].time == 0)
        #expect(r.accelerometer[0].value == Vector3(-0.33399114 / -9.80665, -6.353014 / -9.80665, -3.192668 / -9.80665))
        // In a back pocket the phone stands upright: Apple's y reads about +1 g on average (head down).
        let mean = r.accelerometer.reduce(Vector3.zero) { $0 + $1.value } / Double(r.accelerometer.count)
        #expect(abs(mean.norm - 1) < 0.1)
        #expect(r.reference.stepTotal == 37)
        #expect(r.reference.stepTimes.count == 37)
        #expect(zip(r.reference.stepTimes, r.reference.stepTimes.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(r.reference.stepTimes.first! > 0 && r.reference.stepTimes.last! < 20)
        #expect(r.notices.isEmpty, "\(r.notices)")
    }

    @Test(.enabled(if: TestData.has("oxford-step-counter"), Comment(rawValue: TestData.skipNotice("oxford-step-counter"))))
    func theFullSetFromItsZip() throws {
        let zip = TestData.url("oxford-step-counter/optimisation_data.zip")
        let members = try RecordingReader.members(of: zip)
        #expect(members.count == 48)
        #expect(Set(members.compactMap { $0.properties["carryPosition"] }).count >= 7)
        #expect(Set(members.compactMap { $0.properties["floor"] }) == ["Hard", "Carpet"])
        #expect(Set(members.compactMap { $0.properties["phone"] }) == ["Nexus", "Pixel", "Samsung"])
        // Every trial's foot-switch strikes equal its published step total.
        let container = try RecordingContainer(zip)
        let stats = try OxfordStepCounterReader.stats(container)
        for m in members {
            var notices: [RecordingNotice] = []
            let file = try container.read("optimisation/data/\(m.name)/stepcounter.csv")
            let strikes = try OxfordStepCounterReader.readFootSwitches(file, origin: 0, notices: &notices)
            #expect(strikes.count == stats[m.name]?.steps, "\(m.name)")
        }
        // One trial per phone, read fully by name.
        // Median rates of the files: Nexus 198.59 Hz, Pixel 405.65 Hz, Samsung 205.51 Hz.
        for (name, rate) in [("Nexus_Jamie_Hard_InHand_1", 198.59), ("Pixel_Jamie_Hard_InHand_1", 405.65), ("Samsung_Dario_Hard_Purse_1", 205.51)] {
            let r = try RecordingReader.read(zip.path + "#" + name)
            #expect(r.reference.stepTimes.count == r.reference.stepTotal, "\(name)")
            let measured = 1 / medianInterval(r.times(of: .accelerometer))
            #expect(abs(measured - rate) < 0.01, "\(name): \(measured) Hz")
            let mean = r.accelerometer.reduce(Vector3.zero) { $0 + $1.value } / Double(r.accelerometer.count)
            #expect(abs(mean.norm - 1) < 0.1, "\(name)")
        }
    }

    // MARK: bad input

    @Test func damagedCopies() throws {
        let copy = try FolderCopy(Self.fixture)
        defer { copy.remove() }
        let accName = "optimisation/data/\(Self.trial)/accelerometer.csv"
        let stepName = "optimisation/data/\(Self.trial)/stepcounter.csv"
        let pristine = try String(contentsOf: copy.url(accName), encoding: .utf8)
        func restore() throws { try pristine.write(to: copy.url(accName), atomically: true, encoding: .utf8) }

        try copy.rewrite(accName) { String($0.dropLast(12)) }
        var r = try RecordingReader.read(copy.folder)
        #expect(r.accelerometer.count == 4231)
        #expect(r.notices(.truncatedLastLine).first?.line == 4232)

        try restore()
        try copy.rewriteLines(accName) { l in var l = l; l[99] = l[99].replacingOccurrences(of: ",3,", with: ",3,-0.3x"); return l }
        var e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.line == 100)
        #expect(e?.column == "ax")

        try restore()
        try copy.rewriteLines(accName) { l in var l = l; var f = l[5].split(separator: ",").map(String.init); f[4] = "inf"; l[5] = f.joined(separator: ","); return l }
        r = try RecordingReader.read(copy.folder)
        #expect(r.accelerometer.count == 4231)
        #expect(r.notices(.nonFinite).first?.line == 6)

        try restore()
        try copy.rewriteLines(accName) { l in l.filter { !$0.isEmpty }.reversed() }
        e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.expected.contains("increasing") == true)

        try restore()
        try copy.rewriteLines(accName) { l in l.map { $0.split(separator: ",").dropLast().joined(separator: ",") } }
        e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.expected == "5 fields")
        #expect(e?.line == 1)

        try restore()
        try copy.rewriteLines(stepName) { l in var l = l; var f = l[3].split(separator: ",").map(String.init); f[2] = "2"; l[3] = f.joined(separator: ","); return l }
        e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.column == "left" || e?.column == "right")

        try "".write(to: copy.url(accName), atomically: true, encoding: .utf8)
        e = expectRecordingError { try RecordingReader.read(copy.folder) }
        #expect(e?.found == "an empty file")
    }

    @Test func unknownTrialNameListsTheTrials() throws {
        let e = expectRecordingError { try RecordingReader.read(Self.fixture.path + "#Nokia_Someone_Hard_InHand_1") }
        #expect(e?.found == "Nokia_Someone_Hard_InHand_1")
        #expect(e?.expected.contains(Self.trial) == true)
    }
}
