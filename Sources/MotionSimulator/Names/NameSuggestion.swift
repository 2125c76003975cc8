/// "Did you mean …?" for a name a person typed: the known names close to it, for error messages.
///
/// Every lookup of a user-typed name in the project uses this one helper: scene names here
/// (``SceneCatalog``, scene-file fields and segment types), `COREMOTION_DEVICE` kinds and option
/// keys (`MotionService`'s `DeviceSpecification`), recording formats and sensor names in the
/// `coremotion` tool. It lives in this module because it is the lowest one that resolves such names
/// (`MotionSamples` holds no user-facing text, `MotionRecordings` parses none).
///
/// A name is close when, ignoring case, it
/// - equals the typed text (`Car` → `car`),
/// - is within a small edit distance of it (``distance(_:_:)``: insertions, deletions, substitutions
///   and transpositions of adjacent characters), at most one edit per three characters of the shorter
///   of the two (`sped` → `speed`, `replya` → `replay`, `walkign-in-hand` → `walking-in-hand`), or
/// - starts with the typed text, of two characters or more (`walking` → `walking-in-hand`).
///
/// Only the closest are suggested: those at the smallest distance (`sensorloger` → `sensorlogger`, not
/// also `sensorlog`), and names that start with the typed text only when no name is within the distance
/// (`still` → `still-face-up` or `still-upright`). Nothing is suggested for text unlike every name: a
/// suggestion is a hint, never a silent fallback.
public enum NameSuggestion {
    /// How many names a message suggests at most.
    public static let defaultLimit = 3

    /// The optimal-string-alignment distance (restricted Damerau–Levenshtein) between `a` and `b`,
    /// ignoring case: the fewest insertions, deletions, substitutions and transpositions of adjacent
    /// characters that turn one into the other, no substring edited twice.
    public static func distance(_ a: String, _ b: String) -> Int {
        distance(Array(a.lowercased()), Array(b.lowercased()))
    }

    /// The closest names among `candidates` to `typed` (see ``NameSuggestion``), in `candidates`' order,
    /// at most `limit`; of names equal but for case, the first.
    public static func suggestions(for typed: String, among candidates: [String], limit: Int = defaultLimit) -> [String] {
        let t = Array(typed.lowercased())
        guard !t.isEmpty, limit > 0 else { return [] }
        var ranked: [(rank: Int, index: Int, name: String)] = []
        var seen = Set<String>()
        // Names equal but for case (`motionsense`, `MotionSense`) are one suggestion: the first.
        for (index, name) in candidates.enumerated() where seen.insert(name.lowercased()).inserted {
            let c = Array(name.lowercased())
            guard !c.isEmpty else { continue }
            let allowed = max(min(t.count, c.count), 3) / 3
            let d = distance(t, c)
            if d <= allowed {
                ranked.append((d, index, name))
            } else if t.count >= 2, c.count > t.count, c.starts(with: t) {
                // Only when no name is within the distance: a prefix says less about which name was meant.
                ranked.append((Int.max, index, name))
            }
        }
        guard let best = ranked.map(\.rank).min() else { return [] }
        return ranked.filter { $0.rank == best }.prefix(limit).map(\.name)
    }

    /// The closest name, or `nil` when none is close.
    public static func best(for typed: String, among candidates: [String]) -> String? {
        suggestions(for: typed, among: candidates, limit: 1).first
    }

    /// `did you mean 'a'?`, `did you mean 'a' or 'b'?`, `did you mean 'a', 'b' or 'c'?`, or `nil` when no
    /// name is close. `quote` surrounds each name (`"` for JSON values).
    public static func didYouMean(_ typed: String, among candidates: [String], quote: String = "'") -> String? {
        let found = suggestions(for: typed, among: candidates)
        guard let last = found.last else { return nil }
        let q = found.map { quote + $0 + quote }
        let list = q.count == 1 ? q[0] : q.dropLast().joined(separator: ", ") + " or " + quote + last + quote
        return "did you mean \(list)?"
    }

    /// The message for a name that is not one of `candidates`:
    /// `unknown scene 'walking'; did you mean 'walking-in-hand'? scenes: still-face-up, …`.
    ///
    /// - Parameters:
    ///   - what: what the name names (`scene`, `device kind`, `option`).
    ///   - candidates: the names, listed in this order.
    ///   - listing: the label of the list of names (default `what` + `s`).
    ///   - spellings: what to suggest from, when more spellings are accepted than listed (aliases such
    ///     as `gyro`); default `candidates`.
    public static func unknown(
        _ what: String, _ typed: String, among candidates: [String], listing: String? = nil, spellings: [String]? = nil
    ) -> String {
        var text = "unknown \(what) '\(typed)'"
        if let hint = didYouMean(typed, among: spellings ?? candidates) { text += "; " + hint }
        return text + (text.hasSuffix("?") ? " " : "; ") + "\(listing ?? what + "s"): " + candidates.joined(separator: ", ")
    }

    /// Optimal string alignment on characters; two rows of the matrix and the one before them.
    private static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d = min(d, before[j - 2] + 1)
                }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
