import CoreMotion

/// Collects a client's failed expectations and notes.
final class Expectations {
    private(set) var failures: [String] = []
    private(set) var notes: [String] = []

    func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { failures.append(message()) }
    }

    func note(_ text: String) { notes.append(text) }

    /// Prints the client's one line, `PASS name: …` or `FAIL name: …`, and ends the process. Clients that
    /// never return (they park the main thread in `dispatchMain()`) call it themselves.
    func finish(_ name: String) -> Never {
        if failures.isEmpty {
            print("PASS \(name): \(notes.joined(separator: "; "))")
            exit(0)
        } else {
            print("FAIL \(name): \(failures.joined(separator: "; ")) [\(notes.joined(separator: "; "))]")
            exit(1)
        }
    }
}
