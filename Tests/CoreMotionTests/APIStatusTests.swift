import Foundation
import Testing
import TestSupport

/// Keeps `API-STATUS.md` in step with the public declarations of the `CoreMotion` module: every
/// public type and member appears in the table as `works` or `unsupported`, every `works` or
/// `unsupported` row exists in the code, and `planned` rows do not exist yet.
@Suite("API-STATUS.md matches the CoreMotion module")
struct APIStatusTests {
    @Test("every public declaration has a row, and every row a declaration")
    func statusTableMatchesCode() throws {
        let declared = try PublicAPIScanner.scan(TestData.packageRoot.appendingPathComponent("Sources/CoreMotion"))
        let table = try StatusTable.parse(TestData.packageRoot.appendingPathComponent("API-STATUS.md"))
        let implemented = Set(table.rows.filter { $0.status != .planned }.map(\.symbol))
        let planned = Set(table.rows.filter { $0.status == .planned }.map(\.symbol))
        let missingRows = declared.subtracting(implemented).sorted()
        let missingCode = implemented.subtracting(declared).sorted()
        let plannedButPresent = planned.intersection(declared).sorted()
        #expect(missingRows.isEmpty, "public API without a row in API-STATUS.md:\n\(missingRows.joined(separator: "\n"))")
        #expect(missingCode.isEmpty, "rows in API-STATUS.md without a public declaration:\n\(missingCode.joined(separator: "\n"))")
        #expect(plannedButPresent.isEmpty, "rows marked planned that exist now:\n\(plannedButPresent.joined(separator: "\n"))")
        #expect(declared.count > 250)  // the scanner found the API (about 300 symbols)
    }

    @Test("the Declarations table matches each public type's declaration, Sendable and availability")
    func declarationTableMatchesCode() throws {
        let declared = try DeclarationScanner.scan(TestData.packageRoot.appendingPathComponent("Sources/CoreMotion"))
        let table = try DeclarationTable.parse(TestData.packageRoot.appendingPathComponent("API-STATUS.md"))
        let missingRows = Set(declared.keys).subtracting(table.keys).sorted()
        let missingCode = Set(table.keys).subtracting(declared.keys).sorted()
        #expect(missingRows.isEmpty, "public types without a row in the Declarations table:\n\(missingRows.map { "\($0): \(declared[$0]!)" }.joined(separator: "\n"))")
        #expect(missingCode.isEmpty, "Declarations rows without a public type:\n\(missingCode.joined(separator: "\n"))")
        for (name, row) in table.sorted(by: { $0.key < $1.key }) {
            guard let code = declared[name] else { continue }
            #expect(code == row, "\(name): the code declares \(code), the table says \(row)")
        }
        #expect(declared.count > 80)  // the scanner found the types (88)
    }

    @Test("classes are open and not Sendable as Apple declares them; value types are Sendable")
    func sendabilityFollowsApple() throws {
        let declared = try DeclarationScanner.scan(TestData.packageRoot.appendingPathComponent("Sources/CoreMotion"))
        // Apple's only Sendable class: CMOdometerData is NS_SWIFT_SENDABLE in CMOdometer.h, and its page
        // (https://developer.apple.com/documentation/coremotion/cmodometerdata) lists Sendable; the pages of the
        // others (e.g. https://developer.apple.com/documentation/coremotion/cmmotionmanager) do not.
        let sendableClasses = declared.filter { $0.value.kind.hasSuffix("class") && $0.value.sendable }.map(\.key)
        #expect(sendableClasses == ["CMOdometerData"])
        let notOpen = declared.filter { $0.value.kind.hasSuffix("class") && $0.value.kind != "open class" }.map(\.key)
        #expect(notOpen.isEmpty, "classes Apple's module imports as open: \(notOpen)")
        let frozen = declared.filter { $0.value.kind.hasPrefix("@frozen") }.map(\.key)
        #expect(frozen.isEmpty, "Core Motion's enums are NS_ENUMs, not @frozen: \(frozen)")
        let valueTypes = declared.filter {
            ($0.value.kind == "struct" || $0.value.kind == "enum") && !$0.key.hasPrefix("CMBatchedSensorManager.")
        }
        let notSendable = valueTypes.filter { !$0.value.sendable }.map(\.key)
        #expect(notSendable.isEmpty, "value types Apple declares Sendable: \(notSendable)")
        let sendableHandlers = declared.filter { $0.key.hasSuffix("Handler") && $0.value.sendable }.map(\.key)
        #expect(sendableHandlers.isEmpty, "handlers are plain closures in Apple's SDK: \(sendableHandlers)")
    }

