package import Curl

/// The outbound proxy's route in libcurl's terms, for the transfers that go
/// through libcurl (the OAuth exchange, avatars, web push over HTTP/1.1).
extension CurlProxy {
    /// The proxy `route` gives for `host`, as libcurl is told it; nil: direct.
    package init?(route: ProxyRoute, host: String) {
        guard let proxy = route.proxy(for: host) else { return nil }
        self.init(host: proxy.host, port: proxy.port, username: proxy.username, password: proxy.password)
    }
}
