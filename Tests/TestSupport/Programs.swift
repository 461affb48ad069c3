import Foundation
import MediaDecode

/// What a test failed to find or run.
public struct TestSetupError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String = "a test input could not be made") { self.description = description }
}

/// The programs the tests run: the built `spatial-media` and FFmpeg as the product finds it.
public enum TestPrograms {
    /// The directory of the built products: the one holding the running test bundle (so `swift test`, `swift test -c
    /// release` and a custom `--scratch-path` all find their own build), or `SPATIAL_MEDIA_BIN_DIR`.
    public static let binDir: String? = {
        if let e = ProcessInfo.processInfo.environment["SPATIAL_MEDIA_BIN_DIR"], !e.isEmpty { return e }
        #if os(Linux)
            // The test bundle is an executable: …/debug/spatial-mediaPackageTests.xctest.
            if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
                return (exe as NSString).deletingLastPathComponent
            }
        #endif
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            return (bundle.bundlePath as NSString).deletingLastPathComponent
        }
        return nil
    }()

    /// The `spatial-media` executable built beside the tests (`swift test` builds it), or nil.
    public static let binary: String? = {
        guard let binDir else { return nil }
        let p = binDir + "/spatial-media"
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }()

    /// The built `spatial-media`; throws (the test fails) when it is missing, since `swift test` always builds it.
    public static func requireBinary() throws -> String {
        guard let binary else {
            throw TestSetupError(
                "spatial-media not found next to the test bundle (\(binDir ?? "?")); run `swift build`")
        }
        return binary
    }

    /// FFmpeg ≥ 7.1 found by the product's own locator (`SPATIAL_MEDIA_FFMPEG`, the tools directory that
    /// `scripts/setup.sh` fills, then `PATH`), or nil.
    public static let ffmpeg: String? = FFmpeg.locate(.mvhevcViews)?.path

    /// FFmpeg ≥ 7.1; a run-time need of the product, installed by `scripts/setup.sh`, so its absence fails the test.
    public static func requireFFmpeg() throws -> String {
        guard let ffmpeg else { throw TestSetupError("no FFmpeg >= 7.1 found; run `bash scripts/setup.sh`") }
        return ffmpeg
    }
}
