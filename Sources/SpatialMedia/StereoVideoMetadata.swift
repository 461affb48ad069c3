import BinaryIO
import ISOBMFF
import SystemSupport

/// Which eye a player should show when it presents a stereo movie in 2D (`hero` box,
/// `hero_eye_indicator`: 0 none, 1 left, 2 right, anything else reserved).
public enum HeroEye: Sendable, Equatable, CustomStringConvertible {
    case none
    case left
    case right
    /// A reserved value (3…255), kept as read so it can be reported and written back.
    case reserved(UInt8)

    /// Creates the value for a stored `hero_eye_indicator`.
    public init(rawValue: UInt8) {
        switch rawValue {
        case 0: self = .none
        case 1: self = .left
        case 2: self = .right
        default: self = .reserved(rawValue)
        }
    }

    /// The stored `hero_eye_indicator`.
    public var rawValue: UInt8 {
        switch self {
        case .none: return 0
        case .left: return 1
        case .right: return 2
        case .reserved(let v): return v
        }
    }

    public var description: String {
        switch self {
        case .none: return "none"
        case .left: return "left"
        case .right: return "right"
        case .reserved(let v): return "reserved(\(v))"
        }
    }
}

/// The flag byte of the `stri` box (StereoViewInformationBox inside `vexu/eyes`).
public struct StereoViewFlags: Sendable, Equatable {
    /// The byte as stored, reserved bits 4–7 included.
    public var rawValue: UInt8
    /// Creates flags from the stored byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    /// Creates flags from the four defined bits (reserved bits zero).
    public init(left: Bool, right: Bool, additionalViews: Bool = false, reversed: Bool = false) {
        rawValue = (left ? 0x01 : 0) | (right ? 0x02 : 0) | (additionalViews ? 0x04 : 0) | (reversed ? 0x08 : 0)
    }
    /// Bit 0: the track carries a left-eye view.
    public var hasLeftEye: Bool { rawValue & 0x01 != 0 }
    /// Bit 1: the track carries a right-eye view.
    public var hasRightEye: Bool { rawValue & 0x02 != 0 }
    /// Bit 2: views beyond left and right exist.
    public var hasAdditionalViews: Bool { rawValue & 0x04 != 0 }
    /// Bit 3: the eye order is swapped against the default (must be 0 for spatial MV-HEVC).
    public var eyeViewsReversed: Bool { rawValue & 0x08 != 0 }
    /// The flags Apple writes for spatial MV-HEVC: left and right, not reversed (`0x03`).
    public static let spatialDefault = StereoViewFlags(rawValue: 0x03)
}

/// How two views share one picture (frame packing), from `st3d`, `vexu/pack/pkin` or spherical v1 XML.
public enum FramePacking: String, Sendable, Equatable {
    /// Left and right views side by side (`st3d` 2, `pkin` `side`, XML `left-right`).
    case sideBySide = "side-by-side"
    /// Left view above right view (`st3d` 1, `pkin` `over`, XML `top-bottom`).
    case topBottom = "top-bottom"
}

/// Exact conversions between human units and the integers stored in the boxes.
///
/// Every function rejects NaN and infinities and values that do not fit the stored field, with a
/// ``/BinaryIO/ParseError/Code/invalidValue`` error. Rounding is to the nearest integer, halves away from zero.
public enum SpatialUnits {
    /// Millimetres → micrometres for `blin` (`mm × 1000`, rounded). Must be ≥ 0 and fit in `UInt32`.
    public static func micrometres(fromMillimetres mm: Double) throws(ParseError) -> UInt32 {
        guard mm.isFinite else { throw invalid("baseline must be a finite number of millimetres, got \(mm)") }
        guard mm >= 0 else { throw invalid("baseline must not be negative, got \(mm) mm") }
        let v = (mm * 1000).rounded(.toNearestOrAwayFromZero)
        guard let r = UInt32(exactly: v) else {
            throw invalid("baseline \(mm) mm does not fit the 32-bit micrometre field")
        }
        return r
    }

