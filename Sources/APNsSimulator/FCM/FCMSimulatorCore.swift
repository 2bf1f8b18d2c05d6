import Synchronization
import PushGWSync

/// The state every FCM connection thread and the public API share: the
/// configuration, and one lock around the issued access tokens, the token
/// endpoint's availability, per-token scripts, faults and statistics.
///
/// It is the FCM `HTTP2Service`: each connection gets an `FCMRequestHandler`.
///
/// `Sendable` because its stored properties are immutable `Sendable`
/// values or a `Mutex`.
final class FCMSimulatorCore: HTTP2Service {
    let configuration: FCMSimulatorConfiguration
    let pki: ThrowawayPKI
    /// The path of the OAuth token endpoint.
    static let tokenPath = "/token"
    private let control: Locked<ControlState>

    private struct ControlState {
        var faults = APNsSimulatorFaults.none
        var scripts: [String: TokenScript<FCMSimulatorResponse>] = [:]
        /// Issued access token → expiry (epoch seconds).
        var accessTokens: [String: Double] = [:]
        var accessTokenLifetime: Int
        var tokenEndpointOutage: TokenEndpointOutage?
        var maxConcurrentStreams: Int
        var statistics = FCMSimulatorStatistics()
        var connectionCount = 0
        var messageCount: UInt64 = 0
        /// The simulator's port, set once it listens (for the token URI).
        var port = 0
    }

    init(configuration: FCMSimulatorConfiguration, pki: ThrowawayPKI) {
        self.configuration = configuration
        self.pki = pki
        control = Locked(ControlState(accessTokenLifetime: configuration.accessTokenLifetime,
                                     maxConcurrentStreams: configuration.maxConcurrentStreams))
    }

    // MARK: HTTP2Service

    var handshakeTimeout: Duration { configuration.handshakeTimeout }
    var goAwayDebugData: [UInt8] { [] }
    /// Google's behaviour is not documented: nghttp2's per-stream refusal.
    var streamLimitGoAwayDebugData: [UInt8]? { nil }
    var idleTimeout: Duration? { configuration.idleTimeout }
    var idleGoAwayDebugData: [UInt8] { [] }

    var faults: APNsSimulatorFaults {
        get { control.withLock { $0.faults } }
        set { control.withLock { $0.faults = newValue } }
    }

    var maxConcurrentStreams: Int {
        get { control.withLock { $0.maxConcurrentStreams } }
        set { control.withLock { $0.maxConcurrentStreams = newValue } }
    }

    func makeHandler(connection number: Int) -> any HTTP2RequestHandler {
        FCMRequestHandler(core: self)
    }

    func connectionAccepted() -> Int {
        control.withLock { state in
            state.connectionCount += 1
            state.statistics.connectionsAccepted += 1
            return state.connectionCount
        }
    }

    func recordRefused() { control.withLock { $0.statistics.connectionsRefused += 1 } }
    func recordDropped() { control.withLock { $0.statistics.connectionsDropped += 1 } }
    func recordGoAway() { control.withLock { $0.statistics.goAwaysSent += 1 } }
    func recordWindowWidenedWhenUsedUp() { control.withLock { $0.statistics.windowsWidenedWhenUsedUp += 1 } }

    func recordUnanswered(_ count: Int) {
        guard count > 0 else { return }
        control.withLock { $0.statistics.unansweredStreams += count }
    }

    // MARK: Control (public API)

    var port: Int {
        get { control.withLock { $0.port } }
        set { control.withLock { $0.port = newValue } }
    }

    /// `https://127.0.0.1:<port>/token`: the `token_uri` and JWT `aud`.
    var tokenURI: String { "https://127.0.0.1:\(port)\(Self.tokenPath)" }

    func script(token: String, responses: [FCMSimulatorResponse], thereafter: FCMSimulatorResponse?) {
        control.withLock { $0.scripts[token] = TokenScript(queue: responses, thereafter: thereafter) }
    }

    func clearScript(token: String?) {
        control.withLock { state in
            if let token { state.scripts[token] = nil } else { state.scripts.removeAll() }
        }
    }

