import ISOBMFF

/// The library's version.
public enum SpatialMediaVersion {
    public static let string = "0.2.0"
}
