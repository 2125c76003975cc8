import CoreMotion

/// Collects a client's failed expectations and notes.
final class Expectations {
    private(set) var failures: [String] = []
    private(set) var notes: [String] = []

    func check(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
        if !condition() { failures.append(message()) }
    }

    func note(_ text: String) { notes.append(text) }
}
