import BinaryIO
import CDe265
import Testing

@testable import Codecs

/// The codec libraries are bound with dlopen at first use; a missing one is an error naming it.
@Suite struct LibraryLoadingTests {
    @Test func everyCodecLibraryBindsAndReportsAVersion() throws {
        #expect(CodecVersions.libde265.hasPrefix("1."))
        #expect(CodecVersions.x265.contains("3."))
        #expect(CodecVersions.libpng.hasPrefix("1.6"))
        #expect(CodecVersions.turbojpeg != "not available")
        _ = try De265.library()
        _ = try X265.library()
        _ = try TurboJPEG.library()
        _ = try LibPNG.library()
    }

    @Test func aMissingLibraryIsANamedError() {
        do {
            _ = try SharedLibrary.open("libnothing", ["libspatial-media-no-such-library.so.7"])
            Issue.record("opening a missing library succeeded")
        } catch {
            #expect(error.code == .libraryMissing)
            #expect(error.message.contains("libnothing is not installed"))
        }
    }

    @Test func aMissingSymbolIsANamedError() throws {
        let l = try SharedLibrary.open("libde265", SharedLibrary.candidates("libde265", version: "0"))
        do {
            _ = try l.function("de265_no_such_function", as: sm_de265_get_version_fn.self)
            Issue.record("binding a missing symbol succeeded")
        } catch {
            #expect(error.message.contains("de265_no_such_function"))
        }
    }
}
