/// Everything an `FCMSimulator` needs before it starts: the project, the
/// service accounts whose assertions its token endpoint accepts, how it
/// listens, and its clock.
///
/// A `Sendable` value; the running simulator keeps its own copy. Scripts,
/// faults, the access-token lifetime and the token endpoint's availability
/// can be changed later through the simulator itself.
public struct FCMSimulatorConfiguration: Sendable {
    /// The project id that `messages:send` paths must name.
    public var projectID: String
    /// The project number, also accepted in paths (Google takes either).
    public var projectNumber: String?
    /// The service accounts the token endpoint knows (`iss` → public key).
    public var serviceAccounts: [FCMSimulatorServiceAccount]
    /// The TCP port on 127.0.0.1; `0` picks an ephemeral one.
    public var port: Int
    /// `expires_in` of new access tokens, in seconds (Google: 3599).
    public var accessTokenLifetime: Int
    /// An assertion whose `iat` is further ahead than this many seconds is
    /// refused (default 60, for clocks slightly apart); one whose `exp` has
    /// passed is refused whatever the skew.
    public var allowedClockSkew: Double
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` advertised to every connection.
    public var maxConcurrentStreams: Int
    /// At most this many connections at once; more are closed on accept.
    public var maxConnections: Int
    /// The certificates to serve; `nil` makes a new `ThrowawayPKI`.
    public var pki: ThrowawayPKI?
    /// Keep every accepted message (target, name, body) in
    /// `FCMSimulatorStatistics.messages`, with the per-token counts and
    /// message names. Turn off for long runs: they grow with every message.
    /// The totals are kept either way.
    public var recordsMessages: Bool
    /// How long a TLS handshake may take before the connection is closed.
    public var handshakeTimeout: Duration
    /// How long a connection may stay silent (no byte received: idle, or a
    /// request left unfinished) before the simulator sends GOAWAY and
    /// closes it, so idle clients cannot hold every `maxConnections` slot;
    /// `nil` never closes. APNs' GOAWAY carries `{"reason":"IdleTimeout"}`.
    public var idleTimeout: Duration?
    /// The time, as seconds since the UNIX epoch, for JWT and access-token
    /// ages. Tests inject a controllable clock.
    public var clock: @Sendable () -> Double

    /// A configuration with Google's limits for `projectID` and `serviceAccounts`.
    public init(
        projectID: String,
        projectNumber: String? = nil,
        serviceAccounts: [FCMSimulatorServiceAccount],
        port: Int = 0,
        accessTokenLifetime: Int = 3599,
        allowedClockSkew: Double = 60,
        maxConcurrentStreams: Int = 1000,
        maxConnections: Int = 64,
        pki: ThrowawayPKI? = nil,
        recordsMessages: Bool = true,
        handshakeTimeout: Duration = .seconds(10),
        idleTimeout: Duration? = .seconds(300),
        clock: @escaping @Sendable () -> Double = APNsSimulatorConfiguration.systemClock
    ) {
        self.projectID = projectID
        self.projectNumber = projectNumber
        self.serviceAccounts = serviceAccounts
        self.port = port
        self.accessTokenLifetime = accessTokenLifetime
        self.allowedClockSkew = allowedClockSkew
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxConnections = maxConnections
        self.pki = pki
        self.recordsMessages = recordsMessages
        self.handshakeTimeout = handshakeTimeout
        self.idleTimeout = idleTimeout
        self.clock = clock
    }
}
