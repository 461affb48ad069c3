// swift-tools-version: 6.0
// spatial-media is licensed GPL-2.0-or-later (see LICENSE); the licence of each library it links, loads or
// runs (Swift runtime, swift-argument-parser, libde265, libx265, libjpeg-turbo, libpng, FFmpeg) is listed in
// THIRD_PARTY_LICENSES.md.
import PackageDescription

// The codec libraries are opened with dlopen at first use (Sources/Codecs/Libraries.swift), so on Linux
// the executables must not link them: without pkg-config no -l flags are added, and the headers are in
// the default include path (/usr/include, /usr/local/include). Elsewhere pkg-config finds the headers
// (Homebrew) and the libraries are linked as well, which is harmless.
#if os(Linux)
    func codecPkgConfig(_ name: String) -> String? { nil }
#else
    func codecPkgConfig(_ name: String) -> String? { name }
#endif

let package = Package(
    name: "spatial-media",
    platforms: [.macOS(.v13)],
    products: [
        // Everything, behind one `import SpatialMediaKit`.
        .library(name: "SpatialMediaKit", targets: ["SpatialMediaKit"]),
        // The pure-Swift core (boxes, HEVC syntax, the spatial model): builds with no C library installed.
        .library(name: "SpatialMediaCore", targets: ["SystemSupport", "BinaryIO", "ISOBMFF", "HEVC", "SpatialMedia"]),
        // The image-format readers alone (JPEG/MPF/XMP, EXIF, PNG structure, Y4M): what the FuzzJPEG target links.
        .library(name: "SpatialMediaImageFormats", targets: ["ImageFormats"]),
        .executable(name: "spatial-media", targets: ["SpatialMediaCLI"]),
        .library(name: "spatialmedia", type: .dynamic, targets: ["SpatialMediaC"]),
        // The libFuzzer targets are a package of their own: Fuzz/Package.swift (run by scripts/fuzz.sh).
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
    ],
    targets: [
        .systemLibrary(
            name: "CDe265", pkgConfig: codecPkgConfig("libde265"),
            providers: [.apt(["libde265-dev"]), .brew(["libde265"])]),
        .systemLibrary(
            name: "CX265", pkgConfig: codecPkgConfig("x265"), providers: [.apt(["libx265-dev"]), .brew(["x265"])]),
        .systemLibrary(
            name: "CTurboJPEG", pkgConfig: codecPkgConfig("libturbojpeg"),
            providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(
            name: "CPNG", pkgConfig: codecPkgConfig("libpng"), providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .target(name: "SystemSupport"),
        .target(name: "BinaryIO", dependencies: ["SystemSupport"]),
        .target(name: "ISOBMFF", dependencies: ["BinaryIO", "SystemSupport"]),
        .target(name: "HEVC", dependencies: ["BinaryIO", "SystemSupport"]),
        .target(name: "SpatialMedia", dependencies: ["BinaryIO", "SystemSupport", "ISOBMFF", "HEVC"]),
        .target(name: "ImageFormats", dependencies: ["BinaryIO", "SystemSupport", "ISOBMFF"]),
        .target(
            name: "Codecs",
            dependencies: [
                "BinaryIO", "SystemSupport", "ImageFormats", "HEVC", "CDe265", "CX265", "CTurboJPEG", "CPNG",
            ]),
        .target(name: "StereoVision"),
        .target(
            name: "MediaDecode",
            dependencies: ["BinaryIO", "SystemSupport", "ISOBMFF", "HEVC", "SpatialMedia", "ImageFormats", "Codecs"]),
        .target(
            name: "SpatialConvert",
            dependencies: [
                "BinaryIO", "SystemSupport", "ISOBMFF", "HEVC", "SpatialMedia", "ImageFormats", "Codecs", "MediaDecode",
                "StereoVision",
            ]),
        // Validation reads an input that states no layout the way `convert` does: one recognition (PairRecognition).
        .target(
            name: "SpatialValidation",
            dependencies: [
                "BinaryIO", "SystemSupport", "ISOBMFF", "HEVC", "SpatialMedia", "StereoVision", "ImageFormats",
                "Codecs", "MediaDecode", "SpatialConvert",
            ]),
        // The one operations layer under every shell (CLI, C ABI, Python through it, SpatialMediaKit): typed requests,
        // one planning step, one run, one report, and the read-back check of every output.
        .target(
            name: "SpatialOperations",
            dependencies: [
                "BinaryIO", "SystemSupport", "ISOBMFF", "HEVC", "SpatialMedia", "ImageFormats", "Codecs", "MediaDecode",
                "SpatialConvert", "StereoVision", "SpatialValidation",
            ]),
        .target(
            name: "SpatialMediaKit",
            dependencies: [
                "BinaryIO", "SystemSupport", "ISOBMFF", "HEVC", "SpatialMedia", "ImageFormats", "Codecs", "MediaDecode",
                "SpatialConvert", "StereoVision", "SpatialValidation", "SpatialOperations",
            ]),
        .executableTarget(
            name: "SpatialMediaCLI",
            dependencies: [
                "SpatialOperations", "SpatialValidation", "SpatialConvert", "StereoVision", "MediaDecode", "Codecs",
                "ImageFormats", "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO", "SystemSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(
            name: "SpatialMediaC",
            dependencies: [
                "SpatialOperations", "SpatialMedia", "ISOBMFF", "BinaryIO", "SystemSupport", "HEVC", "ImageFormats",
                "MediaDecode", "SpatialConvert", "SpatialValidation",
            ]),
        // The tests' one support library: the ../shared locator, the process runner, the binary and FFmpeg finders,
        // the media generators and the skip trait (`.needs`). Used only by the test targets.
        .target(name: "TestSupport", dependencies: ["MediaDecode"], path: "Tests/TestSupport"),
        .testTarget(
            name: "SpatialMediaCTests", dependencies: ["TestSupport", "SpatialMediaC", "SystemSupport", "BinaryIO"]),
        .testTarget(name: "BinaryIOTests", dependencies: ["TestSupport", "BinaryIO", "SystemSupport"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["TestSupport", "ISOBMFF", "BinaryIO"]),
        .testTarget(name: "HEVCTests", dependencies: ["TestSupport", "HEVC", "BinaryIO"]),
        .testTarget(
            name: "SpatialMediaTests",
            dependencies: ["TestSupport", "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO", "SystemSupport"]),
        .testTarget(
            name: "CodecsTests",
            dependencies: ["TestSupport", "Codecs", "ImageFormats", "HEVC", "BinaryIO", "SystemSupport"]),
        .testTarget(
            name: "SpatialConvertTests",
            dependencies: [
                "TestSupport", "SpatialConvert", "SpatialValidation", "StereoVision", "MediaDecode", "Codecs",
                "ImageFormats", "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO", "SystemSupport",
            ]),
        .testTarget(name: "StereoVisionTests", dependencies: ["TestSupport", "StereoVision"]),
        .testTarget(
            name: "SpatialValidationTests",
            dependencies: [
                "TestSupport", "SpatialValidation", "StereoVision", "SpatialConvert", "MediaDecode", "ImageFormats",
                "SpatialMedia", "ISOBMFF", "BinaryIO", "SystemSupport",
            ]),
        .testTarget(name: "SpatialMediaKitTests", dependencies: ["TestSupport", "SpatialMediaKit"]),
        .testTarget(
            name: "SpatialOperationsTests",
            dependencies: [
                "TestSupport", "SpatialOperations", "SpatialMediaC", "SpatialMediaKit", "SpatialValidation",
                "SpatialConvert", "SpatialMedia", "MediaDecode", "ISOBMFF", "StereoVision", "ImageFormats", "Codecs",
                "BinaryIO", "SystemSupport",
            ]),
        // Drives the built `spatial-media` binary (found next to the test bundle, whatever the configuration).
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "SystemSupport", "StereoVision"]),
        .testTarget(
            name: "ConformanceTests", dependencies: ["TestSupport", "ISOBMFF", "HEVC", "SpatialMedia", "BinaryIO"]),
    ]
)
