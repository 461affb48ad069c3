// Exported functions: sm_edit builder, video/photo edits and combine.
import BinaryIO
import ISOBMFF
import SpatialMedia
import SpatialOperations
import SystemSupport

public enum SMField {
    public static let baseline: Int32 = 1, hfov: Int32 = 2, disparity: Int32 = 3, heroEye: Int32 = 4,
        projection: Int32 = 5
}
public enum SMEditFlag { public static let faststart: UInt32 = 1 }
public enum SMCombineFlag { public static let swapEyes: UInt32 = 1 }

@_cdecl("sm_edit_create")
public func sm_edit_create(_ outEdit: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outEdit?.pointee = nil
    return abiCall("sm_edit_create") { () throws(ABIError) in
        guard let outEdit else { throw .argument("out_edit is NULL") }
        try deliverHandle(EditObject(), to: outEdit)
    }
}

@_cdecl("sm_edit_free")
public func sm_edit_free(_ edit: OpaquePointer?) -> Int32 {
    abiCall("sm_edit_free") { () throws(ABIError) in try Registry.shared.remove(edit, as: EditObject.self, "edit") }
}

@_cdecl("sm_edit_set_baseline_um")
public func sm_edit_set_baseline_um(_ edit: OpaquePointer?, _ micrometres: UInt32) -> Int32 {
    abiCall("sm_edit_set_baseline_um") { () throws(ABIError) in
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in s.baseline = .set(micrometres) }
    }
}

@_cdecl("sm_edit_set_hfov_millidegrees")
public func sm_edit_set_hfov_millidegrees(_ edit: OpaquePointer?, _ millidegrees: UInt32) -> Int32 {
    abiCall("sm_edit_set_hfov_millidegrees") { () throws(ABIError) in
        guard millidegrees >= 1 && millidegrees < 180_000 else {
            throw .argument("the horizontal field of view must be 1…179999 millidegrees (got \(millidegrees))")
        }
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in s.hfov = .set(millidegrees) }
    }
}

@_cdecl("sm_edit_set_disparity")
public func sm_edit_set_disparity(_ edit: OpaquePointer?, _ disparity: Int32) -> Int32 {
    abiCall("sm_edit_set_disparity") { () throws(ABIError) in
        guard disparity >= -10_000 && disparity <= 10_000 else {
            throw .argument("the disparity adjustment must be -10000…10000 (1/10000 of the width; got \(disparity))")
        }
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in s.disparity = .set(disparity) }
    }
}

@_cdecl("sm_edit_set_hero_eye")
public func sm_edit_set_hero_eye(_ edit: OpaquePointer?, _ heroEye: Int32) -> Int32 {
    abiCall("sm_edit_set_hero_eye") { () throws(ABIError) in
        // 3…255 are reserved (Apple's `hero` box): readable as stored, never written by this library.
        guard let raw = UInt8(exactly: heroEye), raw <= 2 else {
            throw .argument("the hero eye must be 0 none, 1 left or 2 right (got \(heroEye); 3…255 are reserved)")
        }
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in
            s.hero = .set(HeroEye(rawValue: raw))
        }
    }
}

/// Sets the stereo values from JSON in either unit (the operations layer's one conversion, ``StereoValueInputs``):
/// what the Python package calls, so that it converts no unit and checks no range itself.
@_cdecl("sm_edit_set_values")
public func sm_edit_set_values(_ edit: OpaquePointer?, _ valuesJSON: SMString) -> Int32 {
    abiCall("sm_edit_set_values") { () throws(ABIError) in
        var opts = try parseOptions(valuesJSON)
        let given = opts.takeAll().map { ($0.0, $0.1.requestValue) }
        let s = try lift { () throws(ParseError) in try StereoValueInputs(values: given).parameters(photo: false) }
        try Registry.shared.withEdit(edit) { (st: inout EditState) throws(ABIError) in
            if let b = s.baselineMicrometres { st.baseline = .set(b) }
            if let h = s.horizontalFieldOfViewMillidegrees { st.hfov = .set(h) }
            if let d = s.disparityAdjustment { st.disparity = .set(d) }
        }
    }
}

