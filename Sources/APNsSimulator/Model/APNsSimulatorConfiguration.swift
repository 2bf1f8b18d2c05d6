/// Everything an `APNsSimulator` needs to know before it starts: who may
/// send (team, keys, topics), how it listens, and how strict it is.
///
/// A `Sendable` value; the running simulator keeps its own copy. Faults,
/// scripts, device registrations and the stream limit can be changed later
/// through the simulator itself.
public struct APNsSimulatorConfiguration: Sendable {
    /// The 10-character Team ID that every JWT's `iss` must equal.
    public var teamID: String
    /// Registered provider keys: Key ID (the JWT `kid`) → P-256 public key in
    /// PEM (`PUBLIC KEY`, or a `.p8` `PRIVATE KEY`, whose public half is used).
    public var keys: [String: String]
    /// The bundle IDs this team may push to. Each also admits its push-type
    /// suffixes (`.voip`, `.complication`, `.push-type.liveactivity`, …).
    public var topics: [String]
    /// Device tokens bound to a topic: a request for such a token under a
    /// different topic is answered `400 DeviceTokenNotForTopic`. Tokens not
    /// listed here are valid for every configured topic. Keys are hex tokens
    /// (compared case-insensitively).
    public var registeredDevices: [String: String]
    /// The TCP port on 127.0.0.1; `0` picks an ephemeral one (read it back
    /// from `APNsSimulator.port`).
    public var port: Int
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised to every connection.
    public var maxConcurrentStreams: Int
    /// Apple's token-auth behaviour (PROTOCOLS.md A6, the default): advertise
    /// only 1 stream until a request with a valid JWT arrives on the
    /// connection, then `maxConcurrentStreams`. A test that needs the full
    /// window from the first byte turns it off and says why.
    public var limitStreamsUntilAuthenticated: Bool
    /// At most this many connections at once; more are closed on accept.
    public var maxConnections: Int
    /// The certificates to serve; `nil` makes a new `ThrowawayPKI`.
    public var pki: ThrowawayPKI?
    /// Keep every accepted notification (headers and payload) in
    /// `APNsSimulatorStatistics.notifications`. Turn off for benchmarks:
    /// the counters and the apns-id list are kept either way.
    public var recordsNotifications: Bool
    /// Keep the apns-id of every accepted notification and a count per device
    /// token (for "nothing lost, nothing sent twice" checks). Turn off for
    /// long runs (the demo, soaks, benchmarks): both grow with every device.
    public var recordsAcceptedIDs: Bool
    /// Require the payload to be a JSON object with an `aps` object.
    /// Apple delivers nothing without one (Wallet passes excepted, hence the switch).
    public var requiresAPSDictionary: Bool
    /// A JWT whose `iat` is older than this many seconds is expired (Apple: 1 hour).
    public var providerTokenMaxAge: Double
    /// A new JWT sooner than this many seconds after the previous one on the
    /// same connection is refused (Apple: 20 minutes).
    public var providerTokenMinimumRefreshInterval: Double
    /// A JWT whose `iat` is further in the future than this is invalid.
    public var providerTokenAllowedClockSkew: Double
    /// How long a TLS handshake may take before the connection is closed.
    public var handshakeTimeout: Duration
    /// How long a connection may stay silent (no byte received: idle, or a
    /// request left unfinished) before the simulator sends GOAWAY and
    /// closes it, so idle clients cannot hold every `maxConnections` slot;
    /// `nil` never closes. APNs' GOAWAY carries `{"reason":"IdleTimeout"}`.
    public var idleTimeout: Duration?
    /// The time, as seconds since the UNIX epoch, used for JWT ages and
    /// refresh intervals. Tests inject a controllable clock.
    public var clock: @Sendable () -> Double

    /// A configuration with Apple's limits and the given credentials.
    public init(
        teamID: String,
        keys: [String: String],
        topics: [String],
        registeredDevices: [String: String] = [:],
        port: Int = 0,
        maxConcurrentStreams: Int = 1000,
        limitStreamsUntilAuthenticated: Bool = true,
        maxConnections: Int = 64,
        pki: ThrowawayPKI? = nil,
        recordsNotifications: Bool = true,
        recordsAcceptedIDs: Bool = true,
        requiresAPSDictionary: Bool = true,
        providerTokenMaxAge: Double = 3600,
        providerTokenMinimumRefreshInterval: Double = 1200,
        providerTokenAllowedClockSkew: Double = 300,
        handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration? = .seconds(300),
        clock: @escaping @Sendable () -> Double = APNsSimulatorConfiguration.systemClock
    ) {
        self.teamID = teamID
        self.keys = keys
        self.topics = topics
        self.registeredDevices = registeredDevices
        self.port = port
        self.maxConcurrentStreams = maxConcurrentStreams
        self.limitStreamsUntilAuthenticated = limitStreamsUntilAuthenticated
        self.maxConnections = maxConnections
        self.pki = pki
        self.recordsNotifications = recordsNotifications
        self.recordsAcceptedIDs = recordsAcceptedIDs
        self.requiresAPSDictionary = requiresAPSDictionary
        self.providerTokenMaxAge = providerTokenMaxAge
        self.providerTokenMinimumRefreshInterval = providerTokenMinimumRefreshInterval
        self.providerTokenAllowedClockSkew = providerTokenAllowedClockSkew
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }

    /// The real-time clock, in seconds since the UNIX epoch (the default `clock`).
    public static let systemClock: @Sendable () -> Double = { WallClock.now() }
}
