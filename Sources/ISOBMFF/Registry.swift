import BinaryIO

/// State carried down the tree while parsing.
public struct ParseContext: Sendable {
    public var limits: Limits
    /// Path of the box being parsed.
    public var path: String = ""
    /// Types of the enclosing boxes, outermost first.
    public var parents: [FourCC] = []
    /// Handler type (`vide`, `soun`, `meta`, `pict` …) of the track or `meta` box being parsed.
    public var handler: FourCC?
    /// Version of the enclosing FullBox when a child's syntax depends on it (`iref`).
    public var parentVersion: UInt8 = 0
    /// Bytes of the file held in memory so far.
    public var allocated: UInt64 = 0

    public init(limits: Limits = .default) { self.limits = limits }

    public var depth: Int { parents.count }
    public var parent: FourCC? { parents.last }
}

/// How a box's payload is laid out.
public enum BoxLayout: Sendable {
    /// Only child boxes.
    case container
    /// Modelled fields and nothing else (bytes left over are kept as trailing).
    case fields(@Sendable (inout ByteReader, inout ParseContext) throws(ParseError) -> any BoxPayload)
    /// Modelled fields followed by child boxes.
    case fieldsThenChildren(@Sendable (inout ByteReader, inout ParseContext) throws(ParseError) -> any BoxPayload)
    /// Kept as raw bytes.
    case raw
}

/// A registry entry: how to read one kind of box and what the specifications call it.
public struct BoxCodec: Sendable {
    public var layout: BoxLayout
    /// The specification's name for the box, e.g. "MovieHeaderBox".
    public var name: String
    /// The payload type that reads and writes the fields (nil for containers and raw boxes).
    public var payloadType: (any BoxPayload.Type)?
    public init(_ name: String, _ layout: BoxLayout, payloadType: (any BoxPayload.Type)? = nil) {
        self.name = name; self.layout = layout; self.payloadType = payloadType
    }

    public static func container(_ name: String) -> BoxCodec { BoxCodec(name, .container) }
    public static func raw(_ name: String) -> BoxCodec { BoxCodec(name, .raw) }
    public static func fields<T: BoxPayload>(_ name: String, _ t: T.Type) -> BoxCodec {
        BoxCodec(
            name,
            .fields({ (r: inout ByteReader, c: inout ParseContext) throws(ParseError) -> any BoxPayload in
                try T(parsing: &r, context: &c)
            }), payloadType: t)
    }
    public static func fieldsThenChildren<T: BoxPayload>(_ name: String, _ t: T.Type) -> BoxCodec {
        BoxCodec(
            name,
            .fieldsThenChildren({ (r: inout ByteReader, c: inout ParseContext) throws(ParseError) -> any BoxPayload in
                try T(parsing: &r, context: &c)
            }), payloadType: t)
    }
}

/// A child type a resolver (see ``BoxRegistry/registerResolver(parent:cases:_:)``) gives a codec for,
/// with the handler or grandparent that decides it; listed so that every row can be enumerated and tested.
public struct ResolverCase: Sendable, Equatable {
    public var type: FourCC
    /// The track's handler the codec depends on (sample entries), if any.
    public var handler: FourCC?
    /// The parent's parent the codec depends on (`proj` under `vexu` or `sv3d`), if any.
    public var grandparent: FourCC?
    public init(type: FourCC, handler: FourCC? = nil, grandparent: FourCC? = nil) {
        self.type = type; self.handler = handler; self.grandparent = grandparent
    }
}

/// One row of a ``BoxRegistry``: where the codec applies and the codec.
public struct BoxRegistryRow: Sendable {
    /// How the row is keyed.
    public enum Key: Sendable, Equatable {
        /// A type, under any parent (nil) or one parent.
        case type(FourCC, parent: FourCC?)
        /// Every child of `parent` without a more specific row.
        case childDefault(parent: FourCC)
        /// One case of a resolver for children of `parent`.
        case resolved(parent: FourCC, ResolverCase)
        /// A `uuid` box with this extended type.
        case uuid([UInt8])
    }
    public var key: Key
    public var codec: BoxCodec
}

