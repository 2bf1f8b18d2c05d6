import Synchronization
import PushGWSync

/// The state every web push connection thread and the public API share:
/// the configuration, and one lock around the subscriptions, scripts,
/// faults, the stream limit and the statistics.
///
/// It is the web push `HTTP2Service`: each connection gets a `WebPushRequestHandler`.
///
/// `Sendable` because its stored properties are immutable `Sendable`
/// values or a `Mutex`.
final class WebPushSimulatorCore: HTTP2Service {
    let configuration: WebPushSimulatorConfiguration
    let pki: ThrowawayPKI
    /// The path prefix of push resources.
    static let pushPath = "/push/"
    private let control: Locked<ControlState>

    private struct ControlState {
        var faults = APNsSimulatorFaults.none
        var subscriptions: [String: WebPushSubscriptionState] = [:]
        var scripts: [String: TokenScript<WebPushSimulatorResponse>] = [:]
        var maxConcurrentStreams: Int
        var statistics = WebPushSimulatorStatistics()
        var connectionCount = 0
        var messageCount: UInt64 = 0
        var port = 0
    }

    init(configuration: WebPushSimulatorConfiguration, pki: ThrowawayPKI) {
        self.configuration = configuration
        self.pki = pki
        control = Locked(ControlState(maxConcurrentStreams: configuration.maxConcurrentStreams))
    }

    // MARK: HTTP2Service

    var applicationProtocol: ApplicationProtocol { configuration.servesHTTP11 ? .http11 : .http2 }
    var handshakeTimeout: Duration { configuration.handshakeTimeout }
    var goAwayDebugData: [UInt8] { [] }
    /// The push services' behaviour is not documented: nghttp2's per-stream refusal.
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
        WebPushRequestHandler(core: self, number: number)
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

    /// `https://127.0.0.1:<port>`: every endpoint's origin, the JWT `aud`.
    var origin: String { "https://127.0.0.1:\(port)" }

    func addSubscription(id: String, state: WebPushSubscriptionState) {
        control.withLock { $0.subscriptions[id] = state }
    }

    func subscription(id: String) -> WebPushSubscriptionState? {
        control.withLock { $0.subscriptions[id] }
    }

    /// Marks `id` gone; false when there is no such subscription.
    func unsubscribe(id: String) -> Bool {
        control.withLock { state in
            guard state.subscriptions[id] != nil else { return false }
            state.subscriptions[id]?.isGone = true
            return true
        }
    }

    func script(id: String, responses: [WebPushSimulatorResponse], thereafter: WebPushSimulatorResponse?) {
        control.withLock { $0.scripts[id] = TokenScript(queue: responses, thereafter: thereafter) }
    }

    func clearScript(id: String?) {
        control.withLock { state in
            if let id { state.scripts[id] = nil } else { state.scripts.removeAll() }
        }
    }

    var statistics: WebPushSimulatorStatistics { control.withLock { $0.statistics } }

    func resetStatistics() { control.withLock { $0.statistics = WebPushSimulatorStatistics() } }

    // MARK: Messages (connection threads)

    /// A message that passed every check, for `answer(for:)`.
    struct ValidMessage {
        let subscriptionID: String
        let headers: WebPushHeaderRules.Headers
        let claims: VAPIDVerifier.Claims
        let plaintext: [UInt8]
        let bodySize: Int
        let connection: Int
    }

    /// The answer to a valid message (its subscription's script, or 201),
    /// recorded in the same critical section; with the new message id on success.
    func answer(for message: ValidMessage) -> (response: WebPushSimulatorResponse, messageID: String?) {
        let now = configuration.clock()
        let records = configuration.recordsMessages
        return control.withLock { state in
            var response = WebPushSimulatorResponse.success
            if !state.scripts.isEmpty, var script = state.scripts[message.subscriptionID] {
                let next = script.next()
                response = next.response
                state.scripts[message.subscriptionID] = next.exhausted ? nil : script
            }
            guard response.status == 201 else {
                Self.countRejection(response, in: &state.statistics)
                return (response, nil)
            }
            state.messageCount += 1
            let messageID = "m\(state.messageCount)"
            state.statistics.acceptedTotal += 1
            state.statistics.acceptedPerSubscription[message.subscriptionID, default: 0] += 1
            if records {
                state.statistics.messages.append(WebPushSimulatorMessage(
                    subscriptionID: message.subscriptionID, messageID: messageID, plaintext: message.plaintext,
                    ttl: message.headers.ttl, urgency: message.headers.urgency, topic: message.headers.topic,
                    vapidSubject: message.claims.subject, vapidPublicKey: message.claims.publicKeyText,
                    bodySize: message.bodySize, arrival: now, connectionNumber: message.connection))
            }
            return (response, messageID)
        }
    }

    func recordRejection(_ response: WebPushSimulatorResponse) {
        control.withLock { Self.countRejection(response, in: &$0.statistics) }
    }

    private static func countRejection(_ response: WebPushSimulatorResponse, in statistics: inout WebPushSimulatorStatistics) {
        statistics.rejectedTotal += 1
        statistics.rejectedPerReason[response.reason ?? String(response.status), default: 0] += 1
    }
}
