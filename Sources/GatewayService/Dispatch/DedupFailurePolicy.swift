/// What a notify does when the dedup store cannot answer its claim
/// (`redis.on_failure`).
public enum DedupFailurePolicy: String, Sendable, CaseIterable {
    /// Answer 503 `store_unavailable`, nothing sent: no risk of a duplicate,
    /// the caller retries (the default).
    case refuse
    /// Send as if nothing was recorded, and record nothing: devices may get a
    /// notification twice (a retry, or a copy on another replica), none gets
    /// none. Counted in `pushgw_dedup_bypassed_total`.
    case sendWithoutDedup = "send_without_dedup"
}
