public import HTTP2Client
public import APNsHTTP2
public import PayloadBuilder
public import FCMClient

/// What a provider said about one notification, in the dispatcher's terms:
/// the common ground of APNs and FCM outcomes.
public enum DeliveryResult: Sendable, Equatable {
    /// Taken by the provider; its id (`apns-id`, FCM message name).
    case accepted(providerID: String)
    /// Refused by the provider with a reason and what to do about it.
    case rejected(status: Int, reason: String, disposition: Disposition)
    /// No answer: the transport failed (retryable or not, as it says).
    case failed(TransportError)

    /// What the dispatcher does with a rejection.
    public enum Disposition: Sendable, Equatable {
        /// The token is dead: report `invalid_token` and list it in `rejected`.
        /// `since`: when the provider says the token stopped being valid
        /// (APNs 410's `timestamp`, milliseconds since the epoch), so that a
        /// caller keeps a token its app registered again after that.
        case dropToken(since: Int64?)
        /// Try again, after `after` when the provider said so.
        case retry(after: Duration?)
        /// Final failure: gateway bug, payload refused.
        case final
        /// Final failure because our configuration for this provider is
        /// wrong (credentials, topic, project): the provider is known bad.
        /// `detail`: what to check, when the client or the provider said
        /// more than the reason (for the operator's log, not the answer).
        case configuration(detail: String?)
    }
}

/// Sends rendered requests of one provider and says what happened to each.
/// Implemented by the APNs and FCM adapters; the dispatcher knows only this.
public protocol NotificationSender: Sendable {
    /// `pushgw_*{provider=...}` label: `apns` or `fcm`.
    var provider: String { get }
    /// Sends the requests and calls `completion` once, from any thread, with
    /// one result per request, in order, within `timeout` (the caller's
    /// deadline; the client's own request timeout when that is shorter):
    /// waiting for credentials and the client's own re-sends included.
    func send(_ requests: [ProviderRequest], timeout: Duration, completion: @escaping @Sendable ([DeliveryResult]) -> Void)
}

/// `NotificationSender` over the APNs client.
public struct APNsSender: NotificationSender {
    public let client: APNsClient
    public var provider: String { "apns" }

    public init(client: APNsClient) {
        self.client = client
    }

    public func send(_ requests: [ProviderRequest], timeout: Duration, completion: @escaping @Sendable ([DeliveryResult]) -> Void) {
        client.send(requests, timeout: timeout) { outcomes in completion(outcomes.map(Self.delivery)) }
    }

    private static func delivery(_ outcome: Result<APNsOutcome, TransportError>) -> DeliveryResult {
        switch outcome {
        case let .success(.accepted(apnsID)):
            return .accepted(providerID: apnsID)
        case let .success(.rejected(rejection)):
            let disposition: DeliveryResult.Disposition
            switch rejection.action {
            case .dropToken: disposition = .dropToken(since: rejection.timestamp)
            case let .retry(after): disposition = .retry(after: after)
            case .retryOnNewConnection, .retryWithNewProviderToken: disposition = .retry(after: nil)
            case .configurationError: disposition = .configuration(detail: rejection.detail)
            case .gatewayBug, .doNotRetry: disposition = .final
            }
            return .rejected(status: rejection.status, reason: rejection.reason.rawValue, disposition: disposition)
        case let .failure(error):
            return .failed(error)
        }
    }
}

/// `NotificationSender` over the FCM client.
public struct FCMSender: NotificationSender {
    public let client: FCMClient
    public var provider: String { "fcm" }

    public init(client: FCMClient) {
        self.client = client
    }

    public func send(_ requests: [ProviderRequest], timeout: Duration, completion: @escaping @Sendable ([DeliveryResult]) -> Void) {
        client.send(requests, timeout: timeout) { outcomes in completion(outcomes.map(Self.delivery)) }
    }

    /// The FCM error code; without one (an answer with no FcmError detail,
    /// e.g. the OAuth token or an IAM permission refused), the RPC status
    /// (`UNAUTHENTICATED`, `PERMISSION_DENIED`, …), which says what to fix.
    private static func reason(_ rejection: FCMRejection) -> String {
        guard rejection.errorCode == .unspecified, let status = rejection.rpcStatus, !status.isEmpty else {
            return rejection.errorCode.rawValue
        }
        return status
    }

    private static func delivery(_ outcome: Result<FCMOutcome, TransportError>) -> DeliveryResult {
        switch outcome {
        case let .success(.accepted(name)):
            return .accepted(providerID: name)
        case let .success(.rejected(rejection)):
            let disposition: DeliveryResult.Disposition
            switch rejection.action {
            case .dropToken: disposition = .dropToken(since: nil)
            case let .retry(after): disposition = .retry(after: after)
            // Bad APNs credentials in the Firebase project: iOS devices reached
            // through FCM fail, Android ones do not; FCM is not known bad.
            case .configurationError where rejection.errorCode == .thirdPartyAuthError || rejection.errorCode == .apnsAuthError:
                disposition = .final
            // Google's message says which permission or project is wrong.
            case .configurationError: disposition = .configuration(detail: rejection.message.isEmpty ? nil : rejection.message)
            case .doNotRetry: disposition = .final
            }
            return .rejected(status: rejection.status, reason: reason(rejection), disposition: disposition)
        case let .failure(error):
            return .failed(error)
        }
    }
}
