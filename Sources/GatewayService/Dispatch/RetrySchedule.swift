/// When each retryable request of one event is tried again, as a value
/// type: every request has its own attempt number and due time (back-off
/// with jitter, at least its Retry-After), and a request whose next attempt
/// would pass the attempt limit or the deadline is not scheduled: it keeps
/// its last result. Tested without a clock or a network.
struct RetrySchedule {
    /// A request waiting for its next attempt.
    struct Waiting {
        let retry: Dispatcher.Retry
        /// The number of the attempt it waits for (2 for the first retry).
        let attempt: Int
        let due: ContinuousClock.Instant
    }

    /// Requests due within this much of the earliest go together: one
    /// provider batch instead of one per millisecond of jitter.
    static let grouping: Duration = .milliseconds(20)
    /// A retry needs at least this much time before the deadline: one that
    /// would start later could only time out, replacing the provider's
    /// reason with `timeout` and spending the retry budget for nothing.
    static let minimumAttemptTime: Duration = .milliseconds(100)

    let policy: RetryPolicy
    let deadline: ContinuousClock.Instant
    private(set) var waiting: [Waiting] = []

    init(policy: RetryPolicy, deadline: ContinuousClock.Instant) {
        self.policy = policy
        self.deadline = deadline
    }

    /// Schedules `retries` for attempt number `attempt`; returns those that
    /// are not (past the attempt limit, or due too close to the deadline).
    mutating func add(_ retries: [Dispatcher.Retry], attempt: Int, now: ContinuousClock.Instant,
                      jitter: Double) -> [Dispatcher.Retry] {
        var refused: [Dispatcher.Retry] = []
        for retry in retries {
            let due = now + policy.delay(beforeAttempt: attempt, retryAfter: retry.after, providerRefused: retry.refused,
                                         jitter: jitter)
            if attempt <= policy.maximumAttempts, due + Self.minimumAttemptTime < deadline {
                waiting.append(Waiting(retry: retry, attempt: attempt, due: due))
            } else {
                refused.append(retry)
            }
        }
        return refused
    }

    /// Whether an attempt starting at `now` still has its minimum time.
    func leavesTimeForAnAttempt(at now: ContinuousClock.Instant) -> Bool {
        now + Self.minimumAttemptTime < deadline
    }

    /// The earliest due time, nil when nothing waits.
    var nextDue: ContinuousClock.Instant? { waiting.map(\.due).min() }

    /// Takes every request due by `now`, and those due within `grouping`
    /// of it unless the provider gave them a Retry-After (never sent before
    /// it ends), in the order they were scheduled.
    mutating func takeDue(now: ContinuousClock.Instant) -> [Waiting] {
        let cutoff = now + Self.grouping
        let isDue = { (item: Waiting) in item.due <= now || (item.due <= cutoff && item.retry.after == nil) }
        let due = waiting.filter(isDue)
        waiting.removeAll(where: isDue)
        return due
    }
}
