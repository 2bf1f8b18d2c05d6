import PayloadBuilder

/// The metric series the dispatcher updates for every event, looked up in
/// the registry once rather than per update.
struct DispatcherSeries: Sendable {
    enum Outcome: String, CaseIterable {
        case invalid, duplicate, delivered, failed
    }

    private let registry: MetricsRegistry
    private let outcomes: [Outcome: MetricSeries]
    private let results: [Platform: [RecipientResult.Status: MetricSeries]]
    private let providers: [String: (inFlight: MetricSeries, duration: MetricSeries)]

    init(_ registry: MetricsRegistry, providers names: [String]) {
        self.registry = registry
        outcomes = Dictionary(uniqueKeysWithValues: Outcome.allCases.map { ($0, registry.series(GatewayMetrics.events, [$0.rawValue])) })
        results = Dictionary(uniqueKeysWithValues: Platform.allCases.map { platform in
            (platform, Dictionary(uniqueKeysWithValues: RecipientResult.Status.allCases.map { status in
                (status, registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue]))
            }))
        })
        var providers: [String: (MetricSeries, MetricSeries)] = [:]
        for name in names {
            providers[name] = (registry.series(GatewayMetrics.providerInFlight, [name]),
                               registry.series(GatewayMetrics.providerDuration, [name]))
        }
        self.providers = providers
    }

    func events(_ outcome: Outcome) -> MetricSeries { outcomes[outcome]! }

    func notifications(_ platform: Platform, _ status: RecipientResult.Status) -> MetricSeries {
        results[platform]?[status] ?? registry.series(GatewayMetrics.notifications, [platform.rawValue, status.rawValue])
    }

    func provider(_ name: String) -> (inFlight: MetricSeries, duration: MetricSeries) {
        providers[name] ?? (registry.series(GatewayMetrics.providerInFlight, [name]), registry.series(GatewayMetrics.providerDuration, [name]))
    }
}