    /// Degrees → millidegrees for `hfov` (`degrees × 1000`, rounded). Must lie strictly between 0 and 180.
    public static func millidegrees(fromDegrees deg: Double) throws(ParseError) -> UInt32 {
        guard deg.isFinite else {
            throw invalid("horizontal field of view must be a finite number of degrees, got \(deg)")
        }
        guard deg > 0 && deg < 180 else {
            throw invalid("horizontal field of view must be greater than 0° and less than 180°, got \(deg)°")
        }
        let v = (deg * 1000).rounded(.toNearestOrAwayFromZero)
        guard let r = UInt32(exactly: v), r > 0, r < 180_000 else {
            throw invalid("horizontal field of view \(deg)° rounds outside (0, 180)° at 1/1000° precision")
        }
        return r
    }

    /// Percent of the image width → `dadj` units of 1/10000 of the width (`percent × 100`, rounded).
    /// The magnitude must not exceed 100 %.
    public static func disparityUnits(fromPercent percent: Double) throws(ParseError) -> Int32 {
        guard percent.isFinite else {
            throw invalid("disparity adjustment must be a finite percentage, got \(percent)")
        }
        guard abs(percent) <= 100 else {
            throw invalid("disparity adjustment must be between -100 % and +100 %, got \(percent) %")
        }
        return Int32((percent * 100).rounded(.toNearestOrAwayFromZero))
    }

    /// Fraction of the image width → `dadj` units (`fraction × 10000`, rounded). |fraction| ≤ 1.
    public static func disparityUnits(fromFraction fraction: Double) throws(ParseError) -> Int32 {
        guard fraction.isFinite else {
            throw invalid("disparity adjustment must be a finite fraction, got \(fraction)")
        }
        return try disparityUnits(fromPercent: fraction * 100)
    }

    /// Micrometres → millimetres (exact decimal division by 1000).
    public static func millimetres(fromMicrometres um: UInt32) -> Double { Double(um) / 1000 }
    /// Millidegrees → degrees.
    public static func degrees(fromMillidegrees md: UInt32) -> Double { Double(md) / 1000 }
    /// `dadj` units → fraction of the image width.
    public static func fraction(fromDisparityUnits u: Int32) -> Double { Double(u) / 10000 }
    /// `dadj` units → percent of the image width.
    public static func percent(fromDisparityUnits u: Int32) -> Double { Double(u) / 100 }

    /// Baselines above this (1 m, in µm) are written but reported as a warning.
    public static let implausibleBaselineMicrometres: UInt32 = 1_000_000

    /// The baselines a stereo camera plausibly has, in µm: 10–100 mm (typically 19–65 mm). `validate` warns outside
    /// it (SV-PHOTO-012, SV-VIDEO-017), and a conversion does not take a source's value outside it (an MPO's
    /// placeholder BaselineLength such as the Nintendo 3DS's 1000 mm): it uses the default and says so.
    public static let plausibleBaselineMicrometres: ClosedRange<UInt32> = 10_000...100_000

    static func invalid(_ m: String) -> ParseError { ParseError(.invalidArgument, path: "", m) }
}

/// A problem in the stereo metadata of a file that did not stop reading.
public struct SpatialDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var severity: Severity
    /// Absolute file offset of the box concerned.
    public var offset: UInt64
    /// Box path, e.g. `moov/trak[0]/mdia/minf/stbl/stsd/hvc1/vexu/eyes/stri`.
    public var path: String
    public var message: String
    public init(_ severity: Severity, offset: UInt64, path: String, _ message: String) {
        self.severity = severity; self.offset = offset; self.path = path; self.message = message
    }
    public var description: String { "\(severity): \(message) (\(path) at offset \(offset))" }
    /// Machine-readable form.
    public var json: JSON {
        .object([
            ("severity", .string(severity.rawValue)), ("offset", .uint(offset)), ("path", .string(path)),
            ("message", .string(message)),
        ])
    }
}

