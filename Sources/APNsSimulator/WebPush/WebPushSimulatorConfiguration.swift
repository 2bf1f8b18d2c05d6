/// Everything a `WebPushSimulator` needs before it starts: how it listens,
/// its limits, and its clock.
///
/// A `Sendable` value; the running simulator keeps its own copy.
/// Subscriptions, scripts and faults are managed through the simulator.
public struct WebPushSimulatorConfiguration: Sendable {
    /// The TCP port on 127.0.0.1; `0` picks an ephemeral one.
    public var port: Int
    /// The largest body accepted, in bytes; larger is 413. RFC 8291 §4 asks
    /// push services for at least 4096 bytes, and 4096 is what Mozilla's,
    /// Google's and Apple's services take.
    public var maxBodySize: Int
    /// How far ahead a VAPID JWT's `exp` may be, in seconds (RFC 8292 §2: 24 hours).
    public var maxJWTLifetime: Double
    /// Serve HTTP/1.1 instead of HTTP/2: ALPN `http/1.1` (a client offering
    /// only `h2` fails the handshake; one offering nothing is served
    /// HTTP/1.1), requests read strictly (`HTTP1RequestReader`), as a push
    /// service without HTTP/2 would; for a sender's HTTP/1.1 fallback.
    public var servesHTTP11: Bool
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised to every connection.
    public var maxConcurrentStreams: Int
    /// At most this many connections at once; more are closed on accept.
    public var maxConnections: Int
    /// The certificates to serve; `nil` makes a new `ThrowawayPKI`.
    public var pki: ThrowawayPKI?
    /// Keep every accepted message (plaintext, headers, arrival) in
    /// `WebPushSimulatorStatistics.messages`. Turn off for long runs; the
    /// counts are kept either way.
    public var recordsMessages: Bool
    /// How long a TLS handshake may take before the connection is closed.
    public var handshakeTimeout: Duration
    /// How long a connection may stay silent before it is sent GOAWAY and
    /// closed; `nil` never closes.
    public var idleTimeout: Duration?
    /// The time, as seconds since the UNIX epoch, for JWT expiry and the
    /// messages' arrival. Tests inject a controllable clock.
    public var clock: @Sendable () -> Double

    /// A configuration with the push services' limits.
    public init(
        port: Int = 0,
        maxBodySize: Int = 4096,
        maxJWTLifetime: Double = 86_400,
        servesHTTP11: Bool = false,
        maxConcurrentStreams: Int = 100,
        maxConnections: Int = 64,
        pki: ThrowawayPKI? = nil,
        recordsMessages: Bool = true,
        handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration? = .seconds(300),
        clock: @escaping @Sendable () -> Double = APNsSimulatorConfiguration.systemClock
    ) {
        self.port = port
        self.maxBodySize = maxBodySize
        self.maxJWTLifetime = maxJWTLifetime
        self.servesHTTP11 = servesHTTP11
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxConnections = maxConnections
        self.pki = pki
        self.recordsMessages = recordsMessages
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }
}