    @Test("the declaration scanner reads kinds, Sendable conformances and availability")
    func declarationScannerReading() throws {
        let found = DeclarationScanner.scan(source: """
            @available(*, unavailable, message: "watch only")
            open class CMWatchThing: NSObject {
                public enum Mode: Int, Sendable { case a }
            }
            @available(*, deprecated, message: "old")
            open class CMOld: NSObject {}
            open class CMShared: NSObject, @unchecked Sendable {}
            open class CMPlain: NSObject, NSCopying {
                open class var isAvailable: Bool { false }
                public typealias Handler = (Int) -> Void
            }
            public struct CMValue: Sendable, BitwiseCopyable {}
            public struct CMLater {}
            extension CMLater: Sendable {}
            public protocol CMDelegate: NSObjectProtocol {}
            public typealias CMCallback = @Sendable (Int) -> Void
            public typealias CLDistance = Double
            final class Internal: @unchecked Sendable {}
            """)
        typealias D = DeclarationScanner.Declaration
        #expect(found == [
            "CMWatchThing": D(kind: "open class", sendable: false, availability: "unavailable"),
            "CMWatchThing.Mode": D(kind: "enum", sendable: true, availability: "unavailable"),
            "CMOld": D(kind: "open class", sendable: false, availability: "deprecated"),
            "CMShared": D(kind: "open class", sendable: true, availability: "available"),
            "CMPlain": D(kind: "open class", sendable: false, availability: "available"),
            "CMPlain.Handler": D(kind: "typealias", sendable: false, availability: "available"),
            "CMValue": D(kind: "struct", sendable: true, availability: "available"),
            "CMLater": D(kind: "struct", sendable: true, availability: "available"),
            "CMDelegate": D(kind: "protocol", sendable: false, availability: "available"),
            "CMCallback": D(kind: "typealias", sendable: true, availability: "available"),
            "CLDistance": D(kind: "typealias", sendable: true, availability: "available"),
        ])
    }

    @Test("unsupported rows give a reason")
    func unsupportedRowsExplain() throws {
        let table = try StatusTable.parse(TestData.packageRoot.appendingPathComponent("API-STATUS.md"))
        let bare = table.rows.filter { $0.status == .unsupported && $0.notes.trimmingCharacters(in: .whitespaces).isEmpty }
        #expect(bare.isEmpty, "unsupported without a reason: \(bare.map(\.symbol))")
    }

    @Test("the scanner reads declarations the way the table names them")
    func scannerNaming() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try """
            public let CMErrorDomain: String = "x"
            open class CMThing: NSObject {
                /// doc { with a brace }
                public enum Mode: Int {
                    case a = 0, b = 1
                    case c
                }
                open var value: Int { 1 }
                open func start(to queue: OperationQueue, withHandler handler: @escaping () -> Void) {}
                public override init() { super.init() }
                init(internal: Int) {}
                open override var description: String { "" }
                open class func isAvailable() -> Bool { false }
            }
            public protocol CMDelegate {
                func didThing(_ m: CMThing)
            }
            """.write(to: dir.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        let found = try PublicAPIScanner.scan(dir)
        #expect(found == [
            "CMErrorDomain", "CMThing", "CMThing.Mode", "CMThing.Mode.a", "CMThing.Mode.b", "CMThing.Mode.c",
            "CMThing.value", "CMThing.start(to:withHandler:)", "CMThing.init()", "CMThing.isAvailable()",
            "CMDelegate", "CMDelegate.didThing(_:)",
        ])
    }
}

/// Extracts the public and open declarations of Swift sources as `Type.member(labels:)` names.
///
/// It reads the project's formatting: one declaration per line, a type's members on lines after its
/// opening brace.
enum PublicAPIScanner {
    /// NSObject / NSCoding / NSCopying boilerplate that API-STATUS.md does not list.
    static let boilerplate: Set<String> = ["description", "copy(with:)", "encode(with:)", "init(coder:)", "supportsSecureCoding"]

