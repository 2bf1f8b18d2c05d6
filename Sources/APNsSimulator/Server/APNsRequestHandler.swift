/// Answers the APNs requests of one connection: validates each one as Apple
/// does (`RequestValidator`), with the connection's provider-token memory
/// (`ProviderTokenVerifier`), then takes the token's scripted answer or 200
/// from the `SimulatorCore`, which records it.
///
/// Thread-confined to its connection's thread.
final class APNsRequestHandler: HTTP2RequestHandler {
    private let core: SimulatorCore
    private let number: Int
    private var tokens: ProviderTokenVerifier

    init(core: SimulatorCore, number: Int) {
        self.core = core
        self.number = number
        tokens = ProviderTokenVerifier(configuration: core.configuration, keyring: core.keyring)
    }

    /// 1 before the first valid JWT when configured like Apple, else the
    /// simulator's current limit.
    func streamLimit(serviceLimit: Int) -> Int {
        core.configuration.limitStreamsUntilAuthenticated && !tokens.hasCurrentToken ? 1 : serviceLimit
    }

    func answer(_ request: ReceivedRequest, streamID: Int32) -> HTTP2Answer {
        let core = self.core
        let hadToken = tokens.hasCurrentToken
        let verdict = core.validator.validate(
            request,
            tokens: &tokens,
            registeredTopic: { core.registeredTopic(forToken: $0) },
            now: core.configuration.clock()
        )
        let response: APNsSimulatorResponse
        let apnsID: String
        switch verdict {
        case .rejected(let rejection, let id):
            core.recordRejection(rejection)
            response = rejection
            apnsID = id
        case .valid(let notification):
            response = core.answer(for: notification, connection: number, streamID: streamID)
            apnsID = notification.apnsID
        }
        return HTTP2Answer(status: response.status, headers: [("apns-id", apnsID)], body: response.body,
                           streamLimitMayHaveChanged: !hadToken && tokens.hasCurrentToken)
    }
}
