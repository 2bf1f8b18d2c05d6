import PayloadBuilder

/// The metric series the dispatcher updates for every event, looked up in
/// the registry once rather than per update.
struct DispatcherSeries: Sendable {
    enum Outcome: String, CaseIterable {
        case invalid, duplicate, delivered, failed
    }

    private let registry: MetricsRegistry
    /// By `Outcome.allCases` position.
    private let outcomes: [MetricSeries]
    /// By `Platform.allCases` position, then `RecipientResult.Status.allCases` position.
    private let results: [[MetricSeries]]
    private let providers: [String: (inFlight: MetricSeries, duration: MetricSeries)]

    init(_ registry: MetricsRegistry, providers names: [String]) {
        self.registry = registry
        outcomes = Outcome.allCases.map { registry.series(GatewayMetrics.events, [$0.rawValue]) }
        results = Platform.allCases.map { platform in
            RecipientResult.Status.allCases.map { status in
                registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue])
            }
        }
        var providers: [String: (MetricSeries, MetricSeries)] = [:]
        for name in names {
            providers[name] = (registry.series(GatewayMetrics.providerInFlight, [name]),
                               registry.series(GatewayMetrics.providerDuration, [name]))
        }
        self.providers = providers
    }

    // Every case has its series (made above): found by position, with no hashing.
    func events(_ outcome: Outcome) -> MetricSeries { outcomes[Outcome.allCases.firstIndex(of: outcome)!] }

    func notifications(_ platform: Platform, _ status: RecipientResult.Status) -> MetricSeries {
        results[Platform.allCases.firstIndex(of: platform)!][RecipientResult.Status.allCases.firstIndex(of: status)!]
    }

    func provider(_ name: String) -> (inFlight: MetricSeries, duration: MetricSeries) {
        providers[name] ?? (registry.series(GatewayMetrics.providerInFlight, [name]), registry.series(GatewayMetrics.providerDuration, [name]))
    }
}