    static func scan(_ directory: URL) throws -> Set<String> {
        var symbols = Set<String>()
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files { symbols.formUnion(scan(source: try String(contentsOf: file, encoding: .utf8))) }
        return symbols
    }

    static func scan(source: String) -> Set<String> {
        var symbols = Set<String>()
        // Stack of (type name or nil for a non-type block, whether its members count without `public`).
        var stack: [(name: String?, implicitPublic: Bool)] = []
        var pendingType: (name: String?, implicitPublic: Bool)?
        // A non-public type's block must hide its members: mark it with a name of its own.
        for line in logicalLines(source) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            let enclosing = stack.last(where: { $0.name != nil })
            let typePrefix = enclosing?.name ?? ""
            let isPublic = trimmed.hasPrefix("public ") || trimmed.hasPrefix("open ")
                || trimmed.contains(" public ") || trimmed.contains(" open ")
            // Enum cases and protocol requirements are public without the keyword, directly in the type.
            let implicit = stack.last.map { $0.name != nil && $0.implicitPublic } ?? false
            if let type = match(trimmed, #"(?:^|\s)(class|struct|enum|protocol|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)"#),
               !trimmed.contains("class var"), !trimmed.contains("class func") {
                let kind = type[0], name = type[1]
                let visible = isPublic || kind == "extension" || implicit
                let qualified = typePrefix.isEmpty || kind == "extension" ? name : typePrefix + "." + name
                if visible && kind != "extension" { symbols.insert(qualified) }
                pendingType = visible ? (qualified, kind == "enum" || kind == "protocol") : (nil, false)
            } else if isPublic || implicit, let name = memberName(trimmed), !name.isEmpty, !boilerplate.contains(name),
                      !trimmed.contains(" override init(") || name == "init()" {
                symbols.insert(typePrefix.isEmpty ? name : typePrefix + "." + name)
                if trimmed.hasPrefix("case ") || trimmed.contains(" case ") {
                    for extra in caseNames(trimmed).dropFirst() { symbols.insert(typePrefix + "." + extra) }
                }
                // `var a: Double, b: Double` declares several properties.
                if let v = trimmed.range(of: "var "), !trimmed.contains("{") {
                    for part in trimmed[v.upperBound...].split(separator: ",").dropFirst() {
                        if let extra = match(String(part), #"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*:"#)?.first {
                            symbols.insert(typePrefix.isEmpty ? extra : typePrefix + "." + extra)
                        }
                    }
                }
            } else if implicit, trimmed.hasPrefix("case ") {
                for c in caseNames(trimmed) { symbols.insert(typePrefix + "." + c) }
            }
            for ch in line {
                if ch == "{" {
                    if let p = pendingType {
                        stack.append(p)
                        pendingType = nil
                    } else {
                        stack.append((nil, false))
                    }
                } else if ch == "}" {
                    _ = stack.popLast()
                }
            }
            // Continuation lines of an enum case list (`case c` on its own line) are handled above.
        }
        return symbols
    }

    /// Source lines with comments and string contents removed, a declaration whose parentheses span
    /// several lines joined into one.
    static func logicalLines(_ source: String) -> [String] {
        var lines: [String] = []
        var pending = ""
        for raw in source.components(separatedBy: "\n") {
            pending += (pending.isEmpty ? "" : " ") + strip(raw).trimmingCharacters(in: .whitespaces)
            let open = pending.filter { $0 == "(" }.count
            let close = pending.filter { $0 == ")" }.count
            if open <= close {
                lines.append(pending)
                pending = ""
            }
        }
        if !pending.isEmpty { lines.append(pending) }
        return lines
    }

    /// Removes comments and string contents (so braces inside them do not count).
    static func strip(_ line: String) -> String {
        var out = ""
        var inString = false
        var previous: Character = " "
        for ch in line {
            if !inString && ch == "/" && previous == "/" {
                out.removeLast()
                break
            }
            if ch == "\"" && previous != "\\" { inString.toggle(); out.append(ch) }
            else if !inString { out.append(ch) }
            previous = ch
        }
        return out
    }

