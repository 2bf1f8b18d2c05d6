import Synchronization
import PushGWSync

/// How the dispatcher retries a provider's retryable failures: exponential
/// back-off with jitter, honouring Retry-After, within the request's
/// deadline, and only while the shared retry budget allows (no retry storms:
/// when a provider is down, retries stop instead of multiplying the load).
public struct RetryPolicy: Sendable {
    /// Attempts per notification, the first included.
    public var maximumAttempts = 4
    public var initialDelay: Duration = .milliseconds(100)
    public var maximumDelay: Duration = .seconds(5)

    public init() {}

    /// The wait before attempt `attempt` (2, 3, …), at least `retryAfter`;
    /// `jitter` in 0...1 picks between half and all of the exponential delay.
    public func delay(beforeAttempt attempt: Int, retryAfter: Duration?, jitter: Double) -> Duration {
        let exponent = max(0, min(attempt - 2, 20))
        let full = min(initialDelay * (1 << exponent), maximumDelay)
        let jittered = full * (0.5 + 0.5 * min(max(jitter, 0), 1))
        return max(jittered, retryAfter ?? .zero)
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
