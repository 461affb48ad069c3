import BinaryIO
import MediaDecode
import Codecs
import StereoVision
import ImageFormats

/// A self-contained HTML page for one or more reports: verdict, thumbnails, red-cyan anaglyph, match vectors
/// coloured by vertical disparity, SVG scatter plots of vertical disparity against x and y, a histogram, the rule table.
public enum HTMLReport {
    public static func page(_ reports: [ValidationReport], title: String = "spatial-media validate") -> String {
        var h = """
        <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(esc(title))</title>
        <style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}h2{border-bottom:1px solid #ccc}
        table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top;font-size:13px}
        .error{background:#fdd}.warning{background:#ffe9b3}.info{background:#eef}.yes{color:#070;font-weight:bold}.no{color:#b00;font-weight:bold}
        .imgs img,.imgs svg{max-width:420px;margin:4px;border:1px solid #999;vertical-align:top}figure{display:inline-block;margin:4px}figcaption{font-size:12px}</style>
        </head><body><h1>\(esc(title))</h1>
        """
        for r in reports { h += section(r) }
        h += "</body></html>\n"
        return h
    }

    static func section(_ r: ValidationReport) -> String {
        var h = "<section class=\"report\"><h2>\(esc(r.input))</h2>"
        h += "<p>Kind: <b>\(esc(r.kind))</b>. Will it be spatial? <span class=\"\(r.spatial ? "yes" : "no")\">\(r.spatial ? "yes" : "no")</span></p>"
        if !r.spatial && !r.whyNotSpatial.isEmpty { h += "<ul>" + r.whyNotSpatial.map { "<li>\(esc($0))</li>" }.joined() + "</ul>" }
        if let m = r.measurements.first?.result.measurement {
            h += "<table><tr><th>vertical disparity median |dy|</th><td>\(Fmt.num(m.medianAbsDy)) px (\(Fmt.num(m.percentOfHeight(m.medianAbsDy)))% of H)</td></tr>"
            h += "<tr><th>p95 |dy|</th><td>\(Fmt.num(m.p95AbsDy)) px</td></tr><tr><th>roll</th><td>\(Fmt.num(m.rollDegrees, 3))°</td></tr>"
            h += "<tr><th>vertical scale</th><td>\(Fmt.num(m.verticalScalePercent, 3))%</td></tr><tr><th>keystone (corners)</th><td>\(Fmt.num(m.keystoneCornerPixels)) px</td></tr>"
            h += "<tr><th>horizontal disparity far / median / near</th><td>\(Fmt.num(m.disparityFar)) / \(Fmt.num(m.disparityMedian)) / \(Fmt.num(m.disparityNear)) px</td></tr>"
            h += "<tr><th>inliers / confidence</th><td>\(m.matches.count) / \(Fmt.num(m.confidence)) (\(m.confidenceLabel))</td></tr></table>"
        } else if let fail = r.measurements.first?.result.failure {
            h += "<p><b>Cannot measure:</b> \(esc(fail))</p>"
        }
        if let p = r.preview {
            let m = r.measurements.first?.result.measurement
            h += "<div class=\"imgs\">"
            h += figure(png(p.left), "left eye") + figure(png(p.right), "right eye") + figure(anaglyph(p.left, p.right), "red-cyan anaglyph")
            if let m { h += "<figure>" + vectors(p, m) + "<figcaption>matches: left position, vector to the right-eye position ×5 vertically; colour = vertical disparity</figcaption></figure>" }
            h += "</div>"
            if let m {
                h += "<div class=\"imgs\">" + scatter(m, againstX: true) + scatter(m, againstX: false) + histogram(m) + "</div>"
            }
        }
        h += "<table><tr><th>severity</th><th>rule</th><th>message</th><th>where</th><th>source</th></tr>"
        for f in r.findings.sorted(by: { $0.severity > $1.severity }) {
            h += "<tr class=\"\(f.severity.rawValue)\"><td>\(f.severity.rawValue)</td><td>\(esc(f.ruleID))</td><td>\(esc(f.message))</td><td>\(esc(f.location))</td><td>\(esc(RuleCatalog.rule(f.ruleID)?.source ?? ""))</td></tr>"
        }
        h += "</table></section>"
        return h
    }

