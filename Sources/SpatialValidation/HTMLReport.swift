import BinaryIO
import Codecs
import ImageFormats
import MediaDecode
import SpatialMedia
import StereoVision

/// A self-contained HTML page for one or more reports: verdict, thumbnails, red-cyan anaglyph, match vectors coloured
/// by vertical disparity, SVG scatter plots of vertical disparity against x and y, a histogram, the rule table.
public enum HTMLReport {
    public static func page(_ reports: [ValidationReport], title: String = "spatial-media validate") -> String {
        var h = """
            <!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>\(esc(title))</title>
            <style>body{font-family:system-ui,sans-serif;margin:24px;color:#222}h2{border-bottom:1px solid #ccc}
            table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top;font-size:13px}
            .error{background:#fdd}.warning{background:#ffe9b3}.info{background:#eef}.yes{color:#070;font-weight:bold}.no{color:#b00;font-weight:bold}
            .verdict{font-size:18px;padding:6px 10px}.ok{background:#dfd}.warn{background:#ffe9b3}.bad{background:#fdd}.small{font-size:12px;color:#555}
            .imgs svg{height:auto}.imgs img,.imgs svg{max-width:420px;margin:4px;border:1px solid #999;vertical-align:top}figure{display:inline-block;margin:4px}figcaption{font-size:12px}</style>
            </head><body><h1>\(esc(title))</h1>
            """
        for r in reports { h += section(r) }
        h += "</body></html>\n"
        return h
    }

    static func section(_ r: ValidationReport) -> String {
        var h = "<section class=\"report\"><h2>\(esc(r.input))</h2>"
        // 1. Verdict and the errors/warnings first.
        let errors = r.findings.filter { $0.severity == .error },
            warnings = r.findings.filter { $0.severity == .warning }
        let verdict =
            errors.isEmpty
            ? (warnings.isEmpty ? "OK" : "usable, with \(warnings.count) warning\(warnings.count == 1 ? "" : "s")")
            : "\(errors.count) error\(errors.count == 1 ? "" : "s")"
        h +=
            "<p class=\"verdict \(errors.isEmpty ? (warnings.isEmpty ? "ok" : "warn") : "bad")\">Verdict: <b>\(esc(verdict))</b> · kind \(esc(r.kind)) · spatial: <span class=\"\(r.spatial ? "yes" : "no")\">\(r.spatial ? "yes" : "no")</span></p>"
        if !r.spatial && !r.whyNotSpatial.isEmpty {
            h += "<ul>" + r.whyNotSpatial.map { "<li>\(esc($0))</li>" }.joined() + "</ul>"
        }
        if !(errors + warnings).isEmpty { h += findingsTable(errors + warnings) }
        // 2. Spatial metadata.
        let fa = r.facts
        h +=
            "<h3>Spatial metadata</h3><table><tr><th>baseline</th><td>\(fa.stereo.baselineMillimetres.map { "\(Fmt.num($0, 2)) mm" } ?? "—")</td>"
        h +=
            "<th>horizontal field of view</th><td>\(fa.stereo.horizontalFieldOfViewDegrees.map { "\(Fmt.num($0, 2))°" } ?? "— (angles assume \(Fmt.num(GeometryThresholds.assumedHFOV, 0))°)")</td>"
        h +=
            "<th>disparity adjustment</th><td>\(fa.stereo.disparityAdjustment.map { "\($0) (\(Fmt.num(SpatialUnits.percent(fromDisparityUnits: $0)))% of the width)" } ?? "—")</td>"
        h +=
            "<th>hero eye</th><td>\(esc(fa.stereo.heroEye.map { "\($0)" } ?? "—"))</td><th>projection</th><td>\(esc(fa.projection ?? "—"))</td></tr></table>"
        // 3. Geometry: before / after rectification.
        if let m = r.measurements.first?.result.measurement {
            h += geometryTable(m, facts: fa)
        } else if let fail = r.measurements.first?.result.failure {
            h += "<p><b>Cannot measure:</b> \(esc(fail))</p>"
        }
        if let p = r.preview {
            let m = r.measurements.first?.result.measurement
            h += "<div class=\"imgs\">"
            h +=
                figure(p.leftThumbnail.flatMap(pngRGB) ?? png(p.left), "left eye")
                + figure(p.rightThumbnail.flatMap(pngRGB) ?? png(p.right), "right eye")
                + figure(anaglyph(p.left, p.right), "red-cyan anaglyph")
            h += "</div>"
            if let m {
                h +=
                    "<div class=\"imgs\"><figure>" + vectors(p, m)
                    + "<figcaption>matches on the left eye: vector to the right-eye position (vertical ×5); colour = vertical disparity; grey arrows: the full fitted field (offset, roll, scale, keystone) ×5</figcaption></figure>"
                h += scatter(m, againstX: true) + scatter(m, againstX: false) + "</div>"
                h += "<div class=\"imgs\">" + depthBudget(m, facts: fa) + histogram(m) + "</div>"
            }
        }
        if r.measurements.count > 1 { h += framePlots(r.measurements) }
        let infos = r.findings.filter { $0.severity == .info }
        if !infos.isEmpty { h += "<h3>Notes</h3>" + findingsTable(infos) }
        h +=
            "<p class=\"small\">Rule IDs, thresholds and their rationale: Specs/validation.md of spatial-media.</p></section>"
        return h
    }