/// Everything a video sample entry says about stereo views, in stored units, with human-unit
/// accessors. Absent boxes are `nil`; ``presentBoxes`` lists what was found.
///
/// Sources: Apple's `vexu` family and `hfov` (Specs/formats.md §1), Google's `st3d`/`sv3d` (§5) and the
/// spherical-video v1 XML `uuid` box (read only).
public struct StereoVideoMetadata: Sendable, Equatable {
    /// `vexu/eyes/stri` flags.
    public var viewFlags: StereoViewFlags?
    /// The stereo parameters as stored: `vexu/eyes/hero`, `vexu/eyes/cams/blin` (µm), `hfov` (1/1000°, sibling of
    /// `vexu`), `vexu/eyes/cmfy/dadj` (1/10000 of the per-eye width) and `vexu/proj/prji` (the kind as stored, nil
    /// when absent — see ``effectiveProjection(isMVHEVC:)``).
    public var stereo = StereoParameters()
    /// `vexu/eyes/hero` (``stereo``).
    public var heroEye: HeroEye? {
        get { stereo.heroEye }
        set { stereo.heroEye = newValue }
    }
    /// `vexu/eyes/cams/blin` in micrometres (``stereo``).
    public var baselineMicrometres: UInt32? {
        get { stereo.baselineMicrometres }
        set { stereo.baselineMicrometres = newValue }
    }
    /// `hfov` in thousandths of a degree (``stereo``).
    public var horizontalFieldOfViewMillidegrees: UInt32? {
        get { stereo.horizontalFieldOfViewMillidegrees }
        set { stereo.horizontalFieldOfViewMillidegrees = newValue }
    }
    /// `vexu/eyes/cmfy/dadj` in 1/10000 of the per-eye image width (``stereo``).
    public var disparityAdjustment: Int32? {
        get { stereo.disparityAdjustment }
        set { stereo.disparityAdjustment = newValue }
    }
    /// `vexu/proj/prji` projection kind as stored; nil when absent (``stereo``).
    public var projectionKind: FourCC? {
        get { stereo.projectionKind }
        set { stereo.projectionKind = newValue }
    }
    /// `vexu/pack/pkin` view packing kind (`side`, `over`).
    public var viewPackingKind: FourCC?
    /// `vexu/must` required box types.
    public var requiredBoxTypes: [FourCC]?
    /// Google `st3d` stereo mode (0 mono, 1 top-bottom, 2 left-right, 3 stereo-custom).
    public var googleStereoMode: UInt8?
    /// Type of the projection box inside Google's `sv3d/proj` (`equi`, `cbmp`, `mshp`).
    public var googleProjection: FourCC?
    /// `GSpherical:StereoMode` from the spherical v1 XML (`mono`, `left-right`, `top-bottom`).
    public var sphericalV1StereoMode: String?
    /// `GSpherical:ProjectionType` from the spherical v1 XML (`equirectangular`).
    public var sphericalV1Projection: String?
    /// Every `GSpherical:*` element of the v1 XML (name without prefix → text), in document order.
    public var sphericalV1Fields: [(String, String)] = []
    /// Google `sv3d/proj/equi` crop bounds as stored (top, bottom, left, right; 0.32 fixed-point fractions).
    public var googleEquirectBounds: [UInt32]?
    /// Google `sv3d/proj/prhd` pose as stored (yaw, pitch, roll; 16.16 fixed-point degrees).
    public var googlePose: [Int32]?
    /// Google `sv3d/svhd` metadata source.
    public var googleMetadataSource: String?
    /// Number of `lens` boxes in `vexu/lnsc` (parametric immersive lens collection); nil when absent.
    public var lensCount: Int?

    public static func == (a: StereoVideoMetadata, b: StereoVideoMetadata) -> Bool {
        a.viewFlags == b.viewFlags && a.stereo == b.stereo
            && a.viewPackingKind == b.viewPackingKind && a.requiredBoxTypes == b.requiredBoxTypes
            && a.googleStereoMode == b.googleStereoMode && a.googleProjection == b.googleProjection
            && a.sphericalV1StereoMode == b.sphericalV1StereoMode && a.sphericalV1Projection == b.sphericalV1Projection
            && a.sphericalV1Fields.map(\.0) == b.sphericalV1Fields.map(\.0)
            && a.sphericalV1Fields.map(\.1) == b.sphericalV1Fields.map(\.1)
            && a.googleEquirectBounds == b.googleEquirectBounds && a.googlePose == b.googlePose
            && a.googleMetadataSource == b.googleMetadataSource && a.lensCount == b.lensCount
            && a.presentBoxes == b.presentBoxes && a.diagnostics == b.diagnostics
    }
    /// Paths, relative to the sample entry (or the track for `uuid`), of every stereo-related box found.
    public var presentBoxes: [String] = []
    /// Size problems and other findings; the bytes of such boxes are kept as they are.
    public var diagnostics: [SpatialDiagnostic] = []

