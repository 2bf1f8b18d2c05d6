/// What the shared TLS + HTTP/2 server machinery (`SimulatorServer`,
/// `AcceptLoop`, `ServerConnection`) needs from the provider it simulates:
/// the certificates, the connection-level faults and stream limit, the
/// counters it bumps, and a request handler for each new connection.
///
/// The APNs simulator (`SimulatorCore`), the FCM simulator
/// (`FCMSimulatorCore`) and the web push simulator (`WebPushSimulatorCore`)
/// each implement it; the socket, TLS, nghttp2 and fault code is the same
/// for all three.
///
/// Implementations are shared by every connection thread and the public API,
/// so they are `Sendable` (immutable values plus a `Mutex`).
protocol HTTP2Service: Sendable {
    /// The certificates every connection serves.
    var pki: ThrowawayPKI { get }
    /// What the connections speak: HTTP/2 (ALPN `h2`), or HTTP/1.1 (ALPN
    /// `http/1.1` or none) with each request handed to the same handler.
    var applicationProtocol: ApplicationProtocol { get }
    /// How long a TLS handshake may take before the connection is closed.
    var handshakeTimeout: Duration { get }
    /// The connection-level faults in force (read once per completed request).
    var faults: APNsSimulatorFaults { get }
    /// The SETTINGS_MAX_CONCURRENT_STREAMS the service wants now.
    var maxConcurrentStreams: Int { get }
    /// The debug data of the GOAWAY frame sent by `goAwayAfterStreams`.
    var goAwayDebugData: [UInt8] { get }
    /// How long a connection may go without receiving a byte before it is
    /// sent GOAWAY (`idleGoAwayDebugData`) and closed; `nil`: never. Covers
    /// an idle connection and a request that was never finished alike.
    var idleTimeout: Duration? { get }
    /// The debug data of the idle-timeout GOAWAY.
    var idleGoAwayDebugData: [UInt8] { get }
    /// A request opening a stream beyond the advertised limit before the
    /// client acknowledged it (nghttp2 refuses those one by one): the debug
    /// data of the GOAWAY that ends the connection instead, as APNs does;
    /// nil keeps nghttp2's per-stream refusal.
    var streamLimitGoAwayDebugData: [UInt8]? { get }

    /// Counts a new TCP connection and returns its 1-based number.
    func connectionAccepted() -> Int
    /// A connection was closed because the handshake or ALPN failed.
    func recordRefused()
    /// A connection was dropped by the `dropConnectionAfterStreams` fault.
    func recordDropped()
    /// A GOAWAY was sent by the `goAwayAfterStreams` fault, or for a stream beyond the limit.
    func recordGoAway()
    /// `count` requests were received and will never be answered.
    func recordUnanswered(_ count: Int)
    /// The `widensWindowOnlyWhenUsedUp` fault widened a connection's window
    /// the client had used up.
    func recordWindowWidenedWhenUsedUp()

    /// A new handler for the requests of connection `number`, used by that
    /// connection's thread only.
    func makeHandler(connection number: Int) -> any HTTP2RequestHandler
}

extension HTTP2Service {
    /// HTTP/2, unless a service says otherwise.
    var applicationProtocol: ApplicationProtocol { .http2 }
}

/// The protocol a simulator's connections speak after the TLS handshake.
enum ApplicationProtocol: Sendable {
    case http2
    case http11
}

/// Answers the complete requests of one connection. Thread-confined: created,
/// called and released by the connection's thread, so it may keep
/// per-connection state (APNs: the provider token in use) without a lock.
protocol HTTP2RequestHandler: AnyObject {
    /// The SETTINGS_MAX_CONCURRENT_STREAMS to advertise on this connection,
    /// given the service-wide limit.
    func streamLimit(serviceLimit: Int) -> Int

    /// The answer to one complete request (validated, scripted, recorded).
    func answer(_ request: ReceivedRequest, streamID: Int32) -> HTTP2Answer
}

/// One response: `:status`, further header fields, and a body (may be empty).
struct HTTP2Answer {
    var status: Int
    /// Header fields after `:status`, lowercase names.
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// True when answering may have changed `streamLimit(serviceLimit:)`
    /// (APNs: the first valid JWT on a connection).
    var streamLimitMayHaveChanged = false

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [],
         streamLimitMayHaveChanged: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.streamLimitMayHaveChanged = streamLimitMayHaveChanged
    }
}
