import PayloadBuilder

/// The metric series the dispatcher updates for every event, looked up in
/// the registry once rather than per update.
struct DispatcherSeries: Sendable {
    enum Outcome: String, CaseIterable {
        case invalid, duplicate, delivered, failed
        /// Refused, nothing sent: the dedup store could not be reached (503 `store_unavailable`).
        case storeUnavailable = "store_unavailable"
        /// Nothing sent: another dispatch of the event still held its claim at the deadline (409 `in_progress`).
        case inProgress = "in_progress"
    }

    private let registry: MetricsRegistry
    /// By `Outcome.allCases` position.
    private let outcomes: [MetricSeries]
    /// By `Platform.allCases` position, then `RecipientResult.Status.allCases` position.
    private let results: [[MetricSeries]]
    private let providers: [String: ProviderSeries]
    /// `pushgw_avatar_fetch_total{result="does_not_fit"}`: avatars the
    /// renderer left out of a notification sent (`/v1/notify`) so that it fits.
    let avatarsDroppedToFit: MetricSeries

    /// One provider's series, made when the dispatcher starts: its counters
    /// are exposed at 0 before the first event, so a rate or an alert on
    /// them sees a series from the start.
    struct ProviderSeries: Sendable {
        let inFlight: MetricSeries
        let rejectedTokens: MetricSeries
        let retries: MetricSeries

        init(_ registry: MetricsRegistry, _ name: String) {
            inFlight = registry.series(GatewayMetrics.providerInFlight, [name])
            rejectedTokens = registry.series(GatewayMetrics.rejectedTokens, [name])
            retries = registry.series(GatewayMetrics.retries, [name])
        }
    }

    init(_ registry: MetricsRegistry, providers names: [String]) {
        self.registry = registry
        outcomes = Outcome.allCases.map { registry.series(GatewayMetrics.events, [$0.rawValue]) }
        results = Platform.allCases.map { platform in
            RecipientResult.Status.allCases.map { status in
                registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue])
            }
        }
        var providers: [String: ProviderSeries] = [:]
        for name in names { providers[name] = ProviderSeries(registry, name) }
        self.providers = providers
        avatarsDroppedToFit = registry.series(GatewayMetrics.avatarFetch, [AvatarDropReason.doesNotFit.rawValue])
    }

    // Every case has its series (made above): found by position, with no hashing.
    func events(_ outcome: Outcome) -> MetricSeries { outcomes[Outcome.allCases.firstIndex(of: outcome)!] }

    func notifications(_ platform: Platform, _ status: RecipientResult.Status) -> MetricSeries {
        results[Platform.allCases.firstIndex(of: platform)!][RecipientResult.Status.allCases.firstIndex(of: status)!]
    }

    func provider(_ name: String) -> ProviderSeries {
        providers[name] ?? ProviderSeries(registry, name)
    }
}
