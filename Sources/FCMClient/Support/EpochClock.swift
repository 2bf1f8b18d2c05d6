internal import Glibc

/// Reads the real-time clock as whole seconds since the UNIX epoch: the
/// default clock of the token cache and the FCM client. Tests inject their own.
enum EpochClock {
    static func seconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}