    static func findingsTable(_ fs: [Finding]) -> String {
        var h = "<table><tr><th>severity</th><th>rule</th><th>message</th><th>where</th></tr>"
        for f in fs.sorted(by: { $0.severity > $1.severity }) {
            h +=
                "<tr class=\"\(f.severity.rawValue)\"><td>\(f.severity.rawValue)</td><td title=\"\(esc(RuleCatalog.rule(f.ruleID)?.title ?? ""))\">\(esc(f.ruleID))</td><td>\(esc(f.message))</td><td>\(esc(f.location))</td></tr>"
        }
        return h + "</table>"
    }

    static func geometryTable(_ m: StereoMeasurement, facts: StereoFacts) -> String {
        var h =
            "<h3>Geometry (before → after rectification by --align)</h3><table><tr><th></th><th>before</th><th>after --align (predicted)</th></tr>"
        h +=
            "<tr><th>vertical disparity |dy| median / p95</th><td>\(Fmt.num(m.medianAbsDy)) / \(Fmt.num(m.p95AbsDy)) px</td><td>\(Fmt.num(m.rectifiedMedianAbsDy)) / \(Fmt.num(m.rectifiedP95AbsDy)) px</td></tr>"
        if let r = m.rectification {
            h +=
                "<tr><th>vertical offset at the centre</th><td>\(Fmt.num(r.centreVerticalOffset)) px</td><td>0</td></tr>"
            h +=
                "<tr><th>roll (right picture, + = clockwise)</th><td>\(Fmt.num(r.contentRotationDegrees, 3))°</td><td>0</td></tr>"
            h += "<tr><th>vertical scale (focal)</th><td>\(Fmt.num(r.scale * 100, 3))%</td><td>0</td></tr>"
            h +=
                "<tr><th>keystone at the corners / yaw</th><td>\(Fmt.num(r.keystoneCornerPixels)) px / \(Fmt.num(r.yawDegrees, 2))° (\(r.yawDegrees < 0 ? "toe-in" : "toe-out"))</td><td>0</td></tr>"
        }
        h +=
            "<tr><th>horizontal disparity far / median / near</th><td>\(Fmt.num(m.disparityFar)) / \(Fmt.num(m.disparityMedian)) / \(Fmt.num(m.disparityNear)) px (raw)</td><td>\(Fmt.num(m.rectifiedFar)) / \(Fmt.num(m.rectifiedMedian)) / \(Fmt.num(m.rectifiedNear)) px (rectified)</td></tr>"
        if let o = m.occlusion {
            h +=
                "<tr><th>eye order (half-occlusions)</th><td colspan=\"2\">\(o.consistent) strips as labelled, \(o.swapped) swapped → \(esc(o.verdict.rawValue))</td></tr>"
        }
        h +=
            "<tr><th>sharpness left / right</th><td colspan=\"2\">\(Fmt.num(m.sharpnessLeft, 3)) / \(Fmt.num(m.sharpnessRight, 3))</td></tr>"
        h +=
            "<tr><th>inliers / confidence</th><td colspan=\"2\">\(m.matches.count) / \(Fmt.num(m.confidence)) (\(m.confidenceLabel))</td></tr></table>"
        return h
    }

    static func figure(_ dataURI: String?, _ caption: String) -> String {
        guard let d = dataURI else { return "" }
        return "<figure><img src=\"\(d)\" alt=\"\(esc(caption))\"><figcaption>\(esc(caption))</figcaption></figure>"
    }