@_cdecl("sm_edit_set_projection")
public func sm_edit_set_projection(_ edit: OpaquePointer?, _ fourcc: SMString) -> Int32 {
    abiCall("sm_edit_set_projection") { () throws(ABIError) in
        let s = try requiredString(fourcc, "fourcc")
        let bytes = Array(s.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .argument(
                "the projection must be exactly four printable ASCII characters, such as \"rect\" (got \"\(s)\")")
        }
        try Registry.shared.withEdit(edit) { (st: inout EditState) throws(ABIError) in st.projection = .set(FourCC(s)) }
    }
}

@_cdecl("sm_edit_remove_field")
public func sm_edit_remove_field(_ edit: OpaquePointer?, _ field: Int32) -> Int32 {
    abiCall("sm_edit_remove_field") { () throws(ABIError) in
        guard (SMField.baseline...SMField.projection).contains(field) else {
            throw .argument("unknown field \(field) (use SM_FIELD_*)")
        }
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in
            switch field {
            case SMField.baseline: s.baseline = .remove
            case SMField.hfov: s.hfov = .remove
            case SMField.disparity: s.disparity = .remove
            case SMField.heroEye: s.hero = .remove
            default: s.projection = .remove
            }
        }
    }
}

@_cdecl("sm_edit_set_remove_spatial")
public func sm_edit_set_remove_spatial(_ edit: OpaquePointer?, _ remove: Int32) -> Int32 {
    abiCall("sm_edit_set_remove_spatial") { () throws(ABIError) in
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in s.removeSpatial = remove != 0 }
    }
}

@_cdecl("sm_edit_set_photo_form")
public func sm_edit_set_photo_form(_ edit: OpaquePointer?, _ form: Int32) -> Int32 {
    abiCall("sm_edit_set_photo_form") { () throws(ABIError) in
        let f: CameraPropertyForm
        switch form {
        case 0: f = .apple
        case 1: f = .standard
        case 2: f = .both
        default: throw .argument("unknown photo form \(form) (use SM_PHOTO_FORM_*)")
        }
        try Registry.shared.withEdit(edit) { (s: inout EditState) throws(ABIError) in s.form = f }
    }
}

/// A snapshot of an edit's state (so a concurrent setter cannot change it mid-write).
func editState(_ h: OpaquePointer?) throws(ABIError) -> EditState {
    try Registry.shared.withEdit(h) { (s: inout EditState) throws(ABIError) -> EditState in s }
}

/// The request an edit handle makes (a translation: the library plans, checks and reads the result back).
func editRequest(path: String, output: String?, state: EditState, flags: UInt32) throws(ABIError) -> EditRequest {
    var r = EditRequest(path: path, output: output == path ? nil : output)
    func take<T>(_ f: MetadataFieldEdit<T>, _ field: String, _ set: (T) -> Void) {
        switch f {
        case .keep: break
        case .set(let v): set(v)
        case .remove: r.remove.append(field)
        }
    }
    take(state.baseline, "baseline") { r.values.baselineMicrometres = Int($0) }
    take(state.hfov, "hfov") { r.values.hfovMillidegrees = Int($0) }
    take(state.disparity, "disparity") { r.values.disparity = Int($0) }
    take(state.hero, "hero_eye") { r.heroEye = $0 }
    if case .set(let code) = state.projection {
        r.projection = try lift { () throws(ParseError) in
            try EditRequest.choiceValue("projection", code.description, .key)
        }
    } else if case .remove = state.projection {
        r.remove.append("projection")
    }
    r.removeSpatial = state.removeSpatial
    r.form = state.form == .apple ? nil : state.form
    r.faststart = flags & SMEditFlag.faststart != 0
    return r
}

func editVideo(path: String, output: String?, state: EditState, flags: UInt32) throws(ABIError) -> JSON {
    try checkFlags(flags, allowed: SMEditFlag.faststart)
    if state.videoEdit.isEmpty { throw .argument("the edit changes nothing (set a value first)") }
    if state.form != .apple { throw .argument("the photo form applies to photos only") }
    let r = try editRequest(path: path, output: output, state: state, flags: flags)
    return try lift { () throws(ParseError) in try Operations.edit(r, spelling: .key).json }
}

