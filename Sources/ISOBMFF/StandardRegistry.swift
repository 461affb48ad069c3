import BinaryIO

extension BoxRegistry {
    /// Every box type this library models. See `Specs/boxes.md` for the list in prose.
    public static let standard: BoxRegistry = {
        var r = BoxRegistry()
        // Containers (ISO/IEC 14496-12, QuickTime, HEIF, Apple spatial video, Google spherical video).
        for (t, name) in [
            ("moov", "MovieBox"), ("trak", "TrackBox"), ("edts", "EditBox"), ("mdia", "MediaBox"),
            ("minf", "MediaInformationBox"),
            ("dinf", "DataInformationBox"), ("stbl", "SampleTableBox"), ("udta", "UserDataBox"),
            ("mvex", "MovieExtendsBox"),
            ("moof", "MovieFragmentBox"), ("traf", "TrackFragmentBox"), ("mfra", "MovieFragmentRandomAccessBox"),
            ("tref", "TrackReferenceBox"), ("iprp", "ItemPropertiesBox"), ("ipco", "ItemPropertyContainerBox"),
            ("grpl", "GroupsListBox"), ("sinf", "ProtectionSchemeInfoBox"), ("schi", "SchemeInformationBox"),
            ("rinf", "RestrictedSchemeInfoBox"), ("gmhd", "GenericMediaHeaderAtom"),
            ("tapt", "TrackApertureModeDimensionsAtom"),
            ("wave", "SoundDecompressionParametersAtom"), ("ilst", "MetadataItemListAtom"),
            ("meco", "AdditionalMetadataContainerBox"),
            ("vexu", "VideoExtendedUsageBox"), ("eyes", "StereoViewBox"), ("cams", "StereoCameraSystemBox"),
            ("cmfy", "StereoComfortBox"), ("pack", "ViewPackingBox"), ("sv3d", "SphericalVideoBox"),
            ("strk", "SubTrackBox"),
        ] {
            r.register(FourCC(t), .container(name))
        }
        r.register("proj", parent: "vexu", .container("ProjectionBox (Apple)"))
        r.register("proj", parent: "sv3d", .container("ProjectionBox (Google spherical v2)"))
        r.registerChildDefault(parent: "ilst", .container("MetadataItemAtom"))
        r.register("keys", parent: "mebx", .container("MetadataKeyTableBox"))
        r.registerChildDefault(parent: "keys", .container("MetadataKeyBox"))
        r.register("keys", parent: "meta", .fields("MetadataKeysAtom", MetadataKeysBox.self))

        // Opaque by design.
        for t in ["free", "skip", "wide", "mdat", "idat"] {
            r.register(FourCC(t), .raw(t == "idat" ? "ItemDataBox" : t == "mdat" ? "MediaDataBox" : "FreeSpaceBox"))
        }

        // File-level and movie structure.
        r.register("ftyp", .fields("FileTypeBox", FileTypeBox.self))
        r.register("styp", .fields("SegmentTypeBox", SegmentTypeBox.self))
        r.register("meta", .fieldsThenChildren("MetaBox", MetaBoxHeader.self))
        r.register("hdlr", .fields("HandlerBox", HandlerBox.self))
        r.register("mvhd", .fields("MovieHeaderBox", MovieHeaderBox.self))
        r.register("tkhd", .fields("TrackHeaderBox", TrackHeaderBox.self))
        r.register("mdhd", .fields("MediaHeaderBox", MediaHeaderBox.self))
        r.register("elst", .fields("EditListBox", EditListBox.self))
        r.register("vmhd", .fields("VideoMediaHeaderBox", VideoMediaHeaderBox.self))
        r.register("smhd", .fields("SoundMediaHeaderBox", SoundMediaHeaderBox.self))
        r.register("nmhd", .fields("NullMediaHeaderBox", NullMediaHeaderBox.self))
        r.register("sthd", .fields("SubtitleMediaHeaderBox", SubtitleMediaHeaderBox.self))
        r.register("dref", .fieldsThenChildren("DataReferenceBox", DataReferenceBoxHeader.self))
        r.register("url ", parent: "dref", .fields("DataEntryUrlBox", DataEntryUrlBox.self))
        r.register("urn ", parent: "dref", .fields("DataEntryUrnBox", DataEntryUrnBox.self))
        r.registerChildDefault(parent: "tref", .fields("TrackReferenceTypeBox", TrackReferenceTypeBox.self))

        // Sample tables.
        r.register("stsd", .fieldsThenChildren("SampleDescriptionBox", SampleDescriptionBoxHeader.self))
        let entryCases = [
            ResolverCase(type: "hvc1", handler: "vide"), ResolverCase(type: "mp4a", handler: "soun"),
            ResolverCase(type: "mebx", handler: "meta"), ResolverCase(type: "tx3g", handler: "text"),
        ]
        r.registerResolver(parent: "stsd", cases: entryCases) { type, ctx in
            switch SampleEntry.kind(of: type, handler: ctx.handler) {
            case .visual: return .fieldsThenChildren("VisualSampleEntry", SampleEntry.self)
            case .audio: return .fieldsThenChildren("AudioSampleEntry", SampleEntry.self)
            case .generic:
                return type == "mebx"
                    ? .fieldsThenChildren("MetadataSampleEntry", SampleEntry.self) : .raw("SampleEntry")
            }
        }
        r.register("stts", .fields("TimeToSampleBox", TimeToSampleBox.self))
        r.register("ctts", .fields("CompositionOffsetBox", CompositionOffsetBox.self))
        r.register("stss", .fields("SyncSampleBox", SyncSampleBox.self))
        r.register("stps", .fields("PartialSyncSampleAtom", PartialSyncSampleBox.self))
        r.register("stsc", .fields("SampleToChunkBox", SampleToChunkBox.self))
        r.register("stsz", .fields("SampleSizeBox", SampleSizeBox.self))
        r.register("stz2", .fields("CompactSampleSizeBox", SampleSizeBox.self))
        r.register("stco", .fields("ChunkOffsetBox", ChunkOffsetBox.self))
        r.register("co64", .fields("ChunkLargeOffsetBox", ChunkLargeOffsetBox.self))
        r.register("sgpd", .fields("SampleGroupDescriptionBox", SampleGroupDescriptionBox.self))
        r.register("sbgp", .fields("SampleToGroupBox", SampleToGroupBox.self))

        // Sample entry children.
        r.register("colr", .fields("ColourInformationBox", ColourInformationBox.self))
        r.register("pasp", .fields("PixelAspectRatioBox", PixelAspectRatioBox.self))
        r.register("clap", .fields("CleanApertureBox", CleanApertureBox.self))
        r.register("btrt", .fields("BitRateBox", BitRateBox.self))
        r.register("fiel", .fields("FieldHandlingAtom", FieldHandlingBox.self))
        r.register("chrm", .fields("ChromaLocationAtom", ChromaLocationBox.self))
        r.register("hvcC", .fields("HEVCConfigurationBox", HEVCConfigurationBox.self))
        r.register("lhvC", .fields("LHEVCConfigurationBox", LHEVCConfigurationBox.self))

        // Fragments.
        r.register("trex", .fields("TrackExtendsBox", TrackExtendsBox.self))
        r.register("mehd", .fields("MovieExtendsHeaderBox", MovieExtendsHeaderBox.self))
        r.register("mfhd", .fields("MovieFragmentHeaderBox", MovieFragmentHeaderBox.self))
        r.register("tfdt", .fields("TrackFragmentBaseMediaDecodeTimeBox", TrackFragmentBaseMediaDecodeTimeBox.self))
        r.register("tfhd", .fields("TrackFragmentHeaderBox", TrackFragmentHeaderBox.self))
        r.register("trun", .fields("TrackRunBox", TrackRunBox.self))
        r.register("sidx", .fields("SegmentIndexBox", SegmentIndexBox.self))

        // HEIF.
        r.register("pitm", .fields("PrimaryItemBox", PrimaryItemBox.self))
        r.register("iinf", .fieldsThenChildren("ItemInfoBox", ItemInfoHeader.self))
        r.register("infe", parent: "iinf", .fields("ItemInfoEntry", ItemInfoEntry.self))
        r.register("iloc", .fields("ItemLocationBox", ItemLocationBox.self))
        r.register("iref", .fieldsThenChildren("ItemReferenceBox", ItemReferenceBoxHeader.self))
        r.registerChildDefault(parent: "iref", .fields("SingleItemTypeReferenceBox", ItemReferenceBox.self))
        r.register("ipma", .fields("ItemPropertyAssociationBox", ItemPropertyAssociationBox.self))
        r.register("ispe", .fields("ImageSpatialExtentsProperty", ImageSpatialExtentsProperty.self))
        r.register("pixi", .fields("PixelInformationProperty", PixelInformationProperty.self))
        r.register("irot", .fields("ImageRotation", ImageRotation.self))
        r.register("imir", .fields("ImageMirror", ImageMirror.self))
        r.register("auxC", .fields("AuxiliaryTypeProperty", AuxiliaryTypeProperty.self))
        r.registerChildDefault(parent: "grpl", .fields("EntityToGroupBox", EntityToGroupBox.self))
        r.register("cmin", .fields("CameraIntrinsicMatrixProperty", CameraIntrinsicsProperty.self))
        r.register("cmex", .fields("CameraExtrinsicMatrixProperty", CameraExtrinsicsProperty.self))
        r.register(
            uuid: AppleUUID.cameraIntrinsics,
            .fields("CameraIntrinsicMatrixProperty (Apple uuid)", CameraIntrinsicsProperty.self))
        r.register(
            uuid: AppleUUID.cameraExtrinsics,
            .fields("CameraExtrinsicMatrixProperty (Apple uuid)", CameraExtrinsicsProperty.self))
        r.register(
            uuid: AppleUUID.disparityAdjustment,
            .fields("DisparityAdjustmentProperty (Apple uuid)", DisparityAdjustmentProperty.self))

        // Apple spatial video (vexu family) and hfov; Google spherical video v2.
        r.register("stri", parent: "eyes", .fields("StereoViewInformationBox", StereoViewInformationBox.self))
        r.register("hero", parent: "eyes", .fields("HeroStereoEyeDescriptionBox", HeroStereoEyeDescriptionBox.self))
        r.register("blin", parent: "cams", .fields("StereoCameraSystemBaselineBox", StereoCameraSystemBaselineBox.self))
        r.register(
            "dadj", parent: "cmfy",
            .fields("StereoComfortDisparityAdjustmentBox", StereoComfortDisparityAdjustmentBox.self))
        r.register("pkin", parent: "pack", .fields("ViewPackingInformationBox", ViewPackingInformationBox.self))
        r.register("hfov", .fields("HorizontalFieldOfViewBox", HorizontalFieldOfViewBox.self))
        r.register("st3d", .fields("Stereoscopic3DVideoBox", Stereoscopic3DVideoBox.self))
        r.register("svhd", parent: "sv3d", .fields("SphericalVideoHeaderBox", SphericalVideoHeaderBox.self))
        // proj children (prji and kind boxes in vexu/proj; prhd/equi/cbmp/mshp in sv3d/proj), must, lens collection.
        r.registerImmersive()

        // QuickTime metadata values.
        r.register("data", .fields("MetadataValueAtom", MetadataDataBox.self))
        return r
    }()
}

