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
    private let cache = Locked(Cache())

    /// The series found so far, and the last one counted.
    private struct Cache {
        /// Keyed by `key(route:status:)`; holds the route too, for a route outside `routes`.
        var series: [Int: [(route: String, series: MetricSeries)]] = [:]
        /// The pair counted last and its series: the next answer is usually
        /// to the same route with the same status, found without hashing.
        var last: (key: Int, route: String, series: MetricSeries)?
    }

    init(registry: MetricsRegistry) {
        self.registry = registry
    }

    func count(route: String, status: Int) {
        let key = Self.key(route: route, status: status)
        let cached = cache.withLock { cache -> MetricSeries? in
            if let last = cache.last, last.key == key, last.route == route { return last.series }
            guard let series = cache.series[key]?.first(where: { $0.route == route })?.series else { return nil }
            cache.last = (key, route, series)
            return series
        }
        if let cached { return cached.add(1) }
        let series = registry.series(GatewayMetrics.httpRequests, [route, String(status)])
        cache.withLock { cache in
            if cache.series[key]?.contains(where: { $0.route == route }) != true { cache.series[key, default: []].append((route, series)) }
        }
        series.add(1)
    }

    /// The route's place in `routes` (the last for any other) and the status, in one integer.
    private static func key(route: String, status: Int) -> Int {
        let index = routes.firstIndex(of: route) ?? routes.count - 1
        return index << 32 | (status & 0xFFFF_FFFF)
    }
}
