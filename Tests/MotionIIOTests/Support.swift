import Foundation
import MotionEmulation
import Testing
import TestSupport
@testable import MotionIIO

/// A fake tree in a fresh temporary directory, removed when the value is released.
final class TemporaryTree {
    let tree: IIOFakeTree
    let url: URL

    init(_ label: String = "coremotion-iio") throws {
        url = try TestData.temporaryDirectory(label)
        tree = try IIOFakeTree(root: url)
    }

    var path: String { url.path }

    deinit { try? FileManager.default.removeItem(at: url) }

    func discover(_ options: IIODevice.Options = IIODevice.Options()) throws -> IIODevice {
        guard let device = try IIODevice.discover(root: url, options: options) else {
            throw IIOError.noUsableSensors(root: path, problems: ["discover returned nil"])
        }
        return device
    }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `timeout` seconds.
@discardableResult
func waitUntil(_ timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if condition() { return true }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return condition()
}

func approximately(_ a: Vector3, _ b: Vector3, _ tolerance: Double) -> Bool {
    abs(a.x - b.x) <= tolerance && abs(a.y - b.y) <= tolerance && abs(a.z - b.z) <= tolerance
}

/// Appends bytes to a regular file (a fake tree's buffer node).
func append(_ bytes: [UInt8], to path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(bytes))
}

/// The median of `values`.
func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let s = values.sorted()
    return s[s.count / 2]
}

/// Differences between consecutive values.
func steps(_ values: [Double]) -> [Double] { zip(values.dropFirst(), values).map { $0 - $1 } }

let runningAsRoot = geteuid() == 0
