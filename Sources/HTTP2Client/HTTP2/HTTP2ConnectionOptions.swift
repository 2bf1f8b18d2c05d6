public import NetworkSockets

/// Tunables of one HTTP/2 client connection. Defaults suit APNs and FCM.
public struct HTTP2ConnectionOptions: Sendable {
    /// DNS + TCP + TLS handshake budget (the proxy's `CONNECT` included).
    public var connectTimeout: Duration = .seconds(10)
    /// Direct, or through an HTTP proxy's `CONNECT` tunnel (TLS and ALPN
    /// end to end): only the connect differs, requests are the same.
    public var route: ProxyRoute = .direct
    /// Most requests waiting for a stream slot; beyond it `send` fails with
    /// `overloaded` (retryable) instead of growing memory.
    public var maximumQueued = 8192
    /// Our own cap on concurrent streams, below the peer's SETTINGS value.
    public var maximumConcurrentStreams = 1000
    /// Send a PING after this long without any frame from the server.
    public var idlePingInterval: Duration = .seconds(60)
    /// A PING unanswered this long means the connection is dead.
    public var pingTimeout: Duration = .seconds(10)
    /// Larger response bodies are cut here (provider errors are small).
    public var maximumResponseBody = 64 * 1024
    /// Response headers to keep (lowercase names); nil keeps all. Keeping only
    /// what the client reads (APNs: `apns-id`, `retry-after`) saves a string
    /// allocation per header per response.
    public var keptResponseHeaders: [String]? {
        didSet { keptHeaderBytes = keptResponseHeaders?.map { Array($0.utf8) } }
    }
    /// `keptResponseHeaders` as bytes, compared without allocating.
    private(set) var keptHeaderBytes: [[UInt8]]?
    /// Request headers whose value changes from one request to the next
    /// (APNs: `apns-id`, `apns-expiration`, `apns-collapse-id`), sent as HPACK
    /// literals kept out of the dynamic table (never indexed), like `:path`
    /// and `authorization`. Indexing them would only push the repeated
    /// headers (`apns-topic`, …) out of both sides' tables.
    public var unindexedRequestHeaders: [String] = [] {
        didSet { unindexedHeaderBytes = unindexedRequestHeaders.map { Array($0.utf8) } }
    }
    /// `unindexedRequestHeaders` as bytes, compared without allocating.
    private(set) var unindexedHeaderBytes: [[UInt8]] = []
    /// Request headers sent with incremental indexing the first time on a
    /// connection, so that the name enters both sides' HPACK tables, and
    /// never indexed after, the name then a reference into the table (a
    /// byte or two instead of its text). APNs asks so for `apns-id`,
    /// `apns-expiration` and `apns-collapse-id` (PROTOCOLS.md A1). Not for a
    /// secret: its first value would be kept in the server's table.
    public var requestHeadersIndexedOnce: [String] = [] {
        didSet { indexedOnceHeaderBytes = requestHeadersIndexedOnce.map { Array($0.utf8) } }
    }
    /// `requestHeadersIndexedOnce` as bytes.
    private(set) var indexedOnceHeaderBytes: [[UInt8]] = []

    /// Asked about every response whose status is not 200: true ends the
    /// connection that carried it gracefully (no new streams; the open ones
    /// finish; its pool opens a fresh one). APNs asks for a new connection
    /// after some answers (`UnrelatedKeyIdInToken`, `IdleTimeout`, `Shutdown`).
    public var retiresConnection: (@Sendable (HTTP2Response) -> Bool)?

    /// Told the time of every answered request (any status), from `send`
    /// until its complete response, its wait for a stream slot and the
    /// pool's resends of it when a connection had not processed it included:
    /// for a latency histogram. Runs on the connection's event-loop thread, so it
    /// must be quick and must not block. A request that got no answer
    /// (timeout, reset, lost connection) is not timed: it fails instead.
    public var timesAnswer: (@Sendable (Duration) -> Void)?

    /// Asked after DNS about each address a connection is about to be made
    /// to (network-order bytes, 4 for IPv4, 16 for IPv6): false skips it,
    /// and a host none of whose addresses is admitted fails the connect
    /// with `addressRefused` (an SSRF guard for origins the caller did not
    /// choose, such as web push endpoints). Nil: every address.
    public var admitsAddress: (@Sendable ([UInt8]) -> Bool)?

    /// Streams opened before the server's first SETTINGS say how many it
    /// takes: 1, as APNs allows until it has seen a valid token (nghttp2
    /// would assume 100). Tests raise it to act as a client that does not wait.
    var streamsBeforeSettings: UInt32 = 1

    public init() {}
}
