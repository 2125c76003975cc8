import Foundation

/// JSON as written by Python and R tools, which put the bare tokens `NaN`, `Infinity` and
/// `-Infinity` where a number is missing. Foundation's strict parser refuses them: they become
/// `null` here (outside strings only) before parsing, so a missing value reads as absent.
enum LenientJSON {
    static func object(from bytes: [UInt8]) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(replacingNonFiniteTokens(bytes)))
    }

    static func replacingNonFiniteTokens(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var inString = false
        var escaped = false
        var i = 0
        let null: [UInt8] = Array("null".utf8)
        let tokens: [[UInt8]] = [Array("-Infinity".utf8), Array("Infinity".utf8), Array("NaN".utf8)]
        while i < bytes.count {
            let c = bytes[i]
            if inString {
                out.append(c)
                if escaped { escaped = false } else if c == 0x5C { escaped = true } else if c == 0x22 { inString = false }
                i += 1
                continue
            }
            if c == 0x22 {
                inString = true
                out.append(c)
                i += 1
                continue
            }
            if let token = tokens.first(where: { t in i + t.count <= bytes.count && bytes[i..<(i + t.count)].elementsEqual(t) }) {
                out.append(contentsOf: null)
                i += token.count
                continue
            }
            out.append(c)
            i += 1
        }
        return out
    }
}
