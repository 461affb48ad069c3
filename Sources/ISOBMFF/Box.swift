import BinaryIO
import SystemSupport

/// How a box header encoded its size.
public enum HeaderForm: String, Sendable, Equatable {
    /// 32-bit size field.
    case compact
    /// `size == 1` followed by a 64-bit `largesize`.
    case large
    /// `size == 0`: the box extends to the end of the file (top level only).
    case toEnd
}

/// A box header as found in the file (or as it will be written).
public struct BoxHeader: Sendable, Equatable {
    public var type: FourCC
    public var form: HeaderForm
    /// The 16-byte extended type of a `uuid` box.
    public var userType: [UInt8]?
    /// Absolute file offset of the first header byte (0 for boxes built in memory).
    public var offset: UInt64
    /// Total size in bytes as declared (resolved to the real extent for `toEnd`).
    public var size: UInt64

    public init(
        type: FourCC, form: HeaderForm = .compact, userType: [UInt8]? = nil, offset: UInt64 = 0, size: UInt64 = 0
    ) {
        self.type = type
        self.form = form
        self.userType = userType
        self.offset = offset
        self.size = size
    }

    /// Header length in bytes for this form.
    public var length: Int { (form == .large ? 16 : 8) + (userType == nil ? 0 : 16) }
    /// The `uuid` extended type as canonical text (`8-4-4-4-12`), if any.
    public var userTypeString: String? { userType.map(UUIDText.format) }
}

/// Canonical text form of 16-byte UUIDs.
public enum UUIDText {
    public static func format(_ b: [UInt8]) -> String {
        let h = Hex.string(b)
        guard h.count == 32 else { return h }
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-" + String(c[16..<20]) + "-"
            + String(c[20..<32])
    }
    public static func parse(_ s: String) -> [UInt8]? {
        guard let b = Hex.bytes(s.replacingOccurrences(of: "-", with: "")), b.count == 16 else { return nil }
        return b
    }
}

extension String {
    func replacingOccurrences(of a: String, with b: String) -> String {
        split(separator: Character(a), omittingEmptySubsequences: false).joined(separator: b)
    }
}

/// The fields of a box (the bytes after the header and before any child boxes).
public enum BoxFields: Sendable {
    /// No fields (a pure container).
    case none
    /// Bytes kept verbatim (unknown boxes, `uuid` boxes we do not model, `free`, small `mdat`).
    case raw([UInt8])
    /// Payload left in the source file, referenced by absolute range (`mdat`, very large boxes).
    case fileRange(offset: UInt64, length: UInt64)
    /// A modelled payload.
    case typed(any BoxPayload)
}

/// A problem found while reading that did not stop the operation.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public var code: ParseError.Code
    public var offset: UInt64
    public var path: String
    public var message: String
    /// The diagnostic of a read that failed; `place` (where the structure being read starts) stands in when the
    /// error itself has no offset.
    public init(_ e: ParseError, at place: UInt64) {
        code = e.code; offset = e.offset ?? place; path = e.path; message = e.message
    }
    public init(code: ParseError.Code, offset: UInt64, path: String, message: String) {
        self.code = code; self.offset = offset; self.path = path; self.message = message
    }
    public var asError: ParseError { ParseError(code, offset: offset, path: path, message) }
    public var description: String { asError.description }
}

/// One node of the box tree.
///
/// A box keeps everything needed to write its bytes back unchanged: the header form, the
/// `uuid` type, modelled fields (which store every reserved bit), child boxes, and any trailing
/// bytes after the last child that do not form a box. A box whose payload failed to parse keeps its
/// bytes as ``BoxFields/raw(_:)`` and records the error in ``malformed``.
public struct Box: Sendable {
    public var header: BoxHeader
    public var fields: BoxFields
    /// Child boxes, or nil for a leaf box.
    public var children: [Box]?
    /// Bytes after the fields/children that are not part of any box (kept verbatim).
    public var trailing: [UInt8]
    /// Set when the payload could not be parsed; the bytes are then kept in ``fields`` as raw.
    public var malformed: Diagnostic?
    /// Problems inside this box that did not stop parsing (for example trailing garbage).
    public var diagnostics: [Diagnostic]
    /// Path of this box in the tree (`moov/trak[0]/mdia`), set by the parser.
    public var path: String

    public init(type: FourCC, fields: BoxFields = .none, children: [Box]? = nil, userType: [UInt8]? = nil) {
        self.header = BoxHeader(type: type, form: .compact, userType: userType)
        self.fields = fields
        self.children = children
        self.trailing = []
        self.malformed = nil
        self.diagnostics = []
        self.path = type.description
    }

