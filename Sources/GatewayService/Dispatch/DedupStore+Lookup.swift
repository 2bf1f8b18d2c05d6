extension DedupStore {
    /// What the window recorded of `key` (nil: nothing), without sending or
    /// waiting: `GET /v1/events/{event_id}`. Read through a claim by an
    /// owner of its own: when another dispatch holds the key, its record is
    /// read as it stands and the claim left alone; when none does, the
    /// claim taken to read it is released at once. `.unavailable` when the
    /// store cannot answer.
    public func lookup(_ key: String, owner: DedupClaimOwner) async -> DedupClaim {
        let claim = await claim(key, by: owner, holdFor: .seconds(1))
        if case .claimed = claim { await release(key, by: owner) }
        return claim
    }
}
