import NetworkSockets

/// TLS settings for provider connections. Certificate verification is on
/// unless a test explicitly turns it off.
public struct TLSConfiguration: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// Verify the server's certificate chain and host name. Never off by default.
    public var verifyPeer: Bool
    /// Offer `http/1.1` by ALPN after `h2` (still requiring `h2`), so that a
    /// server without HTTP/2 completes the handshake by choosing HTTP/1.1
    /// and is reported as `noHTTP2`, not as a failed connect: for a client
    /// that falls back to HTTP/1.1 (web push). Off: `h2` only.
    public var offersHTTP11: Bool

    public init(caFile: String? = nil, verifyPeer: Bool = true, offersHTTP11: Bool = false) {
        self.caFile = caFile
        self.verifyPeer = verifyPeer
        self.offersHTTP11 = offersHTTP11
    }
}

extension TLSClientContext {
    /// The client context of HTTP/2 connections: these settings, ALPN `h2`
    /// required (and `http/1.1` offered after it when asked).
    static func http2(_ configuration: TLSConfiguration) throws(TransportError) -> TLSClientContext {
        do throws(SocketError) {
            return try TLSClientContext(TLSClientSettings(caFile: configuration.caFile, verifyPeer: configuration.verifyPeer,
                                                          alpnProtocols: configuration.offersHTTP11 ? ["h2", "http/1.1"] : ["h2"],
                                                          acceptedALPNProtocols: ["h2"]))
        } catch {
            throw TransportError(error, host: nil)
        }
    }
}