    public init() {}

    /// True when a `vexu` box exists.
    public var hasVexu: Bool { presentBoxes.contains("vexu") }
    /// True when an `hfov` box exists.
    public var hasHFOV: Bool { presentBoxes.contains("hfov") }
    /// True when `vexu/proj` exists.
    public var hasProjectionBox: Bool { presentBoxes.contains("vexu/proj") }

    /// Baseline in millimetres (``StereoParameters/baselineMillimetres``).
    public var baselineMillimetres: Double? { stereo.baselineMillimetres }
    /// Horizontal field of view in degrees (``StereoParameters/horizontalFieldOfViewDegrees``).
    public var horizontalFieldOfViewDegrees: Double? { stereo.horizontalFieldOfViewDegrees }
    /// Disparity adjustment as a fraction of the image width (``StereoParameters/disparityFraction``).
    public var disparityFraction: Double? { stereo.disparityFraction }
    /// Disparity adjustment in percent of the image width (``StereoParameters/disparityPercent``).
    public var disparityPercent: Double? { stereo.disparityPercent }

    /// The projection in effect: the stored kind, or `rect` when `vexu` exists without `proj`
    /// and the stream is MV-HEVC (Apple's writer omits `proj` for rectilinear spatial video).
    public func effectiveProjection(isMVHEVC: Bool) -> FourCC? {
        if let p = projectionKind { return p }
        if hasVexu && isMVHEVC { return "rect" }
        return nil
    }

    /// Frame packing signalled by any of the three sources (`vexu/pack` first, then `st3d`, then v1 XML).
    public var framePacking: FramePacking? {
        if let k = viewPackingKind {
            if k == "side" { return .sideBySide }
            if k == "over" { return .topBottom }
        }
        if let m = googleStereoMode {
            if m == 2 { return .sideBySide }
            if m == 1 { return .topBottom }
        }
        if let x = sphericalV1StereoMode {
            if x == "left-right" { return .sideBySide }
            if x == "top-bottom" { return .topBottom }
        }
        return nil
    }
}

/// Reading stereo metadata from boxes.
public enum StereoMetadataReader {
    /// UUID of Google's spherical video v1 XML box.
    public static let sphericalV1UUID: [UInt8] = [
        0xff, 0xcc, 0x82, 0x63, 0xf8, 0x55, 0x4a, 0x93, 0x88, 0x14, 0x58, 0x7a, 0x02, 0x52, 0x1f, 0xdd,
    ]

    /// Total box sizes FFmpeg insists on (it rejects other sizes); we report and keep the bytes.
    static let expectedSizes: [FourCC: UInt64] = [
        "stri": 13, "hero": 13, "blin": 16, "dadj": 16, "hfov": 12, "st3d": 13,
    ]

    /// Reads the stereo metadata of one sample entry, plus the spherical v1 XML of its track.
    public static func read(sampleEntry entry: Box, track: Box? = nil) -> StereoVideoMetadata {
        var m = StereoVideoMetadata()
        for child in entry.children ?? [] {
            switch child.type {
            case "vexu": readVexu(child, into: &m)
            case "hfov":
                m.presentBoxes.append("hfov")
                checkSize(child, &m)
                if let v = fieldOfView(child) { m.horizontalFieldOfViewMillidegrees = v }
            case "st3d":
                m.presentBoxes.append("st3d")
                checkSize(child, &m)
                if let p = child.payload(Stereoscopic3DVideoBox.self) { m.googleStereoMode = p.stereoMode }
            case "sv3d":
                m.presentBoxes.append("sv3d")
                if let src = child.child("svhd")?.payload(SphericalVideoHeaderBox.self) {
                    m.googleMetadataSource = src.metadataSource.value
                }
                if let proj = child.child("proj") {
                    m.googleProjection = proj.children?.first { ["equi", "cbmp", "mshp"].contains($0.type) }?.type
                    if let e = proj.child("equi")?.payload(EquirectangularProjectionBox.self) {
                        m.googleEquirectBounds = [e.boundsTop, e.boundsBottom, e.boundsLeft, e.boundsRight]
                    }
                    if let h = proj.child("prhd")?.payload(ProjectionHeaderBox.self) {
                        m.googlePose = [h.poseYaw, h.posePitch, h.poseRoll]
                    }
                }
            default: break
            }
        }
        if let track {
            for u in track.children("uuid") where u.header.userType == sphericalV1UUID {
                m.presentBoxes.append("uuid(spherical-v1)")
                if case .raw(let bytes) = u.fields {
                    m.sphericalV1StereoMode = xmlValue(bytes, tag: "GSpherical:StereoMode")
                    m.sphericalV1Projection = xmlValue(bytes, tag: "GSpherical:ProjectionType")
                    m.sphericalV1Fields = xmlElements(bytes, prefix: "GSpherical:")
                }
            }
        }
        return m
    }

