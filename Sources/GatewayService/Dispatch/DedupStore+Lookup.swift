extension DedupStore {
    /// What the window recorded of `key` (nil: nothing), without sending,
    /// waiting or claiming: `GET /v1/events/{event_id}`. `.failure` when
    /// the store cannot answer.
    public func lookup(_ key: String) async -> Result<RecordedEvent?, DedupStoreFailure> {
        await withCheckedContinuation { continuation in
            peek(key, now: .now) { continuation.resume(returning: $0) }
        }
    }

    /// For a store with no plain read: through a claim by an owner of its
    /// own, released at once when taken; when another dispatch holds the
    /// key, its record is read as it stands and the claim left alone.
    public func peek(_ key: String, now: ContinuousClock.Instant,
                     answer: @escaping @Sendable (Result<RecordedEvent?, DedupStoreFailure>) -> Void) {
        let owner = DedupClaimOwner(instance: .random(in: 1...UInt64.max), sequence: 0)
        claim(key, by: owner, now: now, holdFor: .seconds(1)) { claim in
            switch claim {
            case let .claimed(record):
                self.release(key, by: owner) { _ in answer(.success(record)) }
            case let .held(record):
                answer(.success(record))
            case let .unavailable(failure):
                answer(.failure(failure))
            }
        }
    }
}
