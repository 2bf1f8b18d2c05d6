import CBuildStamp

/// What `pushgw --version` prints: `pushgw 0.1.0 (abc1234)`. The release
/// number lives here and nowhere else (`scripts/package-deb` asks the built
/// binary for it); the commit is the one a stamping build wrote
/// (`scripts/build-release`), or `unknown`.
enum BuildVersion {
    /// The release number, `MAJOR.MINOR.PATCH`.
    static let number = "0.1.0"

    /// The short commit hash, `-dirty` when the tree had changes, or `unknown`.
    static var commit: String { String(cString: pgw_build_commit()) }

    /// The one line `--version` prints.
    static var line: String { "pushgw \(number) (\(commit))" }
}
