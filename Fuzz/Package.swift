// swift-tools-version: 6.0
// The libFuzzer targets, kept out of the root package so that its product list is what a user builds. They depend
// on the root package by path and reach its modules through its library products: `SpatialMediaCore` (boxes, HEVC,
// the spatial model), `SpatialMediaImageFormats` (the image readers), `SpatialMediaKit` (adds ImageFormats and
// Codecs) and the C ABI `spatialmedia`. Build and run them with `bash scripts/fuzz.sh` (see there); a fuzz build
// needs `--sanitize=fuzzer`, so `swift build` here without it makes binaries that do not fuzz.
import PackageDescription

let package = Package(
    name: "spatial-media-fuzz",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "FuzzBoxes", targets: ["FuzzBoxes"]),
        .executable(name: "FuzzHEVC", targets: ["FuzzHEVC"]),
        .executable(name: "FuzzHEIF", targets: ["FuzzHEIF"]),
        .executable(name: "FuzzCABI", targets: ["FuzzCABI"]),
        .executable(name: "FuzzImageHeaders", targets: ["FuzzImageHeaders"]),
        .executable(name: "FuzzPNG", targets: ["FuzzPNG"]),
        .executable(name: "FuzzJPEG", targets: ["FuzzJPEG"]),
    ],
    dependencies: [
        .package(name: "spatial-media", path: "..")
    ],
    targets: [
        .executableTarget(
            name: "FuzzBoxes", dependencies: [.product(name: "SpatialMediaCore", package: "spatial-media")],
            path: "FuzzBoxes"),
        .executableTarget(
            name: "FuzzHEVC", dependencies: [.product(name: "SpatialMediaCore", package: "spatial-media")],
            path: "FuzzHEVC"),
        .executableTarget(
            name: "FuzzHEIF", dependencies: [.product(name: "SpatialMediaCore", package: "spatial-media")],
            path: "FuzzHEIF"),
        // The C ABI as a C caller links it: the shared library, nothing else of ours.
        .executableTarget(
            name: "FuzzCABI", dependencies: [.product(name: "spatialmedia", package: "spatial-media")], path: "FuzzCABI"
        ),
        .executableTarget(
            name: "FuzzImageHeaders", dependencies: [.product(name: "SpatialMediaKit", package: "spatial-media")],
            path: "FuzzImageHeaders"),
        .executableTarget(
            name: "FuzzPNG", dependencies: [.product(name: "SpatialMediaKit", package: "spatial-media")],
            path: "FuzzPNG"),
        // The JPEG/MPF/XMP reader only: the image-format module and the ISOBMFF model its gain-map metadata uses.
        .executableTarget(
            name: "FuzzJPEG", dependencies: [.product(name: "SpatialMediaImageFormats", package: "spatial-media")],
            path: "FuzzJPEG"),
    ]
)
