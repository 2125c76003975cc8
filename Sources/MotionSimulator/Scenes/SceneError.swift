/// Why a scene could not be found, read or used. The description names the file, the line and
/// the field.
public enum SceneError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No scene has this name; `available` lists the named scenes. The description suggests the
    /// closest ones (``NameSuggestion``).
    case unknownScene(name: String, available: [String])
    /// The scene file could not be read.
    case unreadableFile(path: String, reason: String)
    /// The scene file is not valid JSON.
    case syntax(path: String, line: Int, column: Int, message: String)
    /// A field is missing, has the wrong type or an impossible value. `path` and `line` are set
    /// for scene files; `field` is the field's path in the scene (`segments[2].duration`).
    case invalid(path: String?, line: Int?, column: Int?, field: String, message: String)
    /// A `sim:` device specification could not be understood.
    case badSpecification(String, reason: String)

    /// The same error located in a file.
    func located(path: String, line: Int?, column: Int?) -> SceneError {
        if case .invalid(_, let l, let c, let field, let message) = self {
            return .invalid(path: path, line: line ?? l, column: column ?? c, field: field, message: message)
        }
        return self
    }

    public var description: String {
        switch self {
        case .unknownScene(let name, let available):
            return NameSuggestion.unknown("scene", name, among: available)
                + " (or a scene file: sim:/path/scene.json)"
        case .unreadableFile(let path, let reason):
            return "scene file \(path): cannot read it: \(reason)"
        case .syntax(let path, let line, let column, let message):
            return "scene file \(path), line \(line), column \(column): \(message)"
        case .invalid(let path, let line, let column, let field, let message):
            var where_ = ""
            if let path {
                where_ = "scene file \(path)"
                if let line { where_ += ", line \(line)" + (column.map { ", column \($0)" } ?? "") }
                where_ += ": "
            }
            return where_ + "\(field): \(message)"
        case .badSpecification(let spec, let reason):
            return "simulator device '\(spec)': \(reason); expected sim:SCENE or sim:/path/scene.json, "
                + "optionally followed by ?seed=N&speed=F"
        }
    }
}
