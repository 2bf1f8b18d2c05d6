/// A `DedupStore` whose calls are written as async functions (a network
/// client's): each pipeline call runs one in a task of its own and hands the
/// answer on from there. It waits for a held claim by asking again
/// (`DedupClaimPolling`), unless it implements `awaitClaim` itself.
public protocol AsyncDedupStore: DedupStore {
    /// `DedupStore.claim`: claims `key` for `owner` unless another owner's
    /// claim holds it, and reads its record, in one atomic step.
    func takeClaim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration) async -> DedupClaim
    /// `DedupStore.record`: records `event` and releases `owner`'s claim, in one step.
    func keepRecord(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                    releasing owner: DedupClaimOwner) async -> DedupStoreFailure?
    /// `DedupStore.release`: releases `owner`'s claim.
    func dropClaim(_ key: String, by owner: DedupClaimOwner) async -> DedupStoreFailure?
}

extension AsyncDedupStore {
    public func claim(_ key: String, by owner: DedupClaimOwner, now: ContinuousClock.Instant, holdFor: Duration,
                      answer: @escaping @Sendable (DedupClaim) -> Void) {
        Task { answer(await takeClaim(key, by: owner, now: now, holdFor: holdFor)) }
    }

    public func record(_ key: String, _ event: RecordedEvent, now: ContinuousClock.Instant, keepFor: Duration,
                       releasing owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        Task { done(await keepRecord(key, event, now: now, keepFor: keepFor, releasing: owner)) }
    }

    public func release(_ key: String, by owner: DedupClaimOwner, done: @escaping @Sendable (DedupStoreFailure?) -> Void) {
        Task { done(await dropClaim(key, by: owner)) }
    }
}
