/// The keys of the gateway's JSON configuration file, per object. One list
/// for both readers of that file: the service's `ConfigurationLoader` and
/// the pure `RenderConfig(json:)`, which uses the rendering keys and
/// accepts (and ignores) the others, so every file the service accepts
/// parses here too.
public enum ConfigFileKeys {
    /// The top-level object.
    public static let root: Set<String> = [
        "listen", "bearer_tokens_file", "metrics_token_file", "insecure_no_auth", "dedup_window_seconds",
        "request_deadline_seconds", "dedup_capacity", "default_locale", "self_sender_ids", "log_level", "avatar", "apps",
        "shutdown_delay_seconds", "shutdown_drain_seconds", "max_connections", "max_connections_per_address",
        "dedup_memory_mb", "redis", "proxy",
    ]
    /// `proxy`: the outbound HTTP proxy.
    public static let proxy: Set<String> = ["url", "no_proxy"]
    /// `avatar`.
    public static let avatar: Set<String> = [
        "allow_http", "allowed_hosts", "allow_private_addresses", "private_networks", "ca_file", "max_kb", "timeout_ms",
        "cache_entries", "cache_seconds", "fetch_threads",
    ]
    /// `redis`: the shared store of a fleet.
    public static let redis: Set<String> = [
        "url", "ca_file", "connect_timeout_ms", "command_timeout_ms", "prefix", "on_failure", "queue_visibility_seconds",
        "queue_max_length", "queue_retention_seconds", "queue_max_deliveries", "queue_dead_consumer_seconds",
    ]
    /// One item of `apps`.
    public static let app: Set<String> = ["name", "apns", "fcm", "web", "webpush", "data_keys", "feedback_url", "feedback_secret_file"]
    /// `apps[].apns`.
    public static let apns: Set<String> = [
        "key_file", "key_id", "team_id", "topic", "environment", "base_url", "ca_file", "connections", "token_refresh_minutes",
    ]
    /// `apps[].fcm`.
    public static let fcm: Set<String> = ["service_account_file", "project_id", "base_url", "ca_file", "connections"]
    /// `apps[].web`: browsers.
    public static let web: Set<String> = ["link_template"]
    /// `apps[].webpush`: direct web push (VAPID).
    public static let webpush: Set<String> = ["vapid_key_file", "vapid_subject", "allowed_hosts", "ca_file", "allow_private_addresses",
                                              "connections"]
}
