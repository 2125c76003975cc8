import Foundation

/// Where the tests find data: the full data sets (outside the repository) and the committed fixtures.
///
/// The full data sets are read from `COREMOTION_DATA`, by default `../shared/data` beside the
/// package. When a folder is absent, the tests that need it are skipped with a printed notice (use
/// `.enabled(if: TestData.has("broad"), TestData.skipNotice("broad"))`).
public enum TestData {
    /// The package's root folder (from this file's path).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The data folder: `$COREMOTION_DATA`, or `../shared/data` beside the package; `nil` when absent.
    public static let directory: URL? = {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["COREMOTION_DATA"], !env.isEmpty {
            let url = URL(fileURLWithPath: env, isDirectory: true)
            return fm.fileExists(atPath: url.path) ? url.standardizedFileURL : nil
        }
        let beside = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data", isDirectory: true)
        return fm.fileExists(atPath: beside.path) ? beside.standardizedFileURL : nil
    }()

    /// True when `relativePath` (a data set folder or file) exists in the data folder.
    public static func has(_ relativePath: String) -> Bool {
        guard let dir = directory else { return false }
        return FileManager.default.fileExists(atPath: dir.appendingPathComponent(relativePath).path)
    }

    /// URL of `relativePath` inside the data folder (check ``has(_:)`` first).
    public static func url(_ relativePath: String) -> URL {
        (directory ?? packageRoot.appendingPathComponent("../shared/data")).appendingPathComponent(relativePath)
    }

    /// The notice printed when a data set is missing.
    public static func skipNotice(_ relativePath: String) -> String {
        "skipped: data set '\(relativePath)' not found; set COREMOTION_DATA to the folder holding the shared data sets"
    }

    /// URL of a committed fixture under `Tests/Fixtures`.
    public static func fixture(_ relativePath: String) -> URL {
        packageRoot.appendingPathComponent("Tests/Fixtures").appendingPathComponent(relativePath)
    }

    /// A fresh temporary directory, removed by the caller with `FileManager.removeItem`.
    public static func temporaryDirectory(_ label: String = "coremotion-test") throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

extension TestData {
    /// A program built beside the test bundle (`coremotion`, `coremotiond`), or `nil` when it was not built.
    public static func builtExecutable(_ name: String) -> URL? {
        let me = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var folder = me.deletingLastPathComponent()
        // The test bundle may be a folder (…/X.xctest/…) on some platforms: walk up to the products folder.
        for _ in 0..<4 {
            let candidate = folder.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }
}
