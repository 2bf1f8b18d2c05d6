/// Where the outcome of an event is remembered for the dedup window, so a
/// caller's retry of the same `event_id` is not sent twice. The seam for a
/// shared store (Redis) when several gateways run; `InMemoryDedupStore` for one.
public protocol DedupStore: Sendable {
    /// The recorded answer for `key`, if it is still within its window.
    func lookup(_ key: String, now: ContinuousClock.Instant) async -> RecordedEvent?
    /// Records (or replaces) the answer for `key` until `expires`.
    func record(_ key: String, _ event: RecordedEvent, expires: ContinuousClock.Instant) async
}

/// What is remembered of a dispatched event: each recipient's final result.
public struct RecordedEvent: Sendable, Equatable {
    public var results: [RecipientResult]

    public init(results: [RecipientResult]) {
        self.results = results
    }
}
