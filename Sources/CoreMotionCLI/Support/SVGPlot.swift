import Foundation

/// A small, dependency-free line plot written as SVG, for results people would rather see than read
/// (attitude error over time, our gravity vs Apple's, step detections…).
struct SVGPlot {
    struct Series {
        var name: String
        var points: [(x: Double, y: Double)]
        var color: String
        var dashed = false
    }

    var title: String
    var xLabel: String
    var yLabel: String
    var series: [Series] = []
    var width = 960.0
    var height = 420.0
    /// Fixed y range; computed from the data when `nil`.
    var yRange: ClosedRange<Double>?

    static let palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]

    init(title: String, xLabel: String, yLabel: String) {
        self.title = title
        self.xLabel = xLabel
        self.yLabel = yLabel
    }

    /// Adds a series; colours cycle through the palette.
    mutating func add(_ name: String, _ points: [(x: Double, y: Double)], dashed: Bool = false) {
        series.append(Series(name: name, points: points, color: Self.palette[series.count % Self.palette.count], dashed: dashed))
    }

    /// The SVG document.
    func render() -> String {
        let left = 70.0, right = 20.0, top = 40.0, bottom = 50.0
        let pw = width - left - right, ph = height - top - bottom
        let finite = series.flatMap { $0.points }.filter { $0.x.isFinite && $0.y.isFinite }
        let xs = finite.map(\.x), ys = finite.map(\.y)
        let x0 = xs.min() ?? 0, x1 = max(xs.max() ?? 1, (xs.min() ?? 0) + 1e-9)
        var y0 = yRange?.lowerBound ?? (ys.min() ?? 0)
        var y1 = yRange?.upperBound ?? (ys.max() ?? 1)
        if y1 - y0 < 1e-12 { y0 -= 0.5; y1 += 0.5 }
        func px(_ x: Double) -> Double { left + (x - x0) / (x1 - x0) * pw }
        func py(_ y: Double) -> Double { top + (1 - (min(max(y, y0), y1) - y0) / (y1 - y0)) * ph }
        var s = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" font-family="sans-serif" font-size="12">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(width / 2)" y="22" text-anchor="middle" font-size="15">\(escape(title))</text>

            """
        for i in 0...5 {
            let fy = y0 + (y1 - y0) * Double(i) / 5, fx = x0 + (x1 - x0) * Double(i) / 5
            s += "<line x1=\"\(left)\" y1=\"\(py(fy))\" x2=\"\(left + pw)\" y2=\"\(py(fy))\" stroke=\"#ddd\"/>\n"
            s += "<text x=\"\(left - 6)\" y=\"\(py(fy) + 4)\" text-anchor=\"end\">\(tick(fy))</text>\n"
            s += "<text x=\"\(px(fx))\" y=\"\(top + ph + 16)\" text-anchor=\"middle\">\(tick(fx))</text>\n"
        }
        s += "<rect x=\"\(left)\" y=\"\(top)\" width=\"\(pw)\" height=\"\(ph)\" fill=\"none\" stroke=\"#333\"/>\n"
        s += "<text x=\"\(left + pw / 2)\" y=\"\(height - 12)\" text-anchor=\"middle\">\(escape(xLabel))</text>\n"
        s += "<text transform=\"translate(16 \(top + ph / 2)) rotate(-90)\" text-anchor=\"middle\">\(escape(yLabel))</text>\n"
        for (i, line) in series.enumerated() {
            // Thin very long series to about two points per pixel column.
            let stride = max(1, line.points.count / Int(pw * 2))
            var path = ""
            var pen = false
            for (j, p) in line.points.enumerated() where j % stride == 0 {
                guard p.x.isFinite && p.y.isFinite else { pen = false; continue }
                path += (pen ? "L" : "M") + String(format: "%.1f %.1f ", px(p.x), py(p.y))
                pen = true
            }
            let dash = line.dashed ? " stroke-dasharray=\"5 3\"" : ""
            s += "<path d=\"\(path)\" fill=\"none\" stroke=\"\(line.color)\" stroke-width=\"1.2\"\(dash)/>\n"
            let ly = top + 14 + Double(i) * 16
            s += "<line x1=\"\(left + pw - 150)\" y1=\"\(ly - 4)\" x2=\"\(left + pw - 130)\" y2=\"\(ly - 4)\" stroke=\"\(line.color)\" stroke-width=\"2\"\(dash)/>\n"
            s += "<text x=\"\(left + pw - 125)\" y=\"\(ly)\">\(escape(line.name))</text>\n"
        }
        s += "</svg>\n"
        return s
    }

    /// Writes the plot to `url` as SVG.
    func write(to url: URL) throws {
        try render().write(to: url, atomically: true, encoding: .utf8)
    }

    private func tick(_ v: Double) -> String {
        let a = abs(v)
        if a >= 1000 || (a < 0.01 && a > 0) { return String(format: "%.2g", v) }
        return String(format: a >= 10 ? "%.0f" : "%.2f", v)
    }

    private func escape(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
