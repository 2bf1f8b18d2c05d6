public import HTTP2Client
public import PayloadBuilder
public import WebPushClient

/// `NotificationSender` over the web push sender: one app's browsers
/// reached directly, each push service's answer in the dispatcher's terms.
public struct WebPushNotificationSender: NotificationSender {
    public let sender: WebPushSender
    public var provider: String { "webpush" }

    public init(sender: WebPushSender) {
        self.sender = sender
    }

    public func send(_ requests: [ProviderRequest], timeout: Duration, completion: @escaping @Sendable ([DeliveryResult]) -> Void) {
        sender.send(requests, timeout: timeout) { outcomes in completion(outcomes.map(Self.delivery)) }
    }

    private static func delivery(_ outcome: Result<WebPushOutcome, TransportError>) -> DeliveryResult {
        switch outcome {
        case let .success(.accepted(location)): .accepted(providerID: location)
        case let .success(.notSent(reason)): .notSent(reason: reason)
        case let .success(.rejected(rejection)): .rejected(status: rejection.status, reason: rejection.reason, verdict: rejection.verdict)
        case let .failure(error): .failed(error)
        }
    }
}
