import SpatialMediaKit
import Testing

/// `import SpatialMediaKit` alone reaches every layer of the library.
@Suite struct UmbrellaTests {
    @Test func oneImportReachesEveryModule() throws {
        // BinaryIO + SystemSupport
        #expect(Limits.default.maxBoxDepth > 0)
        #expect("7".leftPadded(3) == "007")
        // ImageFormats
        let img = try Image(width: 2, height: 2, bitDepth: 8, format: .gray, planes: .u8([[0, 1, 2, 3]]))
        #expect(img.sample(0, 1, 1) == 3)
        // MediaDecode / SpatialConvert / SpatialValidation types are visible
        #expect(StereoLayout(rawValue: "sbs") == .sbs)
        _ = PhotoConversionOptions()
        _ = ValidationOptions()
    }
}
