// SpatialMediaKit: one import for the whole library.
//
// `import SpatialMediaKit` brings in every library module: the pure-Swift core (BinaryIO, SystemSupport,
// ISOBMFF, HEVC, SpatialMedia, ImageFormats, StereoVision) and the modules that use the codec libraries
// (Codecs, MediaDecode, SpatialConvert, SpatialValidation). A program that needs only metadata can depend on
// the `SpatialMediaCore` product instead, which builds with no C library installed.

@_exported import BinaryIO
@_exported import Codecs
@_exported import HEVC
@_exported import ISOBMFF
@_exported import ImageFormats
@_exported import MediaDecode
@_exported import SpatialConvert
@_exported import SpatialMedia
@_exported import SpatialOperations
@_exported import SpatialValidation
@_exported import StereoVision
@_exported import SystemSupport
