/// A ring of the last `capacity` values, allocated once.
///
/// `append` overwrites the oldest value when full; index 0 is the oldest value held.
struct FixedRing<Element: Sendable>: Sendable {
    private var storage: [Element]
    private var head = 0
    private(set) var count = 0

    init(capacity: Int, filler: Element) {
        storage = Array(repeating: filler, count: max(1, capacity))
    }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }

    mutating func append(_ value: Element) {
        let index = (head + count) % storage.count
        storage[index] = value
        if count < storage.count { count += 1 } else { head = (head + 1) % storage.count }
    }

    /// Removes and returns the oldest value.
    mutating func popFirst() -> Element? {
        guard count > 0 else { return nil }
        let value = storage[head]
        head = (head + 1) % storage.count
        count -= 1
        return value
    }

    /// The oldest value, if any.
    var first: Element? { count > 0 ? storage[head] : nil }
    /// The newest value, if any.
    var last: Element? { count > 0 ? storage[(head + count - 1) % storage.count] : nil }

    mutating func removeAll() { head = 0; count = 0 }

    subscript(i: Int) -> Element {
        get { storage[(head + i) % storage.count] }
        set { storage[(head + i) % storage.count] = newValue }
    }
}
