public import HTTP2Client
import APNsHTTP2

/// The metric families API.md requires, declared once, with helpers that
/// keep their labels bounded.
public struct GatewayMetrics: Sendable {
    public let registry: MetricsRegistry

    public static let events = MetricsRegistry.Family(
        "pushgw_events_total", "Events received on /v1/notify, by outcome.", type: "counter")
    public static let notifications = MetricsRegistry.Family(
        "pushgw_notifications_total", "Per-device results, by provider and status.", type: "counter")
    public static let providerDuration = MetricsRegistry.Family(
        "pushgw_provider_request_duration_seconds", "Time from sending one provider request to its answer (each retry its own request).", type: "histogram")
    public static let providerInFlight = MetricsRegistry.Family(
        "pushgw_provider_in_flight", "Provider requests in flight.", type: "gauge")
    public static let rejectedTokens = MetricsRegistry.Family(
        "pushgw_rejected_tokens_total", "Device tokens the caller was told to delete.", type: "counter")
    public static let tokenRefresh = MetricsRegistry.Family(
        "pushgw_token_refresh_total", "Provider credentials minted (APNs JWT, FCM OAuth grant).", type: "counter")
    public static let providerTokenFallback = MetricsRegistry.Family(
        "pushgw_provider_token_fallback_total",
        "Times the shared provider-token store became unreachable and a replica fell back to tokens of its own.", type: "counter")
    public static let providerTokenLocal = MetricsRegistry.Family(
        "pushgw_provider_token_local",
        "Apps whose provider token is this replica's own, not the fleet's shared one.", type: "gauge")
    public static let avatarFetch = MetricsRegistry.Family(
        "pushgw_avatar_fetch_total", "Avatar resolutions, by result.", type: "counter")
    public static let httpRequests = MetricsRegistry.Family(
        "pushgw_http_requests_total", "HTTP requests served, by route and status code.", type: "counter")
    public static let retries = MetricsRegistry.Family(
        "pushgw_provider_retries_total", "Provider requests sent again after a retryable failure.", type: "counter")
    public static let dedupBypassed = MetricsRegistry.Family(
        "pushgw_dedup_bypassed_total", "Events sent without dedup because the dedup store could not be reached (redis.on_failure).",
        type: "counter")
    public static let dedupStoreErrors = MetricsRegistry.Family(
        "pushgw_dedup_store_errors_total", "Calls to the dedup store that failed, by operation (claim, record, release).",
        type: "counter")
    public static let ready = MetricsRegistry.Family(
        "pushgw_ready", "1 when /readyz answers 200, 0 when it answers 503 (shutting down, a provider known bad).", type: "gauge")
    public static let providerKnownBad = MetricsRegistry.Family(
        "pushgw_provider_known_bad",
        "Apps whose provider last refused the gateway's credentials or configuration, or cannot be used (a /readyz reason).",
        type: "gauge")

    public init(registry: MetricsRegistry = MetricsRegistry()) {
        self.registry = registry
        registry.declare(Self.events, labels: ["outcome"])
        registry.declare(Self.notifications, labels: ["provider", "status"])
        registry.declare(Self.providerDuration, labels: ["provider"])
        registry.declare(Self.providerInFlight, labels: ["provider"])
        registry.declare(Self.rejectedTokens, labels: ["provider"])
        registry.declare(Self.tokenRefresh, labels: ["kind"])
        registry.declare(Self.providerTokenFallback, labels: ["provider"])
        registry.declare(Self.providerTokenLocal, labels: ["provider"])
        registry.declare(Self.avatarFetch, labels: ["result"])
        registry.declare(Self.httpRequests, labels: ["route", "code"])
        registry.declare(Self.retries, labels: ["provider"])
        registry.declare(Self.dedupBypassed, labels: [])
        registry.declare(Self.dedupStoreErrors, labels: ["operation"])
        registry.declare(Self.ready, labels: [])
        registry.declare(Self.providerKnownBad, labels: ["provider"])
    }

    /// `options` with each answered request to `provider` (`apns`, `fcm`)
    /// timed into `pushgw_provider_request_duration_seconds{provider}` by the
    /// connection that carried it: from send to answer, a retry its own request.
    public func timingRequests(to provider: String,
                               _ options: HTTP2ConnectionOptions = HTTP2ConnectionOptions()) -> HTTP2ConnectionOptions {
        let duration = registry.series(Self.providerDuration, [provider])
        var options = options
        options.timesAnswer = { duration.observe(seconds: $0.inSeconds) }
        return options
    }
}
