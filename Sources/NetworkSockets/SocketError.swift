/// Why a socket could not be opened: the resolve, the TCP connect, the
/// proxy's tunnel, the TLS handshake or the TLS setup. A read or write failure is not thrown but
/// answered as a `SocketIOResult`; the protocol above the socket (HTTP/2,
/// RESP) maps both into its own error type.
public struct SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an open set.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// DNS, TCP connect or TLS handshake failed, or did not finish in
        /// time; nothing was sent. Trying again later may succeed.
        public static let connectFailed = Kind("connect_failed")
        /// The peer's certificate did not verify, or the CA file could not
        /// be loaded: configuration, not chance.
        public static let certificateRejected = Kind("certificate_rejected")
        /// Every address the host resolved to was refused by the caller's
        /// address rule (an SSRF guard): nothing was connected to.
        public static let addressRefused = Kind("address_refused")
        /// The server selected none of the ALPN protocols asked for.
        public static let alpnRefused = Kind("alpn_refused")
        /// OpenSSL could not set up the context or the session (memory, a
        /// setting it refused).
        public static let setupFailed = Kind("setup_failed")
        /// The HTTP proxy answered `CONNECT` with a 4xx: it wants other
        /// credentials (407) or does not allow the target (403). Nothing
        /// reached the target; configuration, not chance.
        public static let proxyRefused = Kind("proxy_refused")
        /// The HTTP proxy could not open the tunnel: it answered 5xx (it
        /// could not reach the target), closed the connection, answered
        /// something else than HTTP, or not in time. Nothing reached the
        /// target; trying again later may succeed.
        public static let proxyFailed = Kind("proxy_failed")
    }

    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind): \(detail)" }
}
