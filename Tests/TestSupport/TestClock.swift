import Foundation
import Synchronization

/// A clock that moves only when a test moves it, for code that takes its time
/// injected: provider tokens and access tokens (epoch seconds), simulators
/// (epoch seconds as a `Double`), caches and health windows
/// (`ContinuousClock.Instant`).
///
/// All readings come from one offset, so they move together: advancing by 90
/// seconds moves `epochSeconds` by 90 and `instant` by 90 seconds. The offset
/// is an atomic, so the clock may be read from any thread (a simulator's, an
/// event loop's) while the test moves it.
public final class TestClock: Sendable {
    private let startEpochSeconds: Int64
    private let startInstant: ContinuousClock.Instant
    private let offsetNanoseconds = Atomic<Int64>(0)

    /// A clock reading `epochSeconds` (by default the wall clock's second now)
    /// and, as an instant, `ContinuousClock.now`.
    public init(epochSeconds: Int64? = nil) {
        startEpochSeconds = epochSeconds ?? Int64(Date().timeIntervalSince1970)
        startInstant = .now
    }

    /// The current time in whole seconds since 1970 (rounded down).
    public var epochSeconds: Int64 {
        let offset = offsetNanoseconds.load(ordering: .relaxed)
        return startEpochSeconds + offset.dividedRoundingDown(by: 1_000_000_000)
    }

    /// The current time as an instant of the continuous clock.
    public var instant: ContinuousClock.Instant {
        startInstant + .nanoseconds(offsetNanoseconds.load(ordering: .relaxed))
    }

    /// Moves the clock by `duration` (backwards when it is negative).
    public func advance(by duration: Duration) {
        offsetNanoseconds.add(Self.nanoseconds(duration), ordering: .relaxed)
    }

    /// Sets the clock to `epochSeconds`, earlier or later than it reads now.
    public func set(epochSeconds: Int64) {
        offsetNanoseconds.store((epochSeconds - startEpochSeconds) * 1_000_000_000, ordering: .relaxed)
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension Int64 {
    fileprivate func dividedRoundingDown(by divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
