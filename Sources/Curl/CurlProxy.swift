/// An HTTP proxy for one transfer, which libcurl reaches with a `CONNECT`
/// tunnel for `https://` and `http://` alike (`CURLOPT_HTTPPROXYTUNNEL`),
/// with Basic credentials when there are some. The caller decides whether a
/// transfer goes through the proxy (its own `NO_PROXY` reading); libcurl's
/// proxy environment variables are never read.
package struct CurlProxy: Sendable, Equatable, CustomStringConvertible {
    package var host: String
    package var port: Int
    package var username: String?
    package var password: String?

    package init(host: String, port: Int, username: String? = nil, password: String? = nil) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
    }

    /// The URL, never the password.
    package var description: String { url }

    /// `http://host:port`, without credentials (they go in their own options,
    /// so no escaping is needed and the URL can be shown).
    var url: String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }
}
