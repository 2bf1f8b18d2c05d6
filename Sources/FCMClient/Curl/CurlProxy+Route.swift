package import Curl
package import NetworkSockets

extension CurlProxy {
    /// The proxy `route` gives for `host`, as libcurl is told it; nil: direct.
    package init?(route: ProxyRoute, host: String) {
        guard let proxy = route.proxy(for: host) else { return nil }
        self.init(host: proxy.host, port: proxy.port, username: proxy.username, password: proxy.password)
    }
}