    /// Convenience: a box with a modelled payload.
    public init(_ payload: any BoxPayload, type: FourCC, children: [Box]? = nil) {
        self.init(type: type, fields: .typed(payload), children: children)
    }

    public var type: FourCC { header.type }

    /// The modelled payload cast to `T`, if it is one.
    public func payload<T: BoxPayload>(_: T.Type = T.self) -> T? {
        if case .typed(let p) = fields { return p as? T }
        return nil
    }

    /// The first direct child of the given type.
    public func child(_ type: FourCC) -> Box? { children?.first { $0.header.type == type } }
    /// All direct children of the given type.
    public func children(_ type: FourCC) -> [Box] { children?.filter { $0.header.type == type } ?? [] }
    /// Follows a path of types through first matching children: `box.find("mdia", "minf", "stbl")`.
    public func find(_ types: FourCC...) -> Box? { find(types) }
    public func find(_ types: [FourCC]) -> Box? {
        var cur = self
        for t in types { guard let c = cur.child(t) else { return nil }; cur = c }
        return cur
    }
    /// Depth-first walk over this box and its descendants.
    public func walk(_ visit: (Box, Int) -> Void, depth: Int = 0) {
        visit(self, depth)
        for c in children ?? [] { c.walk(visit, depth: depth + 1) }
    }
    /// Replaces the first direct child of `type`, or appends `box` when none exists.
    public mutating func setChild(_ box: Box) {
        var list = children ?? []
        if let i = list.firstIndex(where: { $0.header.type == box.header.type }) {
            list[i] = box
        } else {
            list.append(box)
        }
        children = list
    }
    /// Removes every direct child of `type`; returns how many were removed.
    @discardableResult
    public mutating func removeChildren(_ type: FourCC) -> Int {
        guard var list = children else { return 0 }
        let before = list.count
        list.removeAll { $0.header.type == type }
        children = list
        return before - list.count
    }
    /// All diagnostics in this subtree, including malformed boxes.
    public func allDiagnostics() -> [Diagnostic] {
        var out: [Diagnostic] = []
        walk { b, _ in
            if let m = b.malformed { out.append(m) }
            out.append(contentsOf: b.diagnostics)
        }
        return out
    }
}

/// A modelled box payload: the fields between the header and the child boxes.
///
/// `init(parsing:context:)` reads from a reader bounded to the box; it may leave bytes unread,
/// which the parser then reads as child boxes (when the codec declares children) or keeps as
/// trailing bytes. `write(to:)` must write exactly what was read, so that an unmodified payload
/// round-trips byte-identically (the parser checks this and falls back to raw bytes if not).
public protocol BoxPayload: Sendable {
    init(parsing reader: inout ByteReader, context: inout ParseContext) throws(ParseError)
    func write(to writer: inout ByteWriter)
    /// Key fields for `dump` (one short line) and JSON.
    var summary: String { get }
    var json: [(String, JSON)] { get }
    /// The FullBox version that the syntax of child boxes depends on (`iref` children use 32-bit ids in
    /// version 1); nil for payloads whose children do not care.
    var versionForChildren: UInt8? { get }
    /// Throws ``/BinaryIO/ParseError/Code/unwritable`` when a field holds a value the box's syntax cannot store (a
    /// 64-bit duration in a version 0 box, a sample size wider than `stz2`'s field). Writers call it before writing.
    func checkWritable() throws(ParseError)
}

extension BoxPayload {
    public var summary: String { "" }
    public var json: [(String, JSON)] { [] }
    public var versionForChildren: UInt8? { nil }
    public func checkWritable() throws(ParseError) {}
    /// The payload's bytes as written by ``write(to:)``.
    public func serialized() -> [UInt8] {
        var w = ByteWriter()
        write(to: &w)
        return w.take()
    }
}

/// A FullBox version and flags, stored as read.
public struct FullBoxHeader: Sendable, Equatable {
    public var version: UInt8
    public var flags: UInt32
    public init(version: UInt8 = 0, flags: UInt32 = 0) { self.version = version; self.flags = flags & 0xFFFFFF }
    public init(parsing r: inout ByteReader) throws(ParseError) {
        version = try r.readU8()
        flags = try r.readU24()
    }
    public func write(to w: inout ByteWriter) { w.writeU8(version); w.writeU24(flags) }
}
