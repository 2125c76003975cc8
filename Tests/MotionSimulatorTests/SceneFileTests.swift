import Foundation
import MotionSamples
import Testing
import TestSupport
@testable import MotionSimulator

/// Scene files: a complete file reads back field by field; bad files fail with the file, the line
/// and the field.
@Suite struct SceneFileTests {
    /// A scene using every segment type and most fields (also the example of the format docs).
    static let complete = """
    {
      "name": "tour",
      "summary": "Every segment type once.",
      "ending": "stop",
      "start": { "carry": "table", "pose": { "roll": 0, "pitch": 0, "yaw": 0 }, "heading": 90, "altitude": 120 },
      "environment": {
        "magneticField": { "intensity": 48, "inclination": 64, "declination": 2.5 },
        "seaLevelPressure": 101.0, "temperature": 22, "gravity": 9.81, "latitude": 47.4
      },
      "sensors": {
        "accelerometer": { "rate": 200, "noiseDensity": 8e-5, "bias": [0.01, 0, -0.02], "biasRandomWalk": 1e-5,
                           "scaleFactorError": [0.01, 0, 0], "misalignment": [0, 0.1, 0], "resolution": 0.000244, "range": 16 },
        "gyroscope": { "rate": 200, "noiseDensity": 5e-5, "bias": [0.001, 0.002, -0.003] },
        "magnetometer": { "rate": 50, "hardIron": [20, -5, 30], "softIron": [[1.02, 0.01, 0], [0.01, 0.98, 0], [0, 0, 1]] },
        "barometer": { "rate": 2, "noiseDensity": 0.001, "bias": 0.05 }
      },
      "segments": [
        { "type": "hold", "duration": 2 },
        { "type": "rotate", "axis": "z", "angle": 90, "rate": 45, "ramp": 0.5 },
        { "type": "rotate", "axis": [1, 1, 0], "frame": "carrier", "angle": -30 },
        { "type": "orient", "pose": { "pitch": 90 }, "duration": 2 },
        { "type": "keyframes", "keys": [
            { "time": 1, "pose": { "roll": 20, "pitch": 60 }, "displacement": [0, 0, 0.1] },
            { "time": 2.5, "pose": { "yaw": -90, "pitch": 40 } } ] },
        { "type": "hold", "duration": 2, "carry": "hand", "transition": 1.5 },
        { "type": "walk", "steps": 20, "cadence": 2.0, "speed": 1.4, "turns": [ { "at": 3, "angle": 90, "duration": 2 } ] },
        { "type": "stairs", "direction": "up", "floors": 1 },
        { "type": "stairs", "direction": "down", "steps": 10, "riser": 0.15, "tread": 0.3, "cadence": 1.7, "carry": "pocket" },
        { "type": "run", "duration": 10, "carry": "pocket" },
        { "type": "shake", "duration": 4, "frequency": 3, "amplitude": 0.02, "rotation": 10 },
        { "type": "elevator", "height": -6, "duration": 10 },
        { "type": "cycle", "duration": 20, "cadence": 70, "speed": 4, "carry": "handlebar", "roughness": 2 },
        { "type": "drive", "duration": 30, "speed": 10, "turns": [ { "at": 10, "angle": -90, "duration": 6 } ], "acceleration": 1.5, "pose": { "pitch": 75, "yaw": -90 } },
        { "type": "drive", "duration": 8, "speed": 0 }
      ]
    }
    """

