import Foundation

/// Finds the engine's bundled files (the activity model, the World Magnetic Model) without stopping the
/// process when they are missing.
///
/// SwiftPM's generated `Bundle.module` ends the program when its resource folder is not where the build put
/// it, which is what happens to an executable copied alone to `/usr/local/bin` (a daemon started by systemd
/// then crashes at every start). This looks in order: `COREMOTION_RESOURCES` (a folder holding the
/// resource bundle, or the bundle itself), the folder of the running executable (links resolved: the
/// package puts the bundles beside the binaries in `/usr/lib/coremotion`), `/usr/lib/coremotion`, and the
/// source tree the library was built from. A missing file is an error naming every place looked in.
enum EngineResources {
    /// The name SwiftPM gives MotionEngine's resource bundle.
    static let bundleName = "swift-core-motion_MotionEngine.resources"

    /// The folders that may hold the bundle's `Resources` folder, most specific first.
    static func candidateFolders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var folders: [URL] = []
        if let override = environment["COREMOTION_RESOURCES"], !override.isEmpty {
            let url = URL(fileURLWithPath: override)
            folders.append(url.appendingPathComponent(bundleName))
            folders.append(url)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        folders.append(executable.deletingLastPathComponent().appendingPathComponent(bundleName))
        folders.append(Bundle.main.bundleURL.appendingPathComponent(bundleName))
        folders.append(URL(fileURLWithPath: "/usr/lib/coremotion").appendingPathComponent(bundleName))
        // A development build run from elsewhere: the files in the source tree (Sources/MotionEngine).
        folders.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent())
        return folders
    }

    /// The bundled file `name.ext`.
    static func url(_ name: String, _ ext: String) throws(ResourceError) -> URL {
        let folders = candidateFolders()
        for folder in folders {
            for sub in ["Resources", ""] {
                let url = (sub.isEmpty ? folder : folder.appendingPathComponent(sub)).appendingPathComponent("\(name).\(ext)")
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        throw ResourceError(file: "\(name).\(ext)", searched: folders.map(\.path))
    }

    /// A bundled file that is in none of the places looked in.
    struct ResourceError: Error, CustomStringConvertible {
        var file: String
        var searched: [String]
        var description: String {
            "\(file) is missing: looked in \(searched.joined(separator: ", ")); install the \(EngineResources.bundleName) "
                + "folder beside the executable (the package and `swift build` do), or set COREMOTION_RESOURCES"
        }
    }
}