/// An HEVC decoder configuration record kept as bytes: the syntax shared by ``HEVCConfigurationBox``
/// (`hvcC`) and ``LHEVCConfigurationBox`` (`lhvC`). The container level keeps the record; the `HEVC`
/// module interprets it. A light reading of the header is offered for dumps.
public protocol HEVCConfigurationRecordPayload: BoxPayload {
    /// The decoder configuration record's bytes.
    var record: [UInt8] { get }
    init(record: [UInt8])
    /// True for `lhvC` (no profile/tier/level header).
    static var layered: Bool { get }
}

extension HEVCConfigurationRecordPayload {
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        self.init(record: r.readRemaining())
    }
    public func write(to w: inout ByteWriter) { w.write(record) }
    public var summary: String {
        guard let v = record.first else { return "empty" }
        if Self.layered && record.count >= 6 {
            return "version=\(v) length_size=\((record[4] & 3) + 1) arrays=\(record[5])"
        }
        if record.count >= 23 {
            return
                "version=\(v) profile_idc=\(record[1] & 0x1F) level_idc=\(record[12]) length_size=\((record[21] & 3) + 1) arrays=\(record[22])"
        }
        return "version=\(v) \(record.count) bytes"
    }
}

/// `hvcC` HEVCConfigurationBox (ISO/IEC 14496-15 §8.3.3): the HEVC decoder configuration record.
public struct HEVCConfigurationBox: HEVCConfigurationRecordPayload, Equatable {
    public var record: [UInt8]
    public static var layered: Bool { false }
    public init(record: [UInt8]) { self.record = record }
}

/// `lhvC` LHEVCConfigurationBox (ISO/IEC 14496-15 §9.6.3): the layered (MV-HEVC) decoder configuration
/// record, which has no profile/tier/level header.
public struct LHEVCConfigurationBox: HEVCConfigurationRecordPayload, Equatable {
    public var record: [UInt8]
    public static var layered: Bool { true }
    public init(record: [UInt8]) { self.record = record }
}
