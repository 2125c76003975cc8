import MotionSimulator
import Testing

/// The "did you mean" helper every user-typed name goes through (scenes, device kinds and options,
/// recording formats, sensors).
@Suite struct NameSuggestionTests {
    @Test("distance: insertions, deletions, substitutions, adjacent transpositions; case ignored")
    func distance() {
        #expect(NameSuggestion.distance("", "") == 0)
        #expect(NameSuggestion.distance("", "abc") == 3)
        #expect(NameSuggestion.distance("abc", "") == 3)
        #expect(NameSuggestion.distance("speed", "speed") == 0)
        #expect(NameSuggestion.distance("Walking-In-Hand", "walking-in-hand") == 0)
        #expect(NameSuggestion.distance("sped", "speed") == 1)       // insertion
        #expect(NameSuggestion.distance("speedd", "speed") == 1)     // deletion
        #expect(NameSuggestion.distance("spead", "speed") == 1)      // substitution
        #expect(NameSuggestion.distance("replya", "replay") == 1)    // transposition (Levenshtein: 2)
        #expect(NameSuggestion.distance("wlak", "walk") == 1)
        #expect(NameSuggestion.distance("kitten", "sitting") == 3)
        // Optimal string alignment edits no substring twice: "ca" → "abc" is 3, not 2 as with full
        // Damerau–Levenshtein.
        #expect(NameSuggestion.distance("ca", "abc") == 3)
        // Symmetric.
        for (a, b) in [("stairs", "stiars"), ("cycling", "cylcing"), ("elevator", "elevater"), ("car", "cat")] {
            #expect(NameSuggestion.distance(a, b) == NameSuggestion.distance(b, a))
            #expect(NameSuggestion.distance(a, b) == 1)
        }
    }

    static let scenes = [
        "still-face-up", "still-upright", "rotate-x", "rotate-y", "rotate-z", "walking-in-hand", "pocket-walk",
        "running", "stairs", "car", "cycling", "shaking", "elevator", "pick-up",
    ]

    @Test("the closest names are suggested; far ones never", arguments: [
        ("walking", ["walking-in-hand"]),                    // prefix
        ("walkign-in-hand", ["walking-in-hand"]),            // transposition
        ("walking-in-the-hand", ["walking-in-hand"]),        // four insertions in a long name
        ("still", ["still-face-up", "still-upright"]),       // two prefixes, catalogue order
        ("rotate", ["rotate-x", "rotate-y", "rotate-z"]),
        ("rotate-w", ["rotate-x", "rotate-y", "rotate-z"]),  // one substitution each, catalogue order
        ("Car", ["car"]),                                    // case
        ("cat", ["car"]),
        ("runing", ["running"]),
        ("elevater", ["elevator"]),
        ("pickup", ["pick-up"]),
        ("escalator", []),                                   // more than two edits from elevator
        ("moonwalk", []),
        ("x", []),                                           // one letter: no prefix guess
        ("", []),
    ])
    func suggestions(_ typed: String, _ expected: [String]) {
        #expect(NameSuggestion.suggestions(for: typed, among: Self.scenes) == expected)
    }

    @Test("only the closest: a nearer name hides farther ones and prefixes; the limit holds; duplicates once")
    func ranking() {
        #expect(NameSuggestion.suggestions(for: "spee", among: ["speedometer", "speed"]) == ["speed"])
        #expect(NameSuggestion.suggestions(for: "sensorloger", among: ["sensorlog", "sensorlogger"]) == ["sensorlogger"])
        #expect(NameSuggestion.suggestions(for: "sensorlo", among: ["sensorlog", "sensorlogger"]) == ["sensorlog"])
        #expect(NameSuggestion.suggestions(for: "sensorl", among: ["sensorlog", "sensorlogger"]) == ["sensorlog"])
        #expect(NameSuggestion.suggestions(for: "sens", among: ["sensorlog", "sensorlogger"]) == ["sensorlog", "sensorlogger"])
        #expect(NameSuggestion.suggestions(for: "rotate", among: Self.scenes, limit: 2) == ["rotate-x", "rotate-y"])
        #expect(NameSuggestion.suggestions(for: "rotate", among: Self.scenes, limit: 0) == [])
        #expect(NameSuggestion.suggestions(for: "seed", among: ["seed", "seed", "speed"]) == ["seed"])
        #expect(NameSuggestion.suggestions(for: "sede", among: ["seed", "speed", "seed"]) == ["seed"])
        #expect(NameSuggestion.suggestions(for: "motionsens", among: ["motionsense", "MotionSense"]) == ["motionsense"])
        #expect(NameSuggestion.best(for: "replya:", among: ["replay:", "sim:", "iio:", "service:"]) == "replay:")
        #expect(NameSuggestion.best(for: "bluetooth:", among: ["replay:", "sim:", "iio:", "service:"]) == nil)
        // Short names need the typed text to be short too: one edit per three characters.
        #expect(NameSuggestion.suggestions(for: "ab", among: ["iio", "sim"]) == [])
        #expect(NameSuggestion.suggestions(for: "sin", among: ["iio", "sim"]) == ["sim"])
    }

    @Test("the phrases")
    func phrases() {
        #expect(NameSuggestion.didYouMean("sped", among: ["loop", "speed"]) == "did you mean 'speed'?")
        #expect(NameSuggestion.didYouMean("sped", among: ["seed", "speed"]) == "did you mean 'seed' or 'speed'?")
        #expect(NameSuggestion.didYouMean("still", among: Self.scenes) == "did you mean 'still-face-up' or 'still-upright'?")
        #expect(NameSuggestion.didYouMean("rotate", among: Self.scenes) == "did you mean 'rotate-x', 'rotate-y' or 'rotate-z'?")
        #expect(NameSuggestion.didYouMean("wlak", among: ["walk", "run"], quote: "\"") == "did you mean \"walk\"?")
        #expect(NameSuggestion.didYouMean("zzz", among: Self.scenes) == nil)
        #expect(NameSuggestion.unknown("scene", "walking", among: ["still-face-up", "walking-in-hand"])
            == "unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, walking-in-hand")
        #expect(NameSuggestion.unknown("option", "colour", among: ["loop", "speed"], listing: "options of replay")
            == "unknown option 'colour'; options of replay: loop, speed")
        #expect(NameSuggestion.unknown("sensor", "gyroscop", among: ["accelerometer", "gyroscope"], spellings: ["gyro", "gyroscope"])
            == "unknown sensor 'gyroscop'; did you mean 'gyroscope'? sensors: accelerometer, gyroscope")
        #expect(NameSuggestion.unknown("sensor", "gy", among: ["accelerometer", "gyroscope"], spellings: ["gyroscope", "gyro"])
            == "unknown sensor 'gy'; did you mean 'gyroscope' or 'gyro'? sensors: accelerometer, gyroscope")
    }

    @Test("an unknown scene names the closest scenes and lists them all")
    func unknownScene() {
        do {
            _ = try SceneCatalog.resolve("walking")
            Issue.record("accepted an unknown scene")
        } catch {
            let text = "\(error)"
            #expect(text.hasPrefix("unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, "), "\(text)")
            for name in SceneCatalog.names { #expect(text.contains(name)) }
        }
        #expect(throws: SceneError.self) { try SimulatorDevice.parse(specification: "sim:stairs?sped=2") }
        do {
            _ = try SimulatorDevice.parse(specification: "sim:stairs?sped=2")
        } catch {
            // Both options are one edit away.
            #expect("\(error)".contains("unknown option 'sped'; did you mean 'seed' or 'speed'?"), "\(error)")
        }
    }
}