    static func esc(_ s: String) -> String {
        var o = ""
        for c in s {
            switch c {
            case "&": o += "&amp;";
            case "<": o += "&lt;";
            case ">": o += "&gt;";
            case "\"": o += "&quot;";
            default: o.append(c)
            }
        }
        return o
    }

    static func png(_ g: GrayImage) -> String? {
        guard
            let img = try? Image(width: g.width, height: g.height, bitDepth: 8, format: .gray, planes: .u8([g.bytes])),
            let bytes = try? PNG.encode(img)
        else { return nil }
        return "data:image/png;base64," + Base64.encode(bytes)
    }

    static func pngRGB(_ img: Image) -> String? {
        guard let bytes = try? PNG.encode(img) else { return nil }
        return "data:image/png;base64," + Base64.encode(bytes)
    }

    /// Histogram of the disparity as shown (rectified, the constant toe-in shift kept) with infinity (0) and the window
    /// marked.
    static func depthBudget(_ m: StereoMeasurement, facts: StereoFacts) -> String {
        let shift0 = m.rectification?.centreHorizontalShift ?? 0
        let d = m.rectifiedDisparities.map { $0 + shift0 }
        let w = 400.0, h = 240.0, bins = 48
        let d0 = (facts.stereo.disparityFraction ?? 0) * Double(m.width)
        var lo = min(Stats.percentile(d, 0.5) ?? 0, 0, d0) - 1, hi = max(Stats.percentile(d, 99.5) ?? 1, 0, d0) + 1
        if hi - lo < 4 { lo -= 2; hi += 2 }
        var counts = [Int](repeating: 0, count: bins)
        for v in d { let b = Int((v - lo) / (hi - lo) * Double(bins)); if b >= 0 && b < bins { counts[b] += 1 } }
        let mx = Double(max(1, counts.max() ?? 1)), bw = (w - 20) / Double(bins)
        func xpos(_ v: Double) -> Double { 10 + (v - lo) / (hi - lo) * (w - 20) }
        var s =
            "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        for (i, c) in counts.enumerated() {
            let bh = Double(c) / mx * (h - 50)
            let centre = lo + (Double(i) + 0.5) / Double(bins) * (hi - lo)
            s +=
                "<rect x=\"\(Fmt.num(10 + Double(i) * bw, 1))\" y=\"\(Fmt.num(h - 30 - bh, 1))\" width=\"\(Fmt.num(bw - 1, 1))\" height=\"\(Fmt.num(bh, 1))\" fill=\"\(centre > d0 ? "#d62" : "#36c")\"/>"
        }
        s +=
            "<line x1=\"\(Fmt.num(xpos(0), 1))\" y1=\"10\" x2=\"\(Fmt.num(xpos(0), 1))\" y2=\"\(h - 30)\" stroke=\"#000\" stroke-dasharray=\"4 3\"/><text x=\"\(Fmt.num(xpos(0) + 3, 1))\" y=\"20\" font-size=\"10\">infinity (0)</text>"
        s +=
            "<line x1=\"\(Fmt.num(xpos(d0), 1))\" y1=\"10\" x2=\"\(Fmt.num(xpos(d0), 1))\" y2=\"\(h - 30)\" stroke=\"#c00\" stroke-width=\"2\"/><text x=\"\(Fmt.num(xpos(d0) + 3, 1))\" y=\"34\" font-size=\"10\" fill=\"#c00\">window \(Fmt.num(d0, 1)) px</text>"
        s +=
            "<text x=\"10\" y=\"\(h - 12)\" font-size=\"10\">\(Fmt.num(lo, 1)) px (far)</text><text x=\"\(w - 90)\" y=\"\(h - 12)\" font-size=\"10\">\(Fmt.num(hi, 1)) px (near)</text>"
        s +=
            "</svg><figcaption>depth budget: horizontal disparity as shown (the fitted field's spread removed); blue behind the window, orange in front of it</figcaption></figure>"
        return s
    }

    /// Per-frame plots of a video: vertical offset, roll ×10, scale ×10 and far/near disparity.
    static func framePlots(_ ms: [(label: String, result: StereoAnalysisResult)]) -> String {
        let rows: [(String, [Double?])] = [
            ("vertical offset (px)", ms.map { $0.result.measurement?.rectification?.centreVerticalOffset }),
            ("roll (° ×10)", ms.map { $0.result.measurement?.rectification.map { $0.contentRotationDegrees * 10 } }),
            ("vertical scale (% ×10)", ms.map { $0.result.measurement?.rectification.map { $0.scale * 1000 } }),
            ("far disparity (px)", ms.map { $0.result.measurement?.rectifiedFar }),
            ("near disparity (px)", ms.map { $0.result.measurement?.rectifiedNear }),
        ]
        let w = 820.0, h = 260.0, pad = 40.0
        let all = rows.flatMap { $0.1.compactMap { $0 } }
        let lo = min(all.min() ?? -1, -1), hi = max(all.max() ?? 1, 1)
        let n = max(1, ms.count - 1)
        var s =
            "<h3>Per frame</h3><figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        func y(_ v: Double) -> Double { h - 24 - (v - lo) / (hi - lo) * (h - 40) }
        s +=
            "<line x1=\"\(pad)\" y1=\"\(Fmt.num(y(0), 1))\" x2=\"\(w - 150)\" y2=\"\(Fmt.num(y(0), 1))\" stroke=\"#aaa\"/>"
        let colours = ["#c00", "#080", "#e80", "#36c", "#909"]
        for (k, row) in rows.enumerated() {
            var path = ""
            for (i, v) in row.1.enumerated() {
                guard let v else { continue }
                let x = pad + Double(i) / Double(n) * (w - pad - 160)
                path += (path.isEmpty ? "M" : "L") + "\(Fmt.num(x, 1)),\(Fmt.num(y(v), 1))"
                s += "<circle cx=\"\(Fmt.num(x, 1))\" cy=\"\(Fmt.num(y(v), 1))\" r=\"2.5\" fill=\"\(colours[k])\"/>"
            }
            s +=
                "<path d=\"\(path)\" stroke=\"\(colours[k])\" fill=\"none\"/><text x=\"\(w - 145)\" y=\"\(20 + 16 * k)\" font-size=\"11\" fill=\"\(colours[k])\">\(esc(row.0))</text>"
        }
        s +=
            "<text x=\"2\" y=\"14\" font-size=\"10\">\(Fmt.num(hi, 1))</text><text x=\"2\" y=\"\(h - 24)\" font-size=\"10\">\(Fmt.num(lo, 1))</text>"
        s += "</svg><figcaption>\(esc(ms.map(\.label).joined(separator: ", ")))</figcaption></figure>"
        return s
    }

    static func anaglyph(_ l: GrayImage, _ r: GrayImage) -> String? {
        guard l.width == r.width, l.height == r.height else { return nil }
        let lb = l.bytes, rb = r.bytes
        var rgb = [UInt8](repeating: 0, count: lb.count * 3)
        for i in 0..<lb.count { rgb[3 * i] = lb[i]; rgb[3 * i + 1] = rb[i]; rgb[3 * i + 2] = rb[i] }
        guard let img = try? Image(width: l.width, height: l.height, bitDepth: 8, format: .rgb, planes: .u8([rgb])),
            let bytes = try? PNG.encode(img)
        else { return nil }
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
        var s =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(W))\" height=\"\(Int(H))\" viewBox=\"0 0 \(Int(W)) \(Int(H))\">"
        if let d = png(p.left) {
            s += "<image href=\"\(d)\" width=\"\(Int(W))\" height=\"\(Int(H))\" opacity=\"0.5\"/>"
        }
        let scale = max(m.p95AbsDy, 0.5)
        for mt in m.matches.prefix(1500) {
            let x = mt.xl * sx, y = mt.yl * sy
            let x2 = mt.xr * sx, y2 = (mt.yl + mt.dy * 5) * sy
            s +=
                "<line x1=\"\(Fmt.num(x, 1))\" y1=\"\(Fmt.num(y, 1))\" x2=\"\(Fmt.num(x2, 1))\" y2=\"\(Fmt.num(y2, 1))\" stroke=\"\(colour(mt.dy, scale))\" stroke-width=\"1\"/>"
            s += "<circle cx=\"\(Fmt.num(x, 1))\" cy=\"\(Fmt.num(y, 1))\" r=\"1.5\" fill=\"\(colour(mt.dy, scale))\"/>"
        }
        if let r = m.rectification {
            for gy in 0...6 {
                for gx in 0...8 {
                    let x = Double(gx) / 8 * Double(m.width - 1), y = Double(gy) / 6 * Double(m.height - 1)
                    let dy = r.verticalDisparity(atX: x, y: y)
                    s +=
                        "<line x1=\"\(Fmt.num(x * sx, 1))\" y1=\"\(Fmt.num(y * sy, 1))\" x2=\"\(Fmt.num(x * sx, 1))\" y2=\"\(Fmt.num((y + dy * 5) * sy, 1))\" stroke=\"#333\" stroke-width=\"2\" opacity=\"0.8\"/>"
                    s += "<circle cx=\"\(Fmt.num(x * sx, 1))\" cy=\"\(Fmt.num(y * sy, 1))\" r=\"2.5\" fill=\"#333\"/>"
                }
            }
        }
        for mt in m.outliers.prefix(300) {
            s +=
                "<circle cx=\"\(Fmt.num(mt.xl * sx, 1))\" cy=\"\(Fmt.num(mt.yl * sy, 1))\" r=\"1.5\" fill=\"none\" stroke=\"#f0f\"/>"
        }
        return s + "</svg>"
    }

    static func scatter(_ m: StereoMeasurement, againstX: Bool) -> String {
        let w = 400.0, h = 240.0, pad = 36.0
        let span = max(1.0, m.p95AbsDy * 2, (m.matches.map { abs($0.dy) }.max() ?? 1).clamped(0, 50))
        let extent = Double(againstX ? m.width : m.height)
        var s =
            "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        s +=
            "<line x1=\"\(pad)\" y1=\"\(h / 2)\" x2=\"\(w - 8)\" y2=\"\(h / 2)\" stroke=\"#888\"/><line x1=\"\(pad)\" y1=\"8\" x2=\"\(pad)\" y2=\"\(h - 20)\" stroke=\"#888\"/>"
        s +=
            "<text x=\"2\" y=\"14\" font-size=\"10\">+\(Fmt.num(span, 1))</text><text x=\"2\" y=\"\(h - 22)\" font-size=\"10\">−\(Fmt.num(span, 1))</text>"
        for mt in m.matches.prefix(3000) {
            let px = pad + (againstX ? mt.xl : mt.yl) / extent * (w - pad - 8)
            let py = h / 2 - max(-1, min(1, mt.dy / span)) * (h / 2 - 20)
            s += "<circle cx=\"\(Fmt.num(px, 1))\" cy=\"\(Fmt.num(py, 1))\" r=\"1.3\" fill=\"#36c\"/>"
        }
        // The full fitted field along three lines (top/centre/bottom, or left/centre/right): keystone shows as a
        // bow-tie.
        for (k, frac) in [0.0, 0.5, 1.0].enumerated() {
            var path = ""
            for i in 0...40 {
                let t = Double(i) / 40 * extent
                let other = frac * Double((againstX ? m.height : m.width) - 1)
                let dy: Double
                if let r = m.rectification {
                    dy = againstX ? r.verticalDisparity(atX: t, y: other) : r.verticalDisparity(atX: other, y: t)
                } else {
                    dy = againstX ? m.model.predict(x: t, y: other) : m.model.predict(x: other, y: t)
                }
                let px = pad + t / extent * (w - pad - 8), py = h / 2 - max(-1, min(1, dy / span)) * (h / 2 - 20)
                path += (i == 0 ? "M" : "L") + "\(Fmt.num(px, 1)),\(Fmt.num(py, 1))"
            }
            s += "<path d=\"\(path)\" stroke=\"\(["#c00", "#080", "#e80"][k])\" fill=\"none\" stroke-width=\"1.5\"/>"
        }
        s +=
            "</svg><figcaption>vertical disparity (px) against \(againstX ? "x" : "y"); fitted field along the \(againstX ? "top (red), middle (green) and bottom (orange) rows" : "left (red), centre (green) and right (orange) columns")</figcaption></figure>"
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
        var s =
            "<figure><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(w))\" height=\"\(Int(h))\"><rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>"
        let bw = (w - 20) / Double(bins)
        for (i, c) in counts.enumerated() {
            let bh = Double(c) / mx * (h - 40)
            s +=
                "<rect x=\"\(Fmt.num(10 + Double(i) * bw, 1))\" y=\"\(Fmt.num(h - 20 - bh, 1))\" width=\"\(Fmt.num(bw - 1, 1))\" height=\"\(Fmt.num(bh, 1))\" fill=\"#36c\"/>"
        }
        s +=
            "<text x=\"10\" y=\"\(h - 6)\" font-size=\"10\">−\(Fmt.num(span, 1)) px</text><text x=\"\(w / 2 - 4)\" y=\"\(h - 6)\" font-size=\"10\">0</text><text x=\"\(w - 60)\" y=\"\(h - 6)\" font-size=\"10\">+\(Fmt.num(span, 1)) px</text>"
        s +=
            "</svg><figcaption>histogram of vertical disparity of the inliers (before rectification)</figcaption></figure>"
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