    static func readVexu(_ vexu: Box, into m: inout StereoVideoMetadata) {
        m.presentBoxes.append("vexu")
        for c in vexu.children ?? [] {
            switch c.type {
            case "eyes":
                m.presentBoxes.append("vexu/eyes")
                var sawStri = false
                for e in c.children ?? [] {
                    switch e.type {
                    case "stri":
                        sawStri = true
                        m.presentBoxes.append("vexu/eyes/stri")
                        checkSize(e, &m)
                        if let p = e.payload(StereoViewInformationBox.self) {
                            m.viewFlags = StereoViewFlags(rawValue: p.flagsByte)
                        } else if let b = rawAfterFullBox(e), let f = b.first {
                            m.viewFlags = StereoViewFlags(rawValue: f)
                        }
                    case "hero":
                        m.presentBoxes.append("vexu/eyes/hero")
                        checkSize(e, &m)
                        if let p = e.payload(HeroStereoEyeDescriptionBox.self) {
                            let v = p.heroEye
                            m.heroEye = HeroEye(rawValue: v)
                            if v > 2 {
                                m.diagnostics.append(
                                    SpatialDiagnostic(
                                        .warning, offset: e.header.offset, path: e.path,
                                        "hero_eye_indicator \(v) is reserved (0 none, 1 left, 2 right)"))
                            }
                        }
                    case "cams":
                        if let p = readValueBox(
                            e, "blin", StereoCameraSystemBaselineBox.self, at: "vexu/eyes/cams", into: &m)
                        {
                            m.baselineMicrometres = p.baseline
                        }
                    case "cmfy":
                        if let p = readValueBox(
                            e, "dadj", StereoComfortDisparityAdjustmentBox.self, at: "vexu/eyes/cmfy", into: &m)
                        {
                            m.disparityAdjustment = p.disparityAdjustment
                        }
                    default:
                        m.diagnostics.append(
                            SpatialDiagnostic(
                                .info, offset: e.header.offset, path: e.path,
                                "unknown box '\(e.type)' inside eyes; kept byte-exact"))
                    }
                }
                if !sawStri {
                    m.diagnostics.append(
                        SpatialDiagnostic(
                            .error, offset: c.header.offset, path: c.path, "eyes has no stri box (it is mandatory)"))
                }
            case "proj":
                m.presentBoxes.append("vexu/proj")
                if let prji = c.child("prji") {
                    m.presentBoxes.append("vexu/proj/prji")
                    if prji.header.size < 16 {
                        m.diagnostics.append(
                            SpatialDiagnostic(
                                .error, offset: prji.header.offset, path: prji.path,
                                "prji is \(prji.header.size) bytes; at least 16 expected"))
                    }
                    if let p = prji.payload(ProjectionInformationBox.self) { m.projectionKind = p.projectionKind }
                } else {
                    m.diagnostics.append(
                        SpatialDiagnostic(.warning, offset: c.header.offset, path: c.path, "proj has no prji box"))
                }
            case "pack":
                m.presentBoxes.append("vexu/pack")
                if let pkin = c.child("pkin"), let p = pkin.payload(ViewPackingInformationBox.self) {
                    m.presentBoxes.append("vexu/pack/pkin")
                    m.viewPackingKind = p.packingKind
                }
            case "lnsc":
                m.presentBoxes.append("vexu/lnsc")
                m.lensCount = c.children("lens").count
            case "must":
                m.presentBoxes.append("vexu/must")
                if let p = c.payload(RequiredBoxTypesBox.self) { m.requiredBoxTypes = p.types }
            default:
                m.diagnostics.append(
                    SpatialDiagnostic(
                        .info, offset: c.header.offset, path: c.path,
                        "unknown box '\(c.type)' inside vexu; kept byte-exact"))
            }
        }
    }