    @Test func aCompleteFileReadsBackEveryField() throws {
        let scene = try SceneFile.parse(SceneFileTests.complete, path: "tour.json")
        #expect(scene.name == "tour" && scene.ending == .stop)
        #expect(scene.start.headingDegrees == 90 && scene.start.altitudeMetres == 120 && scene.start.carry == .table)
        #expect(scene.environment.magneticField == EarthMagneticField(intensityMicrotesla: 48, inclinationDegrees: 64, declinationDegrees: 2.5))
        #expect(scene.environment.atmosphere.seaLevelPressureKilopascals == 101 && scene.environment.latitudeDegrees == 47.4)
        let acc = scene.sensors.accelerometer!
        #expect(acc.rate == 200 && acc.errors.noiseDensity == 8e-5 && acc.errors.bias == Vector3(0.01, 0, -0.02))
        #expect(acc.errors.resolution == 0.000244 && acc.errors.range == 16)
        #expect(abs(acc.errors.transform.m11 - 1.01) < 1e-12 && abs(acc.errors.transform.m13 + 1.01 * 0.1 * .pi / 180) < 1e-12)
        #expect(scene.sensors.magnetometer!.errors.bias == Vector3(20, -5, 30))
        #expect(scene.sensors.magnetometer!.errors.transform.m12 == 0.01)
        #expect(scene.sensors.barometer!.errors.bias.x == 0.05 && scene.sensors.barometer!.rate == 2)
        #expect(scene.segments.map(\.typeName) == [
            "hold", "rotate", "rotate", "orient", "keyframes", "hold", "walk", "stairs", "stairs", "run", "shake",
            "elevator", "cycle", "drive", "drive",
        ])
        if case .walk(let g) = scene.segments[6] { #expect(g.duration == 10 && g.turns.count == 1) } else { Issue.record("walk") }
        // One floor of 3 m at 0.17 m per step: 18 steps.
        if case .stairs(let s) = scene.segments[7] { #expect(s.steps == 18 && s.cadence == 1.6) } else { Issue.record("stairs") }
        if case .rotate(let r) = scene.segments[2] { #expect(r.frame == .carrier && r.axis == Vector3(1, 1, 0)) } else { Issue.record("rotate") }
        // It runs: samples at the configured rates, bit-identical for a seed.
        let sim = try Simulation(scene: scene, seed: 1)
        var source = sim.makeSource()
        var counts: [SensorKind: Int] = [:]
        while let s = source.next() { counts[s.sensor, default: 0] += 1 }
        let T = sim.script.duration
        #expect(counts[.accelerometer] == Int((T * 200).rounded(.down)) + 1)
        #expect(counts[.barometer] == Int((T * 2).rounded(.down)) + 1)
    }

    @Test func theDocumentedExampleIsValid() throws {
        let doc = try String(
            contentsOf: TestData.packageRoot.appendingPathComponent("Sources/MotionSimulator/MotionSimulator.docc/SceneFiles.md"),
            encoding: .utf8
        )
        let start = try #require(doc.range(of: "```json\n"))
        let end = try #require(doc.range(of: "\n```", range: start.upperBound..<doc.endIndex))
        let scene = try SceneFile.parse(String(doc[start.upperBound..<end.lowerBound]), path: "SceneFiles.md")
        #expect(scene.name == "tour" && scene.segments.count == 4)
    }

    @Test func aFileCanStartFromANamedScene() throws {
        let scene = try SceneFile.parse(
            #"{ "base": "walking-in-hand", "name": "quiet-walk", "sensors": { "errors": "ideal", "barometer": false } }"#,
            path: "quiet.json"
        )
        #expect(scene.name == "quiet-walk")
        #expect(scene.segments == (try SceneCatalog.scene(named: "walking-in-hand")).segments)
        #expect(scene.sensors.accelerometer!.errors.isIdeal && scene.sensors.barometer == nil)
    }

    @Test func filesAreLoadedFromDiskAndNamedAfterTheFile() throws {
        let dir = try TestData.temporaryDirectory("scene-file")
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("my-walk.json")
        try #"{ "segments": [ { "type": "walk", "duration": 5 } ], "ending": "hold" }"#.write(to: url, atomically: true, encoding: .utf8)
        let scene = try SceneCatalog.resolve(url.path)
        #expect(scene.name == "my-walk" && scene.ending == .hold)
        let (fromSpec, seed) = try SimulatorDevice.parse(specification: "sim:\(url.path)?seed=12")
        #expect(fromSpec.name == "my-walk" && seed == 12)
    }

    /// Each bad file, the field its error must name, the line, and a phrase of the message.
    static let badFiles: [(name: String, json: String, field: String, line: Int, phrase: String)] = [
        ("missing duration", """
        {
          "segments": [
            { "type": "hold", "duration": 1 },
            { "type": "walk", "speed": 1.2 }
          ]
        }
        """, "segments[1].duration", 4, "missing"),
        ("negative duration", """
        {
          "segments": [
            { "type": "hold",
              "duration": -3 }
          ]
        }
        """, "segments[0].duration", 4, "must be positive"),
        ("NaN", """
        {
          "segments": [ { "type": "hold", "duration": NaN } ]
        }
        """, "", 2, "NaN"),
        ("infinite number", """
        { "segments": [ { "type": "hold", "duration": 1e999 } ] }
        """, "segments[0].duration", 1, "finite"),
        ("unknown segment type", """
        { "segments": [
          { "type": "wlak", "duration": 3 } ] }
        """, "segments[0].type", 2, "did you mean \"walk\""),
        ("misspelt field", """
        { "segments": [ { "type": "hold", "durration": 3 } ] }
        """, "segments[0].durration", 1, "did you mean 'duration'"),
        ("wrong type", """
        { "segments": [ { "type": "hold", "duration": "ten" } ] }
        """, "segments[0].duration", 1, "must be a number"),
        ("truncated", """
        { "segments": [ { "type": "hold", "duration": 3 }
        """, "", 1, "unexpected end"),
        ("no segments", """
        { "name": "empty" }
        """, "segments", 1, "missing"),
        ("turn outside its segment", """
        { "segments": [
          { "type": "walk", "duration": 5,
            "turns": [ { "at": 4, "angle": 90, "duration": 2 } ] } ] }
        """, "segments[0].turns[0]", 3, "after its segment"),
        ("bad sensor rate", """
        { "sensors": { "gyroscope": { "rate": -100 } },
          "segments": [ { "type": "hold", "duration": 1 } ] }
        """, "sensors.gyroscope.rate", 1, "must be within"),
        ("duplicate field", """
        { "segments": [ { "type": "hold", "duration": 1, "duration": 2 } ] }
        """, "", 1, "appears twice"),
        ("unknown base", """
        { "base": "walking-in-pocket" }
        """, "base", 1, "unknown scene 'walking-in-pocket'; scenes: still-face-up, "),
        ("loop that does not close", """
        { "ending": "loop",
          "segments": [ { "type": "hold", "duration": 1 }, { "type": "rotate", "axis": "x", "angle": 90 } ] }
        """, "ending", 1, "must end as it starts"),
        ("walking with the phone on a table", """
        { "segments": [ { "type": "walk", "duration": 4,
                          "carry": "table" } ] }
        """, "segments[0].carry", 2, "on foot"),
        ("bad carry name", """
        { "segments": [ { "type": "hold", "duration": 4, "carry": "bag" } ] }
        """, "segments[0].carry", 1, "must be one of"),
    ]

    @Test(arguments: 0..<badFiles.count)
    func badFilesNameTheFileLineAndField(_ index: Int) {
        let bad = SceneFileTests.badFiles[index]
        let path = "/scenes/\(bad.name.replacingOccurrences(of: " ", with: "-")).json"
        do {
            let scene = try SceneFile.parse(bad.json, path: path)
            Issue.record("\(bad.name): accepted as \(scene.name)")
        } catch let error as SceneError {
            let text = error.description
            #expect(text.contains(path), "\(bad.name): \(text)")
            #expect(text.contains("line \(bad.line)"), "\(bad.name): \(text)")
            if !bad.field.isEmpty { #expect(text.contains(bad.field + ":"), "\(bad.name): \(text)") }
            #expect(text.contains(bad.phrase), "\(bad.name): \(text)")
        } catch {
            Issue.record("\(bad.name): unexpected error \(error)")
        }
    }

    @Test func missingFilesAndUnknownNamesAreClear() {
        #expect(throws: SceneError.unreadableFile(path: "/no/such/scene.json", reason: "no such file")) {
            try SceneCatalog.resolve("/no/such/scene.json")
        }
        do {
            _ = try SceneCatalog.resolve("walking-on-the-moon")
            Issue.record("accepted an unknown scene")
        } catch let error as SceneError {
            // The message lists every named scene.
            for name in SceneCatalog.names { #expect(error.description.contains(name)) }
            #expect(error.description.contains("walking-on-the-moon"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func programmaticScenesAreValidatedToo() {
        let scene = Scene(name: "bad", segments: [.hold(Hold(duration: .nan))])
        #expect(throws: SceneError.self) { try Simulation(scene: scene) }
        do {
            _ = try Simulation(scene: Scene(name: "bad", segments: [.walk(.walk(duration: 10, cadence: -1))]))
        } catch let error as SceneError {
            #expect(error.description.hasPrefix("segments[0].cadence:"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func theJSONParserHandlesEscapesAndRejectsJunk() throws {
        let node = try JSONParser.parse(#"{"a": "tab\tnew\nline \u00e9 \ud83d\ude00", "b": [1, -2.5e3, true, null]}"#)
        guard case .object(let members) = node.value, case .string(let s) = members[0].node.value else {
            Issue.record("not an object")
            return
        }
        #expect(s == "tab\tnew\nline é 😀")
        for junk in ["{", "[1,]", "{\"a\" 1}", "01", "1.", "-", "\"\\x\"", "{} {}", "tru"] {
            #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(junk) }
        }
    }
}

