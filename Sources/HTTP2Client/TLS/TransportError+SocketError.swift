import NetworkSockets

extension TransportError {
    /// The socket layer's failure to connect, as the HTTP/2 client reports
    /// it: a server that selected no ALPN protocol does not speak HTTP/2
    /// (`noHTTP2`), a proxy that refuses the tunnel is `proxyRefused` and one
    /// that fails it a connect failure (retryable), a setup failure is a
    /// protocol error, the rest keep their kind.
    init(_ error: SocketError, host: String?) {
        switch error.kind {
        case .connectFailed: self.init(.connectFailed, error.detail)
        case .certificateRejected: self.init(.certificateRejected, error.detail)
        case .proxyRefused: self.init(.proxyRefused, error.detail)
        case .proxyFailed: self.init(.connectFailed, error.detail)
        case .addressRefused: self.init(.addressRefused, error.detail)
        case .alpnRefused: self.init(.noHTTP2, "\(host ?? "the server") did not select HTTP/2 (ALPN h2)")
        default: self.init(.protocolError, error.detail)
        }
    }
}
