internal import Glibc

/// Reads the real-time clock as seconds since the UNIX epoch.
///
/// The default `APNsSimulatorConfiguration.clock`; tests inject their own.
enum WallClock {
    /// Seconds since 1970-01-01T00:00:00Z, with sub-second precision.
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}
