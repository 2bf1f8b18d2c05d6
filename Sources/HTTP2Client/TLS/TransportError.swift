public import EventLoops
/// Why a request did not get an HTTP response from the provider.
///
/// Every case says whether the request may have been processed by the
/// server: `wasNotProcessed` requests are safe to send again on another
/// connection (never reached the server, or refused by GOAWAY); others may
/// have been delivered and are retryable only where the caller accepts a
/// possible duplicate (APNs collapse ids make a duplicate replace, not double).
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, as an open set.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// DNS, TCP connect or TLS handshake failed; nothing was sent.
        public static let connectFailed = Kind("connect_failed")
        /// The HTTP proxy refused the tunnel (407: credentials, 403: its
        /// policy); nothing was sent. Configuration: not retried.
        public static let proxyRefused = Kind("proxy_refused")
        /// The host resolved only to addresses the client's address rule
        /// refuses (`HTTP2ConnectionOptions.admitsAddress`): nothing was sent.
        public static let addressRefused = Kind("address_refused")
        /// The server does not speak HTTP/2 (ALPN did not select h2).
        public static let noHTTP2 = Kind("no_http2")
        /// The peer's certificate did not verify.
        public static let certificateRejected = Kind("certificate_rejected")
        /// The stream was refused or above a GOAWAY's last stream id: not processed.
        public static let refused = Kind("refused")
        /// The request was queued but never sent before the connection ended.
        public static let notSent = Kind("not_sent")
        /// The connection died while the request was in flight.
        public static let connectionLost = Kind("connection_lost")
        /// No response within the request's timeout.
        public static let timeout = Kind("timeout")
        /// Too many requests waiting: back-pressure. Retry later.
        public static let overloaded = Kind("overloaded")
        /// The client was shut down.
        public static let shutdown = Kind("shutdown")
        /// The request's credentials could not be made (e.g. signing failed).
        public static let credentials = Kind("credentials")
        /// Credentials could not be had for now (an OAuth token endpoint is
        /// down): nothing was sent; retry later.
        public static let accessTokenUnavailable = Kind("access_token_unavailable")
        /// A protocol or library error (nghttp2, OpenSSL).
        public static let protocolError = Kind("protocol_error")
    }

    public let kind: Kind
    public let detail: String
    /// How long to wait before trying again, when known: a retry sooner
    /// would meet the same failure without reaching the provider (an OAuth
    /// token endpoint holding off grants after a failure).
    public var retryAfter: Duration?

    public init(_ kind: Kind, _ detail: String, retryAfter: Duration? = nil) {
        self.kind = kind
        self.detail = detail
        self.retryAfter = retryAfter
    }

    /// True when the server certainly did not process the request.
    public var wasNotProcessed: Bool {
        [.connectFailed, .noHTTP2, .certificateRejected, .proxyRefused, .addressRefused, .refused, .notSent, .overloaded, .credentials,
         .accessTokenUnavailable].contains(kind)
    }

    /// True when trying again later may succeed (configuration errors are not).
    public var isRetryable: Bool {
        ![.noHTTP2, .certificateRejected, .proxyRefused, .shutdown, .protocolError, .credentials, .addressRefused].contains(kind)
    }

    public var description: String { "\(kind): \(detail)" }
}

extension TransportError {
    /// An event loop for connections could not be made.
    public init(_ error: EventLoopError) {
        self.init(.protocolError, error.description)
    }
}
