import BinaryIO
import SystemSupport

/// What `info` says about a JPEG, MPO or PNG file (the formats `convert` and `validate` read besides ISOBMFF).
public enum ImageInfo {
    /// Lines and JSON describing the image; throws when its header cannot be read.
    public static func describe(_ b: [UInt8]) throws(ParseError) -> (lines: [String], json: JSON) {
        let note =
            "spatial photo: no — a JPEG, MPO or PNG carries no spatial metadata (convert it: `spatial-media convert IN -o OUT.heic`)"
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            guard b.count >= 26, Array(b[12..<16]) == Array("IHDR".utf8) else {
                throw ParseError(.truncated, offset: 8, "PNG without an IHDR chunk")
            }
            let w = b[16..<20].reduce(0) { $0 << 8 | Int($1) }, h = b[20..<24].reduce(0) { $0 << 8 | Int($1) }
            return (
                ["PNG image \(w)x\(h), \(b[24])-bit, \(b.count) bytes", note],
                .object([
                    ("format", .string("png")), ("width", .int(Int64(w))), ("height", .int(Int64(h))),
                    ("bit_depth", .int(Int64(b[24]))),
                    ("file_size", .int(Int64(b.count))), ("spatial_photo", .bool(false)),
                ])
            )
        }
        let seg = try JPEGSegments(b)
        guard let f = seg.frame else {
            throw ParseError(.truncated, "JPEG without a frame header (SOF) before the scan")
        }
        var lines = [
            "JPEG image \(f.width)x\(f.height), \(f.components) component\(f.components == 1 ? "" : "s"), \(f.precision)-bit, \(b.count) bytes"
        ]
        var o: [(String, JSON)] = [
            ("format", .string("jpeg")), ("width", .int(Int64(f.width))), ("height", .int(Int64(f.height))),
            ("file_size", .int(Int64(b.count))),
        ]
        if let mpo = try? MPO(b), let pair = mpo.stereoPair ?? (mpo.fromIndex && mpo.pictures.count < 2 ? (0, 0) : nil)
        {
            var s = "MPO (multi-picture): \(mpo.pictures.count) picture\(mpo.pictures.count == 1 ? "" : "s")"
            let a = mpo.pictures.first?.attributes, a2 = mpo.pictures.dropFirst().first?.attributes
            if let bl = a?.baselineMM ?? a2?.baselineMM {
                s += ", baseline \(NumberText.fixed(bl, places: 1, trimZeros: true)) mm"
            }
            if let c = a?.convergenceAngleDegrees ?? a2?.convergenceAngleDegrees {
                s += ", convergence \(NumberText.fixed(c, places: 2, trimZeros: true))°"
            }
            let views =
                " (stereo pair: pictures \(pair.0 + 1) and \(pair.1 + 1), MP type \(MPO.TypeCode.name(mpo.type(pair.1)))"
            lines.append(s + (mpo.pictures.count >= 2 ? views + "; first = left)" : "; no second eye"))
            o[0] = ("format", .string("mpo"))
            o.append(("pictures", .int(Int64(mpo.pictures.count))))
            if let bl = a?.baselineMM ?? a2?.baselineMM { o.append(("baseline_mm", .double(bl))) }
        } else if let mpo = try? MPO(b), mpo.pictures.count >= 2 {
            // One photo with further MPF pictures (an HDR gain map, thumbnails): listed as HEIC's auxiliary images are.
            let types = mpo.pictures.indices.map { MPO.TypeCode.name(mpo.type($0)) }.joined(separator: ", ")
            lines.append(
                "MPF index: \(mpo.pictures.count) pictures (\(types)): one photo, not a stereo pair "
                    + "(only MP type Disparity, or two Multi-angle pictures, make a stereo MPO)")
            o.append(("pictures", .int(Int64(mpo.pictures.count))))
            do throws(ParseError) {
                if let g = try JPEGGainMap.read(b, mpo: mpo) {
                    lines.append("auxiliary images: 1")
                    lines.append("  \(g.description)")
                    var gj: [(String, JSON)] = [
                        ("picture", .int(Int64(g.index + 1))), ("mp_type", .int(Int64(g.type))),
                        ("width", .int(Int64(g.width))),
                        ("height", .int(Int64(g.height))), ("kind", .string(g.isApple ? "gain-map" : "iso-gain-map")),
                        ("metadata_source", .string(g.metadataSource)),
                    ]
                    if let m = g.metadata, let c = m.channels.first {
                        gj += [
                            ("gain_map_min", .double(c.gainMapMin.value)),
                            ("gain_map_max", .double(c.gainMapMax.value)),
                            ("gamma", .double(c.gamma.value)), ("base_offset", .double(c.baseOffset.value)),
                            ("alternate_offset", .double(c.alternateOffset.value)),
                            ("base_headroom", .double(m.baseHeadroom.value)),
                            ("alternate_headroom", .double(m.alternateHeadroom.value)),
                            ("channels", .int(Int64(m.channels.count))),
                        ]
                    }
                    o.append(("gain_map", .object(gj)))
                }
            } catch {
                let at = mpo.gainMapIndex.map { $0 + 1 } ?? 2
                lines.append("  gain map: MPF picture \(at) cannot be read: \(error.message)")
            }
        }
        lines.append(note)
        o.append(("spatial_photo", .bool(false)))
        return (lines, .object(o))
    }
}
