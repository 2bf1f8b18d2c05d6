/// How a `TLSClientContext` verifies servers and which application
/// protocols it offers.
public struct TLSClientSettings: Sendable {
    /// A PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// Verify the server's certificate chain and host name. Never off by default.
    public var verifyPeer: Bool
    /// The ALPN protocols to offer, most preferred first (`["h2"]` for
    /// HTTP/2). Empty: no ALPN extension, and none required of the server.
    /// When not empty, a server that selects none of them is refused.
    public var alpnProtocols: [String]
    /// The offered protocols the server must select; nil: any of them.
    /// Offering more than is accepted (`h2` and `http/1.1`, accepting `h2`)
    /// lets a server without HTTP/2 finish the handshake and be told apart
    /// (`alpnRefused`) from one that fails it.
    public var acceptedALPNProtocols: [String]?

    public init(caFile: String? = nil, verifyPeer: Bool = true, alpnProtocols: [String] = [],
                acceptedALPNProtocols: [String]? = nil) {
        self.caFile = caFile
        self.verifyPeer = verifyPeer
        self.alpnProtocols = alpnProtocols
        self.acceptedALPNProtocols = acceptedALPNProtocols
    }
}
