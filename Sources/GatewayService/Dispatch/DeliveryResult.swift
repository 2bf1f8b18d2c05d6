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
    case rejected(status: Int, reason: String, verdict: ProviderVerdict)
    /// No answer: the transport failed (retryable or not, as it says).
    case failed(TransportError)
    /// Not sent, by the sender's policy (a web push endpoint whose host is
    /// not an allowed push service): the device is `skipped` with `reason`,
    /// which settles it, as retrying the event cannot send it.
    case notSent(reason: String)
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
        case let .success(.accepted(apnsID)): .accepted(providerID: apnsID)
        case let .success(.rejected(rejection)): .rejected(status: rejection.status, reason: rejection.reason.rawValue, verdict: rejection.verdict)
        case let .failure(error): .failed(error)
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

    private static func delivery(_ outcome: Result<FCMOutcome, TransportError>) -> DeliveryResult {
        switch outcome {
        case let .success(.accepted(name)): .accepted(providerID: name)
        case let .success(.rejected(rejection)): .rejected(status: rejection.status, reason: rejection.reason, verdict: rejection.verdict)
        case let .failure(error): .failed(error)
        }
    }
}
