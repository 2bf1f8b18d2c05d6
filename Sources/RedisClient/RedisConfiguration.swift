/// How a `RedisConnection` reaches its server and how long it waits.
public struct RedisConfiguration: Sendable {
    /// Server, TLS or not, credentials and database.
    public var url: RedisURL
    /// For `rediss://`: a PEM file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// For `rediss://`: verify the server's certificate and name. Never off by default.
    public var verifyPeer: Bool
    /// DNS, TCP and TLS, then AUTH and SELECT, must be done within this.
    public var connectTimeout: Duration
    /// The deadline of a command sent without one, from when it is sent.
    public var commandTimeout: Duration
    /// The wait before reconnecting after the first failure; it doubles
    /// with each failure in a row, up to `maximumReconnectDelay`.
    public var reconnectDelay: Duration
    public var maximumReconnectDelay: Duration
    /// Commands queued or in flight at once; more fail with `overloaded`.
    public var maximumPending: Int
    /// The largest replies accepted.
    public var parserLimits: RESPParserLimits

    public init(url: RedisURL, caFile: String? = nil, verifyPeer: Bool = true, connectTimeout: Duration = .seconds(2),
                commandTimeout: Duration = .seconds(1), reconnectDelay: Duration = .milliseconds(50),
                maximumReconnectDelay: Duration = .seconds(2), maximumPending: Int = 100_000,
                parserLimits: RESPParserLimits = RESPParserLimits()) {
        self.url = url
        self.caFile = caFile
        self.verifyPeer = verifyPeer
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.reconnectDelay = reconnectDelay
        self.maximumReconnectDelay = maximumReconnectDelay
        self.maximumPending = maximumPending
        self.parserLimits = parserLimits
    }
}
