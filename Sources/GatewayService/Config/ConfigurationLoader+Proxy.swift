import NetworkSockets

/// The outbound proxy: one route for the provider connections, the OAuth
/// token exchange and avatar downloads.
extension ConfigurationLoader {
    /// The settings that may name the proxy, most binding first: the
    /// gateway's own variable, the file, then the conventional variables
    /// (upper case first, as Go reads them). `none` in the first one given
    /// means no proxy, whatever the later ones say.
    static let proxyURLSettings = ["PUSHGW_PROXY_URL", "proxy.url", "HTTPS_PROXY", "https_proxy"]
    /// The same for the hosts reached directly.
    static let noProxySettings = ["PUSHGW_NO_PROXY", "proxy.no_proxy", "NO_PROXY", "no_proxy"]

    func applyProxy(file: FileSettings, to configuration: inout GatewayConfiguration) throws(ServiceError) {
        let urls = Self.proxyURLSettings.compactMap { name in
            (name == "proxy.url" ? file.proxyURL : value(name)).map { (setting: name, value: $0) }
        }
        guard let (setting, url) = urls.first, url.lowercased() != "none" else {
            configuration.proxy = .direct
            configuration.proxySetting = urls.first?.setting
            return
        }
        let proxy: OutboundProxy
        do {
            proxy = try OutboundProxy(url: url)
        } catch {
            throw ServiceError(setting: setting, error.detail)
        }
        let bypass = Self.noProxySettings.lazy.compactMap { name in name == "proxy.no_proxy" ? file.noProxy : value(name) }.first
        configuration.proxy = ProxyRoute(proxy: proxy, bypass: bypass.map(ProxyBypassList.init) ?? .none)
        configuration.proxySetting = setting
        configuration.noProxyText = bypass
    }
}
