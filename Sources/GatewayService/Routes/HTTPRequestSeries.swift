import GatewayHTTP
import PushGWSync

/// `pushgw_http_requests_total` by route and status: each pair's series is
/// looked up in the registry once, then found by a small keyed cache (no
/// label array or status string built per request). Created on first use,
/// as the registry would, so `/metrics` shows only pairs that happened.
final class HTTPRequestSeries: Sendable {
    private struct Key: Hashable {
        let route: String
        let status: Int
    }

    private let registry: MetricsRegistry
    private let cache = Locked<[Key: MetricSeries]>([:])

    init(registry: MetricsRegistry) {
        self.registry = registry
    }

    /// Counts one request answered on `route` with `status`.
    func count(route: String, status: Int) {
        let key = Key(route: route, status: status)
        if let series = cache.withLock({ $0[key] }) { return series.add(1) }
        let series = registry.series(GatewayMetrics.httpRequests, [route, String(status)])
        cache.withLock { $0[key] = series }
        series.add(1)
    }
}
