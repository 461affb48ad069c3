// swift-tools-version: 6.0
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
        .library(name: "SpatialMediaKit", targets: ["BinaryIO", "ISOBMFF", "HEVC", "SpatialMedia", "Codecs", "SpatialConvert", "StereoVision", "SpatialValidation"]),
        .executable(name: "spatial-media", targets: ["SpatialMediaCLI"]),
        .executable(name: "FuzzBoxes", targets: ["FuzzBoxes"]),
        .executable(name: "FuzzHEVC", targets: ["FuzzHEVC"]),
        .executable(name: "FuzzHEIF", targets: ["FuzzHEIF"]),
        .library(name: "spatialmedia", type: .dynamic, targets: ["SpatialMediaC"]),
        .executable(name: "FuzzCABI", targets: ["FuzzCABI"]),
        .executable(name: "FuzzImageHeaders", targets: ["FuzzImageHeaders"]),
        .executable(name: "FuzzPNG", targets: ["FuzzPNG"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CDe265", pkgConfig: codecPkgConfig("libde265"), providers: [.apt(["libde265-dev"]), .brew(["libde265"])]),
        .systemLibrary(name: "CX265", pkgConfig: codecPkgConfig("x265"), providers: [.apt(["libx265-dev"]), .brew(["x265"])]),
        .systemLibrary(name: "CTurboJPEG", pkgConfig: codecPkgConfig("libturbojpeg"), providers: [.apt(["libturbojpeg0-dev"]), .brew(["jpeg-turbo"])]),
        .systemLibrary(name: "CPNG", pkgConfig: codecPkgConfig("libpng"), providers: [.apt(["libpng-dev"]), .brew(["libpng"])]),
        .target(name: "BinaryIO"),
        .target(name: "ISOBMFF", dependencies: ["BinaryIO"]),
        .target(name: "HEVC", dependencies: ["BinaryIO"]),
        .target(name: "SpatialMedia", dependencies: ["BinaryIO", "ISOBMFF", "HEVC"]),
        .target(name: "Codecs", dependencies: ["BinaryIO", "HEVC", "CDe265", "CX265", "CTurboJPEG", "CPNG"]),
        .target(name: "SpatialConvert", dependencies: ["BinaryIO", "ISOBMFF", "HEVC", "SpatialMedia", "Codecs", "StereoVision"]),
        .target(name: "StereoVision"),
        .target(name: "SpatialValidation", dependencies: ["BinaryIO", "ISOBMFF", "HEVC", "SpatialMedia", "StereoVision", "Codecs", "SpatialConvert"]),
        .executableTarget(
            name: "SpatialMediaCLI",
            dependencies: [
                "SpatialValidation", "SpatialConvert", "StereoVision", "Codecs", "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "FuzzBoxes", dependencies: ["ISOBMFF", "SpatialMedia"], path: "Fuzz/FuzzBoxes"),
        .executableTarget(name: "FuzzHEVC", dependencies: ["HEVC"], path: "Fuzz/FuzzHEVC"),
        .executableTarget(name: "FuzzHEIF", dependencies: ["ISOBMFF", "SpatialMedia"], path: "Fuzz/FuzzHEIF"),
        .target(name: "SpatialMediaC", dependencies: ["SpatialMedia", "ISOBMFF", "BinaryIO", "HEVC", "SpatialConvert", "SpatialValidation"]),
        .executableTarget(name: "FuzzCABI", dependencies: ["SpatialMediaC"], path: "Fuzz/FuzzCABI"),
        .executableTarget(name: "FuzzImageHeaders", dependencies: ["Codecs"], path: "Fuzz/FuzzImageHeaders"),
        .executableTarget(name: "FuzzPNG", dependencies: ["Codecs"], path: "Fuzz/FuzzPNG"),
        .testTarget(name: "SpatialMediaCTests", dependencies: ["SpatialMediaC"]),
        .testTarget(name: "BinaryIOTests", dependencies: ["BinaryIO"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["ISOBMFF", "BinaryIO"]),
        .testTarget(name: "HEVCTests", dependencies: ["HEVC", "BinaryIO"]),
        .testTarget(name: "SpatialMediaTests", dependencies: ["SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO"]),
        .testTarget(name: "CodecsTests", dependencies: ["Codecs", "HEVC", "BinaryIO"]),
        .testTarget(name: "SpatialConvertTests", dependencies: ["SpatialConvert", "Codecs", "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO"]),
        .testTarget(name: "StereoVisionTests", dependencies: ["StereoVision"]),
        .testTarget(name: "SpatialValidationTests", dependencies: ["SpatialValidation", "StereoVision", "SpatialConvert", "SpatialMedia", "ISOBMFF", "BinaryIO"]),
        .testTarget(name: "ConformanceTests", dependencies: ["ISOBMFF", "HEVC", "SpatialMedia", "BinaryIO"]),
    ]
)
