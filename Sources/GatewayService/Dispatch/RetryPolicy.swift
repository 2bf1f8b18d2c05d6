import Synchronization
import PushGWSync

/// How the dispatcher retries a provider's retryable failures: exponential
/// back-off with jitter, honouring Retry-After, within the request's
/// deadline, and only while the shared retry budget allows (no retry storms:
/// when a provider is down, retries stop instead of multiplying the load).
public struct RetryPolicy: Sendable {
    /// Attempts per notification, the first included.
    public var maximumAttempts = 4
    /// The first wait after a provider refused for now (5xx, 429): 1 s, then
    /// 2 s, 4 s … as PROTOCOLS.md asks for FCM's UNAVAILABLE (Apple asks to
    /// space 5xx retries out too).
    public var initialDelay: Duration = .seconds(1)
    /// The first wait after the connection failed under a request (lost,
    /// timed out, refused by GOAWAY): short, the request likely goes to a
    /// fresh connection.
    public var initialDelayAfterConnectionFailure: Duration = .milliseconds(100)
    public var maximumDelay: Duration = .seconds(8)

    public init() {}

    /// The wait before attempt `attempt` (2, 3, …), at least `retryAfter`;
    /// `jitter` in 0...1 picks between half and all of the exponential
    /// delay, which starts at `initialDelay` when the provider refused
    /// (`providerRefused`), else at `initialDelayAfterConnectionFailure`;
    /// and between `retryAfter` and a tenth more, so that the devices one
    /// Retry-After was given to do not all come back at the same instant.
    public func delay(beforeAttempt attempt: Int, retryAfter: Duration?, providerRefused: Bool = true, jitter: Double) -> Duration {
        let exponent = max(0, min(attempt - 2, 20))
        let first = providerRefused ? initialDelay : initialDelayAfterConnectionFailure
        let full = min(first * (1 << exponent), maximumDelay)
        let jitter = min(max(jitter, 0), 1)
        let jittered = full * (0.5 + 0.5 * jitter)
        guard let retryAfter, retryAfter > .zero else { return jittered }
        return max(jittered, retryAfter * (1 + 0.1 * jitter))
    }
}

/// A token bucket shared by all events: every first attempt earns a fraction
/// of a retry, every retry spends one. Bounded, so a long outage cannot
/// build up a storm.
public final class RetryBudget: Sendable {
    private let tokens: Locked<Double>
    private let earnedPerRequest: Double
    private let capacity: Double

    /// - Parameters:
    ///   - ratio: retries allowed per first attempt, on average (0.2 = 20%).
    ///   - capacity: the most retries that can be saved up.
    public init(ratio: Double = 0.2, capacity: Double = 1000) {
        earnedPerRequest = ratio
        self.capacity = capacity
        tokens = Locked(capacity)
    }

    public func recordAttempts(_ count: Int) {
        tokens.withLock { $0 = min(capacity, $0 + earnedPerRequest * Double(count)) }
    }

    /// Takes up to `count` retries from the budget; returns how many were granted.
    public func withdraw(_ count: Int) -> Int {
        tokens.withLock { tokens in
            let granted = min(count, Int(tokens))
            tokens -= Double(granted)
            return granted
        }
    }
}