    static func checkSize(_ b: Box, _ m: inout StereoVideoMetadata) {
        if let m2 = b.malformed {
            m.diagnostics.append(
                SpatialDiagnostic(
                    .error, offset: b.header.offset, path: b.path, "could not be read (\(m2.message)); bytes kept"))
        }
        guard let expected = expectedSizes[b.type], b.header.size != expected else { return }
        m.diagnostics.append(
            SpatialDiagnostic(
                .error, offset: b.header.offset, path: b.path,
                "\(b.type) is \(b.header.size) bytes; \(expected) expected (FFmpeg rejects other sizes); bytes kept"))
    }

    /// `cams/blin` and `cmfy/dadj`: a container (at `path`) holding one value box, both recorded as present, checked
    /// for size and contents, and the value box read.
    static func readValueBox<T: BoxPayload>(
        _ container: Box, _ child: FourCC, _ type: T.Type, at path: String, into m: inout StereoVideoMetadata
    ) -> T? {
        m.presentBoxes.append(path)
        defer { checkContainer(container, only: child, &m) }
        guard let b = container.child(child) else { return nil }
        m.presentBoxes.append("\(path)/\(child)")
        checkSize(b, &m)
        return b.payload(T.self)
    }

    static func checkContainer(_ b: Box, only: FourCC, _ m: inout StereoVideoMetadata) {
        if b.child(only) == nil {
            m.diagnostics.append(
                SpatialDiagnostic(.warning, offset: b.header.offset, path: b.path, "\(b.type) has no \(only) box"))
        } else if b.header.size != 24 {
            m.diagnostics.append(
                SpatialDiagnostic(
                    .warning, offset: b.header.offset, path: b.path,
                    "\(b.type) is \(b.header.size) bytes; FFmpeg accepts only 24 (a lone \(only))"))
        }
    }

    static func fieldOfView(_ b: Box) -> UInt32? {
        b.payload(HorizontalFieldOfViewBox.self)?.fieldOfView
    }

    static func rawAfterFullBox(_ b: Box) -> ArraySlice<UInt8>? {
        if case .raw(let bytes) = b.fields, bytes.count > 4 { return bytes[4...] }
        return nil
    }

    /// Every `<prefix…>text</prefix…>` element in UTF-8 XML bytes (name without the prefix, trimmed text).
    static func xmlElements(_ bytes: [UInt8], prefix: String) -> [(String, String)] {
        let text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        var out: [(String, String)] = []
        var from = text.startIndex
        while out.count < 64, let open = text.range(of: "<" + prefix, range: from..<text.endIndex) {
            guard let close = text.range(of: ">", range: open.upperBound..<text.endIndex) else { break }
            let name = String(text[open.upperBound..<close.lowerBound])
            from = close.upperBound
            guard !name.isEmpty, !name.contains(" "), !name.hasSuffix("/"),
                let end = text.range(of: "</\(prefix)\(name)>", range: close.upperBound..<text.endIndex)
            else { continue }
            out.append((name, String(text[close.upperBound..<end.lowerBound]).trimmingSpaces()))
            from = end.upperBound
        }
        return out
    }

    /// The text between `<tag>` and `</tag>` in UTF-8 XML bytes, trimmed; nil when missing.
    static func xmlValue(_ bytes: [UInt8], tag: String) -> String? {
        let text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
        guard let open = text.range(of: "<\(tag)>") else { return nil }
        guard let close = text.range(of: "</\(tag)>", range: open.upperBound..<text.endIndex) else { return nil }
        return String(text[open.upperBound..<close.lowerBound]).trimmingSpaces()
    }
}

extension String {
    func range(of needle: String, range: Range<String.Index>? = nil) -> Range<String.Index>? {
        let hay = range.map { self[$0] } ?? self[...]
        guard !needle.isEmpty else { return nil }
        var i = hay.startIndex
        while i < hay.endIndex {
            if hay[i...].hasPrefix(needle) {
                guard let end = index(i, offsetBy: needle.count, limitedBy: endIndex) else { return nil }
                return i..<end
            }
            i = hay.index(after: i)
        }
        return nil
    }
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