    var accessTokenLifetime: Int {
        get { control.withLock { $0.accessTokenLifetime } }
        set { control.withLock { $0.accessTokenLifetime = max(1, newValue) } }
    }

    func setTokenEndpointDown(_ down: Bool, retryAfter: Int?) {
        control.withLock { $0.tokenEndpointOutage = down ? TokenEndpointOutage(retryAfter: retryAfter) : nil }
    }

    /// Makes every access token issued so far expire now.
    func expireAccessTokens() {
        control.withLock { $0.accessTokens.removeAll() }
    }

    var statistics: FCMSimulatorStatistics { control.withLock { $0.statistics } }

    func resetStatistics() { control.withLock { $0.statistics = FCMSimulatorStatistics() } }

    // MARK: OAuth (connection threads)

    /// The outage in force, counted as a refused grant; nil when the token
    /// endpoint is up.
    func tokenEndpointOutage() -> TokenEndpointOutage? {
        control.withLock { state in
            guard let outage = state.tokenEndpointOutage else { return nil }
            state.statistics.grantsRefused["unavailable", default: 0] += 1
            return outage
        }
    }

    /// Issues a new random access token valid from `now` for the current
    /// lifetime; returns it with its `expires_in`.
    func issueAccessToken(now: Double) -> (token: String, expiresIn: Int) {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<72).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let token = "ya29.c." + Base64URL.encode(random)
        return control.withLock { state in
            if state.accessTokens.count > 10_000 {
                state.accessTokens = state.accessTokens.filter { $0.value > now }
            }
            let lifetime = state.accessTokenLifetime
            state.accessTokens[token] = now + Double(lifetime)
            state.statistics.grantsIssued += 1
            return (token, lifetime)
        }
    }

    func recordGrantRefused(_ error: String) {
        control.withLock { $0.statistics.grantsRefused[error, default: 0] += 1 }
    }

    /// Whether `token` was issued here and has not expired at `now`.
    func isValidAccessToken(_ token: String, now: Double) -> Bool {
        control.withLock { state in
            guard let expiry = state.accessTokens[token] else { return false }
            return now < expiry
        }
    }

    // MARK: Messages (connection threads)

    /// The answer to a valid message (its token's script, or success),
    /// recorded in the same critical section. Returns the answered name on success.
    func answer(for message: FCMMessageValidator.ValidMessage, body: [UInt8]) -> Result<FCMMessageName, GoogleError> {
        let recordsMessages = configuration.recordsMessages
        let project = configuration.projectID
        return control.withLock { state in
            var response = FCMSimulatorResponse.success
            if let token = message.token, !state.scripts.isEmpty, var script = state.scripts[token] {
                let next = script.next()
                response = next.response
                state.scripts[token] = next.exhausted ? nil : script
            }
            guard response.status == 200 else {
                let error = GoogleError(scripted: response)
                Self.countRejection(error, in: &state.statistics)
                return .failure(error)
            }
            if message.validateOnly {
                state.statistics.validatedOnly += 1
                return .success(FCMMessageName(sent: nil))
            }
            state.messageCount += 1
            let accepted = FCMMessageName(sent: (Int64(WallClock.now() * 1000), state.messageCount))
            state.statistics.acceptedTotal += 1
            if recordsMessages {
                let name = accepted.text(project: project)
                if let token = message.token { state.statistics.acceptedPerToken[token, default: 0] += 1 }
                state.statistics.acceptedNames.append(name)
                state.statistics.messages.append(FCMSimulatorMessage(
                    name: name, token: message.token, topic: message.topic, condition: message.condition, body: body))
            }
            return .success(accepted)
        }
    }

    func recordRejection(_ error: GoogleError) {
        control.withLock { Self.countRejection(error, in: &$0.statistics) }
    }

    private static func countRejection(_ error: GoogleError, in statistics: inout FCMSimulatorStatistics) {
        statistics.rejectedTotal += 1
        statistics.rejectedPerErrorCode[error.statisticsKey, default: 0] += 1
    }
}
