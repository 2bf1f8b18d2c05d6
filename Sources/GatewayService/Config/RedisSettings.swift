public import RedisClient

/// The shared store the replicas of a fleet keep their dedup claims and
/// records in (`redis.*`, `PUSHGW_REDIS_*`). Without a URL the gateway is
/// one process with the in-process window, and no other `redis` setting
/// may be given.
public struct RedisSettings: Sendable {
    /// nil: no shared store.
    public var url: RedisURL?
    /// The setting that gave the URL (`PUSHGW_REDIS_URL` or `redis.url`), for errors.
    public var urlSetting = "PUSHGW_REDIS_URL"
    /// PEM CAs to trust for a `rediss://` store (default: the system's).
    public var caFile: String?
    /// The setting that named the CA file, checked once the URL is known.
    var caFileSetting: Sourced?
    public var connectTimeout: Duration = .milliseconds(2000)
    /// Each command's: a claim or a record the store does not answer in
    /// this time fails as unavailable. Below the request deadline.
    public var commandTimeout: Duration = .milliseconds(1000)
    /// The setting that gave `commandTimeout`, for errors.
    public var commandTimeoutSetting = "PUSHGW_REDIS_COMMAND_TIMEOUT_MS"
    /// Put before every key, so several gateways (or other programs) share one store.
    public var prefix = "pushgw:"
    public var onFailure: DedupFailurePolicy = .refuse
    /// How long an async event a replica took may stay unacknowledged
    /// before another replica takes it over. The gateway uses at least twice
    /// the request deadline, so that a live replica's event is never sent
    /// twice at once.
    public var queueVisibilityTimeout: Duration = .seconds(60)
    /// Events an app's stream holds, not yet acknowledged, before an async
    /// notify is refused (503 `queue_full`, nothing queued).
    public var queueMaximumLength = 100_000
    /// How long an async event's state (`GET /v1/events/{event_id}`) is
    /// kept after its last change.
    public var queueRetention: Duration = .seconds(86_400)
    /// Deliveries of one async event, take-overs included, before it is
    /// given up: recorded as failed, reported to the feedback webhook as a
    /// final failure, acknowledged, and counted.
    public var queueMaximumDeliveries = 5
    /// How long a consumer of the queue (a replica) may go without taking
    /// anything before another replica removes it from the consumer group,
    /// once nothing is pending on it (a replica gone for good).
    public var queueDeadConsumerAge: Duration = .seconds(86_400)
    /// Every `redis` setting given other than the URL, as written (to refuse them without a URL).
    public var otherSettingsGiven: [String] = []

    public init() {}

    /// A key prefix: printable ASCII without spaces, and without `{` or `}`,
    /// which would take the hash tag that keeps a key's claim and record on
    /// one Redis Cluster slot. Up to 64 characters.
    static func checkedPrefix(_ text: String, _ setting: String) throws(ServiceError) -> String {
        guard !text.isEmpty, text.utf8.count <= 64 else {
            throw ServiceError(setting: setting, "must be 1 to 64 characters (default pushgw:)")
        }
        guard text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "{") && $0 != UInt8(ascii: "}") }) else {
            throw ServiceError(setting: setting, "\"\(text)\": printable ASCII without spaces, { or } (braces would take the "
                + "hash tag that keeps an event's keys on one Redis Cluster slot)")
        }
        return text
    }

    static func failurePolicy(_ text: String, _ setting: String) throws(ServiceError) -> DedupFailurePolicy {
        guard let policy = DedupFailurePolicy(rawValue: text.lowercased()) else {
            throw ServiceError(setting: setting, "\"\(text)\": use refuse (answer 503 store_unavailable, nothing sent) or "
                + "send_without_dedup (send, with the risk of duplicates)")
        }
        return policy
    }
}
