import NetworkSockets

/// TLS settings for provider connections. Certificate verification is on
/// unless a test explicitly turns it off.
public struct TLSConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// Verify the server's certificate chain and host name. Never off by default.
    public var verifyPeer: Bool

    public init(caFile: String? = nil, verifyPeer: Bool = true) {
        self.caFile = caFile
        self.verifyPeer = verifyPeer
    }
}

extension TLSClientContext {
    /// The client context of HTTP/2 connections: these settings, ALPN `h2` only.
    static func http2(_ configuration: TLSConfiguration) throws(TransportError) -> TLSClientContext {
        do throws(SocketError) {
            return try TLSClientContext(TLSClientSettings(caFile: configuration.caFile, verifyPeer: configuration.verifyPeer,
                                                          alpnProtocols: ["h2"]))
        } catch {
            throw TransportError(error, host: nil)
        }
    }
}