func editPhoto(path: String, output: String?, state: EditState, flags: UInt32) throws(ABIError) -> JSON {
    if flags & SMEditFlag.faststart != 0 { throw .argument("SM_EDIT_FASTSTART applies to movies only") }
    try checkFlags(flags, allowed: 0)
    _ = try state.photoEdit()
    let r = try editRequest(path: path, output: output, state: state, flags: flags)
    return try lift { () throws(ParseError) in try Operations.edit(r, spelling: .key).json }
}

/// The body of the edit entry points: the report cleared, the paths checked, the edit's state snapshotted, `run`
/// applied and its report delivered.
func editEntry(
    _ function: StaticString, _ path: SMString, _ output: SMString, _ edit: OpaquePointer?,
    _ outReport: SMStringOut,
    _ run: (_ path: String, _ output: String?, _ state: EditState) throws(ABIError) -> JSON
) -> Int32 {
    outReport?.pointee = nil
    return abiCall(function) { () throws(ABIError) in
        let (p, o) = try editPaths(path, output)
        let report = try run(p, o, try editState(edit))
        try deliver(report.serialized(), to: outReport)
    }
}

@_cdecl("sm_edit_video")
public func sm_edit_video(
    _ path: SMString, _ output: SMString, _ edit: OpaquePointer?, _ flags: UInt32, _ outReport: SMStringOut
) -> Int32 {
    editEntry("sm_edit_video", path, output, edit, outReport) { (p, o, state) throws(ABIError) in
        try editVideo(path: p, output: o, state: state, flags: flags)
    }
}

@_cdecl("sm_edit_photo")
public func sm_edit_photo(
    _ path: SMString, _ output: SMString, _ edit: OpaquePointer?, _ outReport: SMStringOut
) -> Int32 {
    editEntry("sm_edit_photo", path, output, edit, outReport) { (p, o, state) throws(ABIError) in
        try editPhoto(path: p, output: o, state: state, flags: 0)
    }
}

@_cdecl("sm_edit_apply")
public func sm_edit_apply(
    _ path: SMString, _ output: SMString, _ edit: OpaquePointer?, _ flags: UInt32, _ outReport: SMStringOut
) -> Int32 {
    editEntry("sm_edit_apply", path, output, edit, outReport) { (p, o, state) throws(ABIError) in
        SpatialPhotoEditor.isHEIF(path: p)
            ? try editPhoto(path: p, output: o, state: state, flags: flags)
            : try editVideo(path: p, output: o, state: state, flags: flags)
    }
}

@_cdecl("sm_combine_photo")
public func sm_combine_photo(
    _ leftPath: SMString, _ rightPath: SMString, _ leftItem: UInt32, _ rightItem: UInt32,
    _ flags: UInt32, _ edit: OpaquePointer?, _ output: SMString,
    _ outReport: SMStringOut
) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_combine_photo") { () throws(ABIError) in
        try checkFlags(flags, allowed: SMCombineFlag.swapEyes)
        let left = try requiredPath(leftPath, "left_path")
        let right = try optionalString(rightPath, "right_path")
        if right?.isEmpty == true {
            throw .argument("right_path is empty (pass NULL for one file holding both images)")
        }
        let out = try requiredPath(output, "output")
        let state = edit == nil ? EditState() : try editState(edit)
        let given = try state.photoEdit()
        // A translation into the operations layer's request: defaults, checks and the read-back are the library's.
        var r = CombineRequest(left: left, right: right, output: out)
        if right != nil && (leftItem != 0 || rightItem != 0) {
            throw .argument("left_item and right_item must be 0 when combining two files")
        }
        r.leftItem = leftItem == 0 ? nil : leftItem
        r.rightItem = rightItem == 0 ? nil : rightItem
        r.swapEyes = flags & SMCombineFlag.swapEyes != 0
        r.values = StereoValueInputs(
            baselineMicrometres: given.baselineMicrometres.map(Int.init),
            hfovMillidegrees: given.horizontalFieldOfViewMillidegrees.map(Int.init),
            disparity: given.disparityAdjustment.map(Int.init))
        r.form = state.form
        let report = try lift { () throws(ParseError) in try Operations.combine(r, spelling: .key) }
        try deliver(report.json.serialized(), to: outReport)
    }
}
