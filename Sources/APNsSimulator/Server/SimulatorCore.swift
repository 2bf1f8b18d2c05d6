import Synchronization
import PushGWSync

/// The state every connection thread and the public API share: the
/// configuration, the validator, the provider-token keys, and one lock around faults, scripts,
/// device registrations, the stream limit and the statistics.
///
/// It is the APNs `HTTP2Service`: each connection gets an
/// `APNsRequestHandler` that validates against it.
///
/// `Sendable` because its stored properties are immutable `Sendable`
/// values or a `Mutex`.
final class SimulatorCore: HTTP2Service {
    let configuration: APNsSimulatorConfiguration
    let pki: ThrowawayPKI
    let validator: RequestValidator
    /// The provider-token keys, parsed once for every connection.
    let keyring: ProviderKeyring
    private let control: Locked<ControlState>

    private struct ControlState {
        var faults = APNsSimulatorFaults.none
        var scripts: [String: TokenScript<APNsSimulatorResponse>] = [:]
        var registeredDevices: [String: String]
        var maxConcurrentStreams: Int
        var statistics = APNsSimulatorStatistics()
        var connectionCount = 0
    }

    init(configuration: APNsSimulatorConfiguration, pki: ThrowawayPKI) {
        self.configuration = configuration
        self.pki = pki
        validator = RequestValidator(configuration: configuration)
        keyring = ProviderKeyring(pems: configuration.keys)
        var devices: [String: String] = [:]
        for (token, topic) in configuration.registeredDevices { devices[token.lowercased()] = topic }
        control = Locked(ControlState(registeredDevices: devices, maxConcurrentStreams: configuration.maxConcurrentStreams))
    }

    // MARK: HTTP2Service

    var handshakeTimeout: Duration { configuration.handshakeTimeout }

    /// Apple's GOAWAY debug data when it closes a connection.
    var goAwayDebugData: [UInt8] { Self.goAwayDebugData }
    var idleTimeout: Duration? { configuration.idleTimeout }
    /// Apple's reason for closing an idle connection (PROTOCOLS.md A5).
    var idleGoAwayDebugData: [UInt8] { Self.idleGoAwayDebugData }
    private static let idleGoAwayDebugData = Array(#"{"reason":"IdleTimeout"}"#.utf8)
    /// APNs answered more streams than allowed with a GOAWAY saying so (PROTOCOLS.md A6).
    var streamLimitGoAwayDebugData: [UInt8]? { Self.streamLimitGoAwayDebugData }
    private static let streamLimitGoAwayDebugData = Array("Maximum active streams violated for this endpoint".utf8)
    private static let goAwayDebugData = Array(#"{"reason":"Shutdown"}"#.utf8)

    func makeHandler(connection number: Int) -> any HTTP2RequestHandler {
        APNsRequestHandler(core: self, number: number)
    }

    // MARK: Control (public API)

    var faults: APNsSimulatorFaults {
        get { control.withLock { $0.faults } }
        set { control.withLock { $0.faults = newValue } }
    }

    func script(token: String, responses: [APNsSimulatorResponse], thereafter: APNsSimulatorResponse?) {
        control.withLock { $0.scripts[token.lowercased()] = TokenScript(queue: responses, thereafter: thereafter) }
    }

    func clearScript(token: String?) {
        control.withLock { state in
            if let token { state.scripts[token.lowercased()] = nil } else { state.scripts.removeAll() }
        }
    }

    func registerDevice(token: String, topic: String?) {
        control.withLock { $0.registeredDevices[token.lowercased()] = topic }
    }

    /// The topic the token is registered for, if any; the lowercased token
    /// is asked for only when some device is registered.
    func registeredTopic(forToken lowercasedToken: () -> String) -> String? {
        control.withLock { state in state.registeredDevices.isEmpty ? nil : state.registeredDevices[lowercasedToken()] }
    }

    var maxConcurrentStreams: Int {
        get { control.withLock { $0.maxConcurrentStreams } }
        set { control.withLock { $0.maxConcurrentStreams = newValue } }
    }

    var statistics: APNsSimulatorStatistics {
        control.withLock { $0.statistics }
    }

    func resetStatistics() {
        control.withLock { $0.statistics = APNsSimulatorStatistics() }
    }

    // MARK: Recording (connection threads)

    /// Counts a new TCP connection and returns its 1-based number.
    func connectionAccepted() -> Int {
        control.withLock { state in
            state.connectionCount += 1
            state.statistics.connectionsAccepted += 1
            return state.connectionCount
        }
    }

    /// The answer to a valid notification (its token's script, or 200),
    /// recorded as accepted or rejected in the same critical section.
    ///
    /// The token's key and the record's texts are made only when a script
    /// or a record needs them.
    func answer(for notification: ValidatedNotification, connection: Int, streamID: Int32) -> APNsSimulatorResponse {
        let recordsIDs = configuration.recordsAcceptedIDs
        let record = configuration.recordsNotifications ? APNsSimulatorNotification(
            deviceToken: notification.deviceToken,
            apnsID: notification.apnsID,
            apnsIDWasSent: notification.apnsIDWasSent,
            topic: notification.topic,
            pushType: notification.pushType,
            priority: notification.priority,
            expiration: notification.expiration,
            collapseID: notification.collapseID,
            payload: notification.payload,
            connectionNumber: connection,
            streamID: Int(streamID),
            neverIndexedHeaders: notification.neverIndexedHeaders,
            providerToken: notification.providerToken
        ) : nil
        let key = recordsIDs ? notification.tokenKey : nil
        return control.withLock { state in
            var response = APNsSimulatorResponse.success
            if !state.scripts.isEmpty {
                let key = key ?? notification.tokenKey
                if var script = state.scripts[key] {
                    let next = script.next()
                    response = next.response
                    state.scripts[key] = next.exhausted ? nil : script
                }
            }
            if response.status == 200 {
                state.statistics.acceptedTotal += 1
                if let key {
                    state.statistics.acceptedPerToken[key, default: 0] += 1
                    state.statistics.acceptedIDs.append(notification.apnsID)
                }
                if let record { state.statistics.notifications.append(record) }
            } else {
                Self.countRejection(response.reason, in: &state.statistics)
            }
            return response
        }
    }

    func recordRejection(_ response: APNsSimulatorResponse) {
        control.withLock { Self.countRejection(response.reason, in: &$0.statistics) }
    }

    func recordUnanswered(_ count: Int) {
        guard count > 0 else { return }
        control.withLock { $0.statistics.unansweredStreams += count }
    }

    func recordRefused() {
        control.withLock { $0.statistics.connectionsRefused += 1 }
    }

    func recordDropped() {
        control.withLock { $0.statistics.connectionsDropped += 1 }
    }

    func recordGoAway() {
        control.withLock { $0.statistics.goAwaysSent += 1 }
    }

    func recordWindowWidenedWhenUsedUp() {
        control.withLock { $0.statistics.windowsWidenedWhenUsedUp += 1 }
    }

    private static func countRejection(_ reason: String?, in statistics: inout APNsSimulatorStatistics) {
        statistics.rejectedTotal += 1
        statistics.rejectedPerReason[reason ?? "(none)", default: 0] += 1
    }
}
