import GatewayHTTP
import PushGWSync

/// `pushgw_http_requests_total` by route and status: each pair's series is
/// looked up in the registry once, then found by a small cache keyed by one
/// integer (no label array, status string or string hash per request).
/// Created on first use, as the registry would, so `/metrics` shows only
/// pairs that happened.
final class HTTPRequestSeries: Sendable {
    /// The `route` labels; any other route shares the last slot's key.
    private static let routes = ["/v1/notify", "/v1/render", "/metrics", "/healthz", "/readyz", "other"]

    private let registry: MetricsRegistry
    /// Keyed by `key(route:status:)`; holds the route too, for a route outside `routes`.
    private let cache = Locked<[Int: [(route: String, series: MetricSeries)]]>([:])

    init(registry: MetricsRegistry) {
        self.registry = registry
    }

    func count(route: String, status: Int) {
        let key = Self.key(route: route, status: status)
        if let series = cache.withLock({ $0[key]?.first { $0.route == route }?.series }) { return series.add(1) }
        let series = registry.series(GatewayMetrics.httpRequests, [route, String(status)])
        cache.withLock { cache in
            if cache[key]?.contains(where: { $0.route == route }) != true { cache[key, default: []].append((route, series)) }
        }
        series.add(1)
    }

    /// The route's place in `routes` (the last for any other) and the status, in one integer.
    private static func key(route: String, status: Int) -> Int {
        let index = routes.firstIndex(of: route) ?? routes.count - 1
        return index << 32 | (status & 0xFFFF_FFFF)
    }
}
