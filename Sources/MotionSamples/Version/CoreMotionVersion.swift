/// The release of swift-core-motion: the one source of the version that `coremotion --version`,
/// `coremotiond --version`, the daemon's status report and the Debian package (`tools/package/build-deb.sh`)
/// all use. Change it here, with the CHANGELOG, when a release is cut.
public enum CoreMotionVersion {
    /// The release, as `MAJOR.MINOR.PATCH` (semantic versioning, as the Git tags and `.package(url:from:)` read it).
    public static let string = "0.5.0"
}
