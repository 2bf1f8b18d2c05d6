/// A `Duration` in the units the C calls and the metrics want, worked out
/// one way for the whole project.
extension Duration {
    /// Whole nanoseconds, truncated (durations here are far below the
    /// 292 years where that overflows).
    public var wholeNanoseconds: Int64 {
        // One 128-bit division (by a divisor of one word), where
        // `components` divides by 10^18 and then each part again.
        Int64(attoseconds / 1_000_000_000)
    }

    /// Seconds with their fraction, for metrics.
    public var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A `poll(2)` timeout that waits at least this long: whole
    /// milliseconds rounded up (+1), 0 for a duration already past,
    /// clamped to `Int32`.
    public var pollMilliseconds: Int32 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}
