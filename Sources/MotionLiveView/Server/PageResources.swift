import Foundation

/// The web page's files, read once from the module's resources (no file is fetched from the network,
/// by the server or by the page).
struct PageResources: Sendable {
    struct File: Sendable {
        let bytes: [UInt8]
        let contentType: String
    }

    let files: [String: File]

    /// Every file of `Resources/page`, by name.
    static func load() throws -> PageResources {
        guard let folder = Bundle.module.url(forResource: "page", withExtension: nil) else {
            throw LiveViewServerError.resourcesMissing
        }
        var files: [String: File] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            let data = try Data(contentsOf: folder.appendingPathComponent(name))
            files[name] = File(bytes: Array(data), contentType: contentType(of: name))
        }
        return PageResources(files: files)
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }
}
