import PayloadBuilder

/// What `/readyz` says, as gauges for alerting: `pushgw_ready` (1 or 0) and
/// `pushgw_provider_known_bad{provider}` (how many apps' providers are known
/// bad). Set from the readiness reasons just before each scrape, so the two
/// never disagree with `/readyz`; the series of every configured provider
/// exist from the start, at 0, so an alert sees them before the first
/// refusal.
struct ReadinessSeries: Sendable {
    private let ready: MetricSeries
    /// Per provider: its series, and the prefix of the known-bad entry of
    /// each app that has it.
    private let providers: [(series: MetricSeries, prefixes: [String])]

    /// `senders` lists, per app name, the providers it sends through.
    init(_ registry: MetricsRegistry, senders: [String: [Platform]]) {
        ready = registry.series(GatewayMetrics.ready)
        providers = Platform.allCases.compactMap { platform in
            let apps = senders.filter { $0.value.contains(platform) }.keys.sorted()
            guard !apps.isEmpty else { return nil }
            // `Dispatcher.providersKnownBad` writes "app provider: reason".
            return (registry.series(GatewayMetrics.providerKnownBad, [platform.rawValue]),
                    apps.map { "\($0) \(platform.rawValue): " })
        }
    }

    /// Sets the gauges from `/readyz`'s reasons (`reasons`, empty when
    /// ready) and the providers known bad among them (`knownBad`).
    func update(reasons: [String], knownBad: [String]) {
        ready.set(reasons.isEmpty ? 1 : 0)
        for provider in providers {
            // An app counted once however many entries start with its prefix.
            let bad = provider.prefixes.filter { prefix in knownBad.contains { $0.hasPrefix(prefix) } }
            provider.series.set(Double(bad.count))
        }
    }
}
