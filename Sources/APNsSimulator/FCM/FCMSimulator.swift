/// A strict FCM HTTP v1 server, with Google's OAuth 2.0 token endpoint, on
/// 127.0.0.1 — for tests (in process) and the no-credentials demo.
///
/// It speaks HTTP/2 over TLS 1.2+ with ALPN `h2` only (the same server core
/// as `APNsSimulator`) and serves a `ThrowawayPKI` certificate. Two endpoints:
///
/// - `POST /token` (`tokenURI`): the JWT-bearer grant. The RS256 assertion
///   must verify under a registered service account's key, with `iss` its
///   `client_email`, `aud` the token URI, a firebase.messaging (or
///   cloud-platform) scope and `exp - iat <= 3600`. Answers
///   `{"access_token","expires_in":3599,"token_type":"Bearer"}` with a fresh
///   random token whose expiry it remembers, or 400 `{"error","error_description"}`
///   as Google does (see `OAuthGrantVerifier`).
/// - `POST /v1/projects/{project}/messages:send`: strict like Google (see
///   `FCMRequestHandler`, `FCMSendScanner`, `FCMMessageValidator`); errors
///   in Google's shape, `{"error":{"code","message","status","details"}}`.
///
/// Choices where Google's behaviour is not documented: errors raised while
/// Google parses the JSON (unknown field, wrong type, bad enum or duration)
/// carry only a `google.rpc.BadRequest` detail, as observed from Google;
/// FCM's own refusals carry the FcmError detail. `validate_only` answers
/// `projects/{p}/messages/fake_message_id`, as Google's dry runs do.
///
/// Fault injection: per-token scripts (`script`, `always`), the token
/// endpoint down and back (`setTokenEndpointDown`), shorter access-token
/// lifetimes and immediate expiry (to test refresh), and the connection
/// faults of `APNsSimulatorFaults`. `statistics` counts grants, accepted
/// messages per token and rejections per error code.
///
/// Threads: one accept thread and one per connection; `stop()` joins them
/// all and `deinit` calls it. Every method is thread-safe.
public final class FCMSimulator: Sendable {
    /// The configuration it was created with.
    public let configuration: FCMSimulatorConfiguration
    /// The certificates it serves; give `pki.caPEM` to clients.
    public let pki: ThrowawayPKI

    private let core: FCMSimulatorCore
    private let server: SimulatorServer

    /// Creates a stopped simulator. Makes a `ThrowawayPKI` unless the
    /// configuration brings one, and checks that every service account has
    /// an RSA key.
    public init(configuration: FCMSimulatorConfiguration) throws(APNsSimulatorError) {
        for account in configuration.serviceAccounts {
            let key = try OwnedKey.publicKey(pem: account.publicKeyPEM)
            guard key.isRSA else {
                throw APNsSimulatorError(operation: "serviceAccounts[\(account.clientEmail)]", detail: "not an RSA (RS256) key")
            }
        }
        self.configuration = configuration
        if let given = configuration.pki { pki = given } else { pki = try ThrowawayPKI() }
        core = FCMSimulatorCore(configuration: configuration, pki: pki)
        server = SimulatorServer(service: core, port: configuration.port, maxConnections: configuration.maxConnections)
    }

    deinit { stop() }

    /// Binds 127.0.0.1 and starts accepting. Throws when the port is taken,
    /// the TLS context cannot be built, or it was already started.
    public func start() throws(APNsSimulatorError) {
        try server.start()
        core.port = server.port
    }

    /// Stops accepting, closes every connection, and joins all threads.
    /// Idempotent; a stopped simulator cannot be started again.
    public func stop() { server.stop() }

    /// The bound port (0 until started).
    public var port: Int { server.port }

    /// `https://127.0.0.1:<port>`, the FCM base URL for clients.
    public var url: String { "https://127.0.0.1:\(port)" }

    /// `https://127.0.0.1:<port>/token`: the `token_uri` to put in the
    /// service-account JSON, and the `aud` every assertion must carry.
    public var tokenURI: String { "\(url)\(FCMSimulatorCore.tokenPath)" }

    /// The CA certificate (PEM) clients must trust.
    public var caPEM: String { pki.caPEM }

    /// Writes the CA certificate to `path`, for clients that take a CA file.
    public func writeCA(to path: String) throws(APNsSimulatorError) { try pki.writeCA(to: path) }

    /// Connections currently open.
    public var openConnections: Int { server.openConnections }

    // MARK: Faults and scripts

    /// The connection-level faults in force (GOAWAY, drop, delay, silence).
    public var faults: APNsSimulatorFaults { core.faults }

    /// Replaces the connection-level faults; applies from the next request.
    public func setFaults(_ faults: APNsSimulatorFaults) { core.faults = faults }

    /// Answers the next valid messages to `token` with `responses`, in
    /// order, then every later one with `thereafter` (or success when `nil`).
    /// Invalid requests are answered by validation and do not use up the script.
    public func script(token: String, responses: [FCMSimulatorResponse], thereafter: FCMSimulatorResponse? = nil) {
        core.script(token: token, responses: responses, thereafter: thereafter)
    }

    /// Answers every valid message to `token` with `response`.
    public func always(token: String, _ response: FCMSimulatorResponse) {
        core.script(token: token, responses: [], thereafter: response)
    }

    /// Removes the script of `token`, or of every token when `nil`.
    public func clearScript(token: String? = nil) { core.clearScript(token: token) }

    /// Sets the token endpoint down (every grant answered 503, with
    /// `Retry-After` when given) or back up.
    public func setTokenEndpointDown(_ down: Bool, retryAfter: Int? = nil) {
        core.setTokenEndpointDown(down, retryAfter: retryAfter)
    }

    /// The lifetime (`expires_in`, seconds) of access tokens issued from now on.
    public var accessTokenLifetime: Int { core.accessTokenLifetime }

    /// Changes the lifetime of access tokens issued from now on (at least 1 s).
    public func setAccessTokenLifetime(_ seconds: Int) { core.accessTokenLifetime = seconds }

    /// Makes every access token issued so far invalid at once: the next
    /// message carrying one is answered 401 UNAUTHENTICATED.
    public func expireAccessTokens() { core.expireAccessTokens() }

    /// Changes SETTINGS_MAX_CONCURRENT_STREAMS for every connection.
    public func setMaxConcurrentStreams(_ limit: Int) {
        core.maxConcurrentStreams = max(0, limit)
        server.wakeConnections()
    }

    // MARK: Statistics

    /// What the simulator has counted so far.
    public var statistics: FCMSimulatorStatistics { core.statistics }

    /// Zeroes the statistics (connections and access tokens stay).
    public func resetStatistics() { core.resetStatistics() }
}
