// Live handles. A handle given to C is an opaque token (never a memory address, never reused), looked
// up in a lock-protected table, so a freed, made-up or wrong-type handle is an error status instead of
// a use-after-free.
import BinaryIO
import HEVC
import ISOBMFF
import SpatialMedia
import SystemSupport

/// What an `sm_file` holds: the parsed file and the analyses every getter needs, computed once at open.
/// Immutable, so any number of threads may use it at once.
final class FileObject: Sendable {
    enum Content: Sendable {
        case iso(ISOFile)
        /// A raw Annex-B HEVC stream: only its info JSON is kept.
        case annexB(JSON)
    }
    static let kindOther: Int32 = 0, kindMovie: Int32 = 1, kindImage: Int32 = 2, kindHEVCStream: Int32 = 3

    let path: String?
    let content: Content
    let kind: Int32
    let video: SpatialVideoReport?
    let photo: SpatialPhoto?
    /// Why `photo` is nil.
    let photoProblem: String

    init(path: String?, content: Content) {
        self.path = path
        self.content = content
        switch content {
        case .annexB:
            kind = Self.kindHEVCStream
            video = nil
            photo = nil
            photoProblem = "a raw HEVC stream is not a HEIF image"
        case .iso(let file):
            let isMovie = file.box("moov") != nil
            let heif = file.heif
            kind = isMovie ? Self.kindMovie : (heif?.handler == "pict" ? Self.kindImage : Self.kindOther)
            video = isMovie ? SpatialVideoReport(file) : nil
            if heif == nil {
                photo = nil
                photoProblem = "not a HEIF image (no meta box)"
            } else {
                var problems: [SpatialDiagnostic] = []
                let p = SpatialPhotoReader.read(file, problems: &problems)
                photo = p
                photoProblem = p == nil ? (problems.first?.message ?? "not a spatial photo (no ster entity group)") : ""
            }
        }
    }

    /// The `info --json` object (with "file" first when opened from a path, like the CLI).
    func infoJSON() -> JSON {
        var fields: [(String, JSON)] = []
        if let path { fields.append(("file", .string(path))) }
        let body: JSON
        switch content {
        case .iso(let file): body = MediaInfo.describe(file).json
        case .annexB(let j): body = j
        }
        if case .object(let f) = body { fields += f }
        return .object(fields)
    }
}

/// The values an `sm_edit` records. Mutated only under the registry lock.
struct EditState: Sendable {
    var baseline: MetadataFieldEdit<UInt32> = .keep
    var hfov: MetadataFieldEdit<UInt32> = .keep
    var disparity: MetadataFieldEdit<Int32> = .keep
    var hero: MetadataFieldEdit<HeroEye> = .keep
    var projection: MetadataFieldEdit<FourCC> = .keep
    var removeSpatial = false
    var form: CameraPropertyForm = .apple

    var videoEdit: SpatialVideoEdit {
        var e = SpatialVideoEdit()
        e.baselineMicrometres = baseline
        e.horizontalFieldOfViewMillidegrees = hfov
        e.disparityAdjustment = disparity
        e.heroEye = hero
        e.projectionKind = projection
        e.removeSpatial = removeSpatial
        return e
    }

    /// The photo form of the edit; video-only fields are an error.
    func photoEdit() throws(ABIError) -> StereoParameters {
        if hero != .keep || projection != .keep || removeSpatial {
            throw .argument("hero eye, projection and remove-spatial apply to videos only")
        }
        func value<T>(_ f: MetadataFieldEdit<T>, _ name: String) throws(ABIError) -> T? {
            switch f {
            case .keep: return nil
            case .set(let v): return v
            case .remove: throw .argument("removing the \(name) applies to videos only")
            }
        }
        let b = try value(baseline, "baseline")
        if let b, b > UInt32(Int32.max) { throw .argument("a photo baseline must be at most 2147483647 µm (got \(b))") }
        return StereoParameters(
            baselineMicrometres: b, horizontalFieldOfViewMillidegrees: try value(hfov, "field of view"),
            disparityAdjustment: try value(disparity, "disparity"))
    }
}

final class EditObject: @unchecked Sendable {
    /// Guarded by `Registry.shared`'s lock.
    var state = EditState()
}

/// The table of live handles.
final class Registry: @unchecked Sendable {
    static let shared = Registry()

    private let lock = Lock()
    private var entries: [UInt: AnyObject] = [:]
    private var next: UInt = 1
    /// Tokens are base + 16·n: never 0, never small integers, never reused.
    private static let base: UInt = 0x5D00_0000
    private static let maxSerial: UInt = (UInt.max - base) >> 4

    func insert(_ object: AnyObject) throws(ABIError) -> OpaquePointer {
        try lock.withLock { () throws(ABIError) -> OpaquePointer in
            guard next < Self.maxSerial else { throw ABIError(SMStatus.noMemory, "handle space exhausted") }
            let token = Self.base + (next << 4)
            guard let handle = OpaquePointer(bitPattern: token) else {
                throw ABIError(SMStatus.internal, "bad handle token")
            }
            next += 1
            entries[token] = object
            return handle
        }
    }

    private static func token(_ handle: OpaquePointer) -> UInt { UInt(bitPattern: Int(bitPattern: handle)) }

    /// The live object behind `handle`, typed; NULL, unknown and wrong-type handles throw.
    func lookup<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ name: String) throws(ABIError) -> T {
        guard let handle else { throw .argument("\(name) is NULL") }
        let object = lock.withLock { entries[Self.token(handle)] }
        guard let object else {
            throw ABIError(SMStatus.invalidHandle, "\(name) is not a live handle (freed already, or never created)")
        }
        guard let typed = object as? T else {
            throw ABIError(SMStatus.invalidHandle, "\(name) is a handle of another type")
        }
        return typed
    }

    /// Removes `handle` (which must hold a `T`). NULL is a no-op.
    func remove<T: AnyObject>(_ handle: OpaquePointer?, as type: T.Type, _ name: String) throws(ABIError) {
        guard let handle else { return }
        let token = Self.token(handle)
        // Release the object after unlocking: its deinit may do work (closing a file).
        let removed: AnyObject? = try lock.withLock { () throws(ABIError) -> AnyObject? in
            guard let object = entries[token] else {
                throw ABIError(SMStatus.invalidHandle, "\(name) is not a live handle (freed already, or never created)")
            }
            guard object is T else { throw ABIError(SMStatus.invalidHandle, "\(name) is a handle of another type") }
            return entries.removeValue(forKey: token)
        }
        _ = removed
    }

    /// Runs `body` on an edit's state under the lock.
    func withEdit<R>(_ handle: OpaquePointer?, _ body: (inout EditState) throws(ABIError) -> R) throws(ABIError) -> R {
        let edit = try lookup(handle, as: EditObject.self, "edit")
        return try lock.withLock { () throws(ABIError) -> R in try body(&edit.state) }
    }

    /// Number of live handles (for tests).
    var count: Int { lock.withLock { entries.count } }
}