    static func figure(_ dataURI: String?, _ caption: String) -> String {
        guard let d = dataURI else { return "" }
        return "<figure><img src=\"\(d)\" alt=\"\(esc(caption))\"><figcaption>\(esc(caption))</figcaption></figure>"
    }

    static func esc(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c { case "&": o += "&amp;"; case "<": o += "&lt;"; case ">": o += "&gt;"; case "\"": o += "&quot;"; default: o.append(c) }
        }
        return o
    }

    static func png(_ g: GrayImage) -> String? {
        guard let img = try? Image(width: g.width, height: g.height, bitDepth: 8, format: .gray, planes: .u8([g.bytes])),
              let bytes = try? PNG.encode(img) else { return nil }
        return "data:image/png;base64," + Base64.encode(bytes)
    }

    static func anaglyph(_ l: GrayImage, _ r: GrayImage) -> String? {
        guard l.width == r.width, l.height == r.height else { return nil }
        let lb = l.bytes, rb = r.bytes
        var rgb = [UInt8](repeating: 0, count: lb.count * 3)
        for i in 0..<lb.count { rgb[3 * i] = lb[i]; rgb[3 * i + 1] = rb[i]; rgb[3 * i + 2] = rb[i] }
        guard let img = try? Image(width: l.width, height: l.height, bitDepth: 8, format: .rgb, planes: .u8([rgb])), let bytes = try? PNG.encode(img) else { return nil }
        return "data:image/png;base64," + Base64.encode(bytes)
    }

    static func colour(_ dy: Double, _ scale: Double) -> String {
        let t = max(-1, min(1, dy / max(scale, 1e-6)))
        let r = Int(127 + 128 * max(0, t)), b = Int(127 + 128 * max(0, -t)), g = Int(200 - 150 * abs(t))
        return "rgb(\(r),\(g),\(b))"
    }

    static func vectors(_ p: EyePixels, _ m: StereoMeasurement) -> String {
        let W = Double(p.left.width), H = Double(p.left.height)
        let sx = W / Double(m.width), sy = H / Double(m.height)
        var s = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(W))\" height=\"\(Int(H))\" viewBox=\"0 0 \(Int(W)) \(Int(H))\">"
        if let d = png(p.left) { s += "<image href=\"\(d)\" width=\"\(Int(W))\" height=\"\(Int(H))\" opacity=\"0.5\"/>" }
        let scale = max(m.p95AbsDy, 0.5)
        for mt in m.matches.prefix(1500) {
            let x = mt.xl * sx, y = mt.yl * sy
            let x2 = mt.xr * sx, y2 = (mt.yl + mt.dy * 5) * sy
            s += "<line x1=\"\(Fmt.num(x, 1))\" y1=\"\(Fmt.num(y, 1))\" x2=\"\(Fmt.num(x2, 1))\" y2=\"\(Fmt.num(y2, 1))\" stroke=\"\(colour(mt.dy, scale))\" stroke-width=\"1\"/>"
            s += "<circle cx=\"\(Fmt.num(x, 1))\" cy=\"\(Fmt.num(y, 1))\" r=\"1.5\" fill=\"\(colour(mt.dy, scale))\"/>"
        }
        for mt in m.outliers.prefix(300) {
            s += "<circle cx=\"\(Fmt.num(mt.xl * sx, 1))\" cy=\"\(Fmt.num(mt.yl * sy, 1))\" r=\"1.5\" fill=\"none\" stroke=\"#f0f\"/>"
        }
        return s + "</svg>"
    }

    static func scatter(_ m: StereoMeasurement, againstX: Bool) -> String {
        let w = 400.0, h = 240.0, pad = 36.0
        let span = max(1.0, m.p95AbsDy * 2, (m.matches.map { abs($0.dy) }.max() ?? 1).clamped(0, 50))
        let extent = Double(againstX ? m.width : m.height)
        var s = "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        s += "<line x1=\"\(pad)\" y1=\"\(h / 2)\" x2=\"\(w - 8)\" y2=\"\(h / 2)\" stroke=\"#888\"/><line x1=\"\(pad)\" y1=\"8\" x2=\"\(pad)\" y2=\"\(h - 20)\" stroke=\"#888\"/>"
        s += "<text x=\"2\" y=\"14\" font-size=\"10\">+\(Fmt.num(span, 1))</text><text x=\"2\" y=\"\(h - 22)\" font-size=\"10\">−\(Fmt.num(span, 1))</text>"
        for mt in m.matches.prefix(3000) {
            let px = pad + (againstX ? mt.xl : mt.yl) / extent * (w - pad - 8)
            let py = h / 2 - max(-1, min(1, mt.dy / span)) * (h / 2 - 20)
            s += "<circle cx=\"\(Fmt.num(px, 1))\" cy=\"\(Fmt.num(py, 1))\" r=\"1.3\" fill=\"#36c\"/>"
        }
        // Fitted field along the centre line.
        var path = ""
        for k in 0...40 {
            let t = Double(k) / 40 * extent
            let dy = againstX ? m.model.predict(x: t, y: m.model.cy) : m.model.predict(x: m.model.cx, y: t)
            let px = pad + t / extent * (w - pad - 8), py = h / 2 - max(-1, min(1, dy / span)) * (h / 2 - 20)
            path += (k == 0 ? "M" : "L") + "\(Fmt.num(px, 1)),\(Fmt.num(py, 1))"
        }
        s += "<path d=\"\(path)\" stroke=\"#c00\" fill=\"none\" stroke-width=\"1.5\"/>"
        s += "</svg><figcaption>vertical disparity (px) against \(againstX ? "x" : "y"); red: fitted field through the centre</figcaption></figure>"
        return s
    }

    static func histogram(_ m: StereoMeasurement) -> String {
        let w = 400.0, h = 240.0, bins = 40
        let span = max(1.0, m.p95AbsDy * 2)
        var counts = [Int](repeating: 0, count: bins)
        for mt in m.matches {
            let b = Int(((mt.dy + span) / (2 * span) * Double(bins)).rounded(.down))
            if b >= 0 && b < bins { counts[b] += 1 }
        }
        let mx = Double(max(1, counts.max() ?? 1))
        var s = "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        let bw = (w - 20) / Double(bins)
        for (i, c) in counts.enumerated() {
            let bh = Double(c) / mx * (h - 40)
            s += "<rect x=\"\(Fmt.num(10 + Double(i) * bw, 1))\" y=\"\(Fmt.num(h - 20 - bh, 1))\" width=\"\(Fmt.num(bw - 1, 1))\" height=\"\(Fmt.num(bh, 1))\" fill=\"#36c\"/>"
        }
        s += "<text x=\"10\" y=\"\(h - 6)\" font-size=\"10\">−\(Fmt.num(span, 1)) px</text><text x=\"\(w / 2 - 4)\" y=\"\(h - 6)\" font-size=\"10\">0</text><text x=\"\(w - 60)\" y=\"\(h - 6)\" font-size=\"10\">+\(Fmt.num(span, 1)) px</text>"
        s += "</svg><figcaption>histogram of vertical disparity of the inliers</figcaption></figure>"
        return s
    }
}

extension Double {
    func clamped(_ lo: Double, _ hi: Double) -> Double { Swift.min(Swift.max(self, lo), hi) }
}

/// Base64 (RFC 4648) for data URIs.
enum Base64 {
    static let table = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static func encode(_ b: [UInt8]) -> String {
        var out = [UInt8]()
        out.reserveCapacity((b.count + 2) / 3 * 4)
        var i = 0
        while i + 2 < b.count {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2])
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
            i += 3
        }
        let rest = b.count - i
        if rest == 1 {
            let n = UInt32(b[i]) << 16
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], 61, 61]
        } else if rest == 2 {
            let n = UInt32(b[i]) << 16 | UInt32(b[i + 1]) << 8
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], 61]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
