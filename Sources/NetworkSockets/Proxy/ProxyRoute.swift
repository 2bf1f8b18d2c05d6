/// Where outbound connections to providers go: directly, or through one
/// HTTP proxy except for the hosts of a bypass list. One value decides for
/// the HTTP/2 connections (APNs, FCM) and the libcurl transfers (OAuth,
/// avatars).
public struct ProxyRoute: Sendable, Equatable {
    /// The proxy; nil: every connection is direct.
    public var proxy: OutboundProxy?
    /// Hosts reached directly although there is a proxy (`NO_PROXY`).
    public var bypass: ProxyBypassList

    /// Every connection direct.
    public static let direct = ProxyRoute(proxy: nil)

    public init(proxy: OutboundProxy?, bypass: ProxyBypassList = .none) {
        self.proxy = proxy
        self.bypass = bypass
    }

    /// The proxy to reach `host` through, or nil to connect directly.
    public func proxy(for host: String) -> OutboundProxy? {
        guard let proxy, !bypass.bypasses(host) else { return nil }
        return proxy
    }
}
