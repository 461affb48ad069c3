// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "spatial-media",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SpatialMediaKit", targets: ["BinaryIO", "ISOBMFF", "HEVC", "SpatialMedia"]),
        .executable(name: "spatial-media", targets: ["SpatialMediaCLI"]),
        .executable(name: "FuzzBoxes", targets: ["FuzzBoxes"]),
        .executable(name: "FuzzHEVC", targets: ["FuzzHEVC"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "BinaryIO"),
        .target(name: "ISOBMFF", dependencies: ["BinaryIO"]),
        .target(name: "HEVC", dependencies: ["BinaryIO"]),
        .target(name: "SpatialMedia", dependencies: ["BinaryIO", "ISOBMFF", "HEVC"]),
        .executableTarget(
            name: "SpatialMediaCLI",
            dependencies: [
                "SpatialMedia", "ISOBMFF", "HEVC", "BinaryIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "FuzzBoxes", dependencies: ["ISOBMFF", "SpatialMedia"], path: "Fuzz/FuzzBoxes"),
        .executableTarget(name: "FuzzHEVC", dependencies: ["HEVC"], path: "Fuzz/FuzzHEVC"),
        .testTarget(name: "BinaryIOTests", dependencies: ["BinaryIO"]),
        .testTarget(name: "ISOBMFFTests", dependencies: ["ISOBMFF", "BinaryIO"]),
        .testTarget(name: "HEVCTests", dependencies: ["HEVC", "BinaryIO"]),
        .testTarget(name: "SpatialMediaTests", dependencies: ["SpatialMedia", "ISOBMFF", "BinaryIO"]),
        .testTarget(name: "ConformanceTests", dependencies: ["ISOBMFF", "HEVC", "SpatialMedia", "BinaryIO"]),
    ]
)