/// Maps a box type, and where it matters the parent's type, to a codec.
///
/// Lookup order: (parent, type), then (any parent, type), then a default for every child of the
/// parent (for example every child of `ilst` is a metadata item container), then nothing (raw).
/// Keying by parent lets `proj` inside `vexu` (Apple projection) differ from `proj` inside `sv3d`
/// (Google spherical projection), and `stri` inside `eyes` differ from `stri` inside `strk`.
public struct BoxRegistry: Sendable {
    struct Key: Hashable { var parent: FourCC?; var type: FourCC }
    var entries: [Key: BoxCodec] = [:]
    var childDefaults: [FourCC: BoxCodec] = [:]
    var resolvers: [FourCC: @Sendable (FourCC, ParseContext) -> BoxCodec?] = [:]
    var resolverCases: [FourCC: [ResolverCase]] = [:]
    var uuidEntries: [[UInt8]: BoxCodec] = [:]

    /// Registers a codec for `uuid` boxes with the given 16-byte extended type.
    public mutating func register(uuid: [UInt8], _ codec: BoxCodec) { uuidEntries[uuid] = codec }
    public func uuidCodec(for userType: [UInt8]) -> BoxCodec? { uuidEntries[userType] }

    public init() {}

    /// Registers a codec for `type`, optionally only under `parent`.
    public mutating func register(_ type: FourCC, parent: FourCC? = nil, _ codec: BoxCodec) {
        entries[Key(parent: parent, type: type)] = codec
    }
    /// Registers a codec for every child of `parent` that has no more specific entry.
    public mutating func registerChildDefault(parent: FourCC, _ codec: BoxCodec) {
        childDefaults[parent] = codec
    }
    /// Registers a function that picks a codec for children of `parent` (used for sample entries,
    /// whose layout depends on the track's handler). `cases` lists the children it knows, for ``rows``.
    public mutating func registerResolver(
        parent: FourCC, cases: [ResolverCase] = [], _ f: @escaping @Sendable (FourCC, ParseContext) -> BoxCodec?
    ) {
        resolvers[parent] = f
        resolverCases[parent] = cases
    }

    public func codec(for type: FourCC, parent: FourCC?, context: ParseContext) -> BoxCodec? {
        if let parent, let c = entries[Key(parent: parent, type: type)] { return c }
        if let parent, let r = resolvers[parent], let c = r(type, context) { return c }
        if let c = entries[Key(parent: nil, type: type)] { return c }
        if let parent, let c = childDefaults[parent] { return c }
        return nil
    }

    /// Every row: typed entries, child defaults, each listed resolver case (resolved in a context made from
    /// the case) and `uuid` entries. Tests walk it so that no row goes untested.
    public var rows: [BoxRegistryRow] {
        var out = entries.map { BoxRegistryRow(key: .type($0.key.type, parent: $0.key.parent), codec: $0.value) }
        out += childDefaults.map { BoxRegistryRow(key: .childDefault(parent: $0.key), codec: $0.value) }
        for (parent, cases) in resolverCases {
            for c in cases {
                var ctx = ParseContext()
                ctx.parents = (c.grandparent.map { [$0] } ?? []) + [parent]
                ctx.handler = c.handler
                if let codec = resolvers[parent]?(c.type, ctx) {
                    out.append(BoxRegistryRow(key: .resolved(parent: parent, c), codec: codec))
                }
            }
        }
        out += uuidEntries.map { BoxRegistryRow(key: .uuid($0.key), codec: $0.value) }
        return out
    }

    /// Every registered (parent, type, name), for documentation and tests.
    public var listing: [(parent: FourCC?, type: FourCC, name: String)] {
        entries.map { ($0.key.parent, $0.key.type, $0.value.name) }.sorted {
            ($0.type.rawValue, $0.parent?.rawValue ?? 0) < ($1.type.rawValue, $1.parent?.rawValue ?? 0)
        }
    }
}