    static func match(_ text: String, _ pattern: String) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
              let m = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
        return (1..<m.numberOfRanges).compactMap { Range(m.range(at: $0), in: text).map { String(text[$0]) } }
    }

    static func memberName(_ line: String) -> String? {
        if let f = match(line, #"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?:<[^>]*>)?\s*\((.*)"#) {
            return f[0] + "(" + labels(f[1]) + ")"
        }
        if let i = match(line, #"\binit[?!]?\s*\((.*)"#) {
            return "init(" + labels(i[0]) + ")"
        }
        if let v = match(line, #"\b(?:var|let)\s+([A-Za-z_][A-Za-z0-9_]*)"#) { return v[0] }
        if let t = match(line, #"\btypealias\s+([A-Za-z_][A-Za-z0-9_]*)"#) { return t[0] }
        if line.hasPrefix("case ") || line.contains(" case ") { return caseNames(line).first }
        return nil
    }

    static func caseNames(_ line: String) -> [String] {
        guard let range = line.range(of: "case ") else { return [] }
        return line[range.upperBound...].split(separator: ",").compactMap { part in
            match(String(part), #"^\s*`?([A-Za-z_][A-Za-z0-9_]*)`?"#)?.first
        }
    }

    /// External labels of a parameter list that starts right after `(`.
    static func labels(_ rest: String) -> String {
        var depth = 0
        var current = ""
        var params: [String] = []
        for ch in rest {
            if ch == "(" || ch == "[" || ch == "<" { depth += 1 }
            if ch == ")" || ch == "]" || ch == ">" {
                if depth == 0 { break }
                depth -= 1
            }
            if ch == "," && depth == 0 {
                params.append(current)
                current = ""
            } else {
                current.append(ch)
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { params.append(current) }
        return params.compactMap { p -> String? in
            let head = p.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1).first.map(String.init) ?? ""
            guard let label = head.split(separator: " ").first, !head.isEmpty else { return nil }
            if label == "isolation" || p.contains("#isolation") { return nil }
            return String(label) + ":"
        }.joined()
    }
}

/// The rows of `API-STATUS.md`: `### Type` headings, then `| \`member\` | status | notes |` rows.
struct StatusTable {
    enum Status: String { case works, unsupported, planned }
    struct Row {
        var symbol: String
        var status: Status
        var notes: String
    }

    var rows: [Row]

    static func parse(_ url: URL) throws -> StatusTable {
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [Row] = []
        var type: String?
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("### ") {
                let heading = line.dropFirst(4).trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "")
                type = heading == "Globals" ? "" : heading
                continue
            }
            guard let type, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let member = cells[1].replacingOccurrences(of: "`", with: "")
            guard let status = Status(rawValue: String(cells[2].split(separator: " ").first ?? "")) else { continue }
            let symbol: String
            if member == "(type)" { symbol = type } else { symbol = type.isEmpty ? member : type + "." + member }
            rows.append(Row(symbol: symbol, status: status, notes: cells[3]))
        }
        return StatusTable(rows: rows)
    }
}

/// Reads each public type's declaration kind, `Sendable` conformance and availability from Swift sources, with
/// the line reading of ``PublicAPIScanner``.
enum DeclarationScanner {
    struct Declaration: Equatable, CustomStringConvertible {
        /// `open class`, `public class`, `final class`, `struct`, `enum`, `protocol` or `typealias`, with a
        /// leading `@frozen ` when the type has that attribute.
        var kind: String
        /// Whether the type conforms to `Sendable` (checked or `@unchecked`, in its declaration or an
        /// extension); for a typealias, whether the aliased type is `Sendable` (a closure: `@Sendable`).
        var sendable: Bool
        /// `available`, `deprecated` or `unavailable`: its `@available(*, …)` attribute, or its enclosing
        /// type's.
        var availability: String

        var description: String { "\(kind) | \(sendable ? "yes" : "no") | \(availability)" }
    }

    /// Value types the scanner knows to be `Sendable` when a typealias names them.
    static let sendableAliasTargets: Set<String> = ["Double", "Float", "Int", "Bool", "String", "TimeInterval"]

    static func scan(_ directory: URL) throws -> [String: Declaration] {
        var result: [String: Declaration] = [:]
        var extensions = Set<String>()
        let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        for file in files {
            let (found, sendableExtensions) = read(source: try String(contentsOf: file, encoding: .utf8))
            result.merge(found) { a, _ in a }
            extensions.formUnion(sendableExtensions)
        }
        for name in extensions { result[name]?.sendable = true }
        return result
    }

    static func scan(source: String) -> [String: Declaration] {
        var (found, extensions) = read(source: source)
        for name in extensions { found[name]?.sendable = true }
        return found
    }

    /// The declarations of one file, and the types that an extension in it makes `Sendable`.
    static func read(source: String) -> (found: [String: Declaration], sendableExtensions: Set<String>) {
        var found: [String: Declaration] = [:]
        var sendableExtensions = Set<String>()
        var stack: [(name: String?, availability: String)] = []
        var pending: (name: String?, availability: String)?
        var attributes: [String] = []
        for line in PublicAPIScanner.logicalLines(source) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { continue }
            let enclosing = stack.last(where: { $0.name != nil })
            let prefix = enclosing?.name.map { $0 + "." } ?? ""
            let inherited = stack.last?.availability ?? "available"
            let declares = PublicAPIScanner.match(trimmed, #"\b(class|struct|enum|protocol|extension|typealias|func|var|let|init|case)\b"#) != nil
            if trimmed.hasPrefix("@") && !declares {
                attributes.append(trimmed)
                continue
            }
            let attributeText = (attributes + [trimmed]).joined(separator: " ")
            var availability = inherited
            if attributeText.contains("@available(*, unavailable") { availability = "unavailable" }
            else if attributeText.contains("@available(*, deprecated") && availability == "available" { availability = "deprecated" }
            let isPublic = trimmed.hasPrefix("public ") || trimmed.hasPrefix("open ")
                || trimmed.contains(" public ") || trimmed.contains(" open ")
            if let type = PublicAPIScanner.match(trimmed, #"(?:^|\s)(class|struct|enum|protocol|extension)\s+([A-Za-z_][A-Za-z0-9_.]*)(.*)"#),
               !trimmed.contains("class var"), !trimmed.contains("class func") {
                let (keyword, name, rest) = (type[0], type[1], type[2])
                let clause = String(rest.split(separator: "{", maxSplits: 1).first ?? "")
                let conformsToSendable = PublicAPIScanner.match(clause, #"\bSendable\b"#) != nil
                if keyword == "extension" {
                    if conformsToSendable { sendableExtensions.insert(name) }
                    pending = (name, inherited)
                } else if isPublic {
                    var kind = keyword
                    if keyword == "class" {
                        kind = trimmed.contains("open class") ? "open class" : trimmed.contains("final class") ? "final class" : "public class"
                    }
                    if attributeText.contains("@frozen") { kind = "@frozen " + kind }
                    found[prefix + name] = Declaration(kind: kind, sendable: conformsToSendable, availability: availability)
                    pending = (prefix + name, availability)
                } else {
                    pending = (nil, inherited)
                }
            } else if isPublic, let alias = PublicAPIScanner.match(trimmed, #"\btypealias\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)"#) {
                let target = alias[1].trimmingCharacters(in: .whitespaces)
                let sendable = target.contains("->") ? target.contains("@Sendable") : sendableAliasTargets.contains(target)
                found[prefix + alias[0]] = Declaration(kind: "typealias", sendable: sendable, availability: availability)
            }
            attributes = []
            for ch in line {
                if ch == "{" {
                    stack.append(pending ?? (nil, stack.last?.availability ?? "available"))
                    pending = nil
                } else if ch == "}" {
                    _ = stack.popLast()
                }
            }
        }
        return (found, sendableExtensions)
    }
}

/// The Declarations table of `API-STATUS.md`: `| \`Type\` | declaration | yes/no | availability | Apple |`.
enum DeclarationTable {
    static func parse(_ url: URL) throws -> [String: DeclarationScanner.Declaration] {
        let text = try String(contentsOf: url, encoding: .utf8)
        var rows: [String: DeclarationScanner.Declaration] = [:]
        var inTable = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("#") {
                inTable = line.hasPrefix("## Declarations")
                continue
            }
            guard inTable, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6 else { continue }
            let name = cells[1].replacingOccurrences(of: "`", with: "")
            rows[name] = DeclarationScanner.Declaration(kind: cells[2], sendable: cells[3] == "yes", availability: cells[4])
        }
        return rows
    }
}
